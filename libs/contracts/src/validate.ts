import { plainToInstance } from 'class-transformer';
import { validateSync } from 'class-validator';

export type Parsed<T> = { ok: true; value: T } | { ok: false; problems: string[] };

/**
 * Decodes a NATS payload into a validated contract class. Never throws: bad input becomes a list of
 * problems the caller sends back in an error reply (and counts).
 */
export function parseContract<T extends object>(Class: new () => T, payload: Uint8Array | string): Parsed<T> {
  let plain: unknown;
  try {
    plain = JSON.parse(typeof payload === 'string' ? payload : new TextDecoder().decode(payload));
  } catch {
    return { ok: false, problems: ['payload is not JSON'] };
  }
  if (plain === null || typeof plain !== 'object' || Array.isArray(plain)) {
    return { ok: false, problems: ['payload must be a JSON object'] };
  }
  const value = plainToInstance(Class, plain);
  const errors = validateSync(value, { forbidUnknownValues: true });
  if (errors.length > 0) {
    // A field breaking several rules that share one message (e.g. min and max length) is told it once.
    const problems = errors.flatMap((e) => Object.values(e.constraints ?? { [e.property]: 'invalid' }));
    return { ok: false, problems: [...new Set(problems)] };
  }
  return { ok: true, value };
}
