import { JsonNumber } from '../../money/json-number.js';
import { ShapeError, digitsOrText, isJsonObject, type Reader } from './shape.js';

/** W1 single-use WebSocket token (§4.3, §5). The token itself is a secret: never log it. */
export interface WebSocketToken {
  token: string;
  /** Epoch milliseconds as text, when the venue sent it. */
  expiresAt?: string;
}

/**
 * The token response's fields are not shown (§4.3). Without a configured path, the plausible shapes are
 * read in this order: a bare JSON string, `{token}`, `{data: "<token>"}`, `{data: {token}}`. A configured
 * dotted path (e.g. `data.wsToken`) is the only place looked at. Errors name the path, never the value.
 */
export const AUTO_TOKEN_PATHS: readonly string[] = ['', 'token', 'data', 'data.token'];

export function tokenReader(tokenPath?: string): Reader<WebSocketToken> {
  const paths = tokenPath === undefined || tokenPath === '' ? AUTO_TOKEN_PATHS : [tokenPath];
  return {
    optional: false,
    read: (value, path) => {
      for (const candidate of paths) {
        const found = at(value, candidate);
        if (typeof found !== 'string') continue;
        if (found === '') throw new ShapeError(join(path, candidate), 'empty token');
        const holder = candidate.includes('.') ? at(value, candidate.slice(0, candidate.lastIndexOf('.'))) : value;
        const expiresAt = isJsonObject(holder) ? holder['expiresAt'] : undefined;
        // Informational only (nothing waits on it): a value neither text nor a number is left out, never a
        // reason to refuse the token and with it every connection.
        return typeof expiresAt === 'string' || expiresAt instanceof JsonNumber
          ? { token: found, expiresAt: digitsOrText.read(expiresAt, join(path, 'expiresAt')) }
          : { token: found };
      }
      const where = paths.map((p) => (p === '' ? 'the body' : p)).join(', ');
      throw new ShapeError(path, `no token string at ${where}${hintFor(value, paths)}`);
    },
  };
}

/**
 * Where the response does hold a token string when the configured path missed it (outside tester: a wrong
 * VENUE_TOKEN_PATH looped on "no token string at token"), else the names of its fields — names only, bounded.
 */
function hintFor(value: unknown, tried: readonly string[]): string {
  const found = AUTO_TOKEN_PATHS.find(
    (p) => !tried.includes(p) && typeof at(value, p) === 'string' && at(value, p) !== '',
  );
  if (found !== undefined) {
    return found === ''
      ? '; the body itself is a string: leave VENUE_TOKEN_PATH unset'
      : `; the response has one at ${found}: set VENUE_TOKEN_PATH=${found}, or leave it unset`;
  }
  if (!isJsonObject(value)) return '';
  const names = Object.keys(value)
    .slice(0, 10)
    .map((k) => (k.length > 32 ? `${k.slice(0, 32)}…` : k));
  return names.length > 0 ? `; the response's fields: ${names.join(', ')}` : '';
}

function at(value: unknown, dotted: string): unknown {
  if (dotted === '') return value;
  let current = value;
  for (const key of dotted.split('.')) {
    if (!isJsonObject(current) || !Object.prototype.hasOwnProperty.call(current, key)) return undefined;
    current = current[key];
  }
  return current;
}

function join(path: string, key: string): string {
  return key === '' ? path : `${path}.${key}`;
}
