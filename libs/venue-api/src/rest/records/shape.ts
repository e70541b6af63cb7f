/**
 * Small typed readers that turn a losslessly parsed venue body (numbers as `JsonNumber`) into the
 * record interfaces of this folder. Unknown properties are ignored (§9: changes are additive); a
 * missing required field or a value of the wrong kind is a `ShapeError` naming the path (never a value
 * that could be a secret: bodies carry none, but we still print only the path and the problem).
 *
 * `record<T>(shape)` is checked against the interface `T`: every property needs a reader, optional
 * properties need an `optional(...)` reader.
 */
import { CURRENCY_CODE_RULE, hasLoneSurrogate, isCurrencyCode } from '#contracts';
import { MAX_DECIMAL_TEXT, parseDecimal, toPlain } from '../../money/decimal.js';
import { JsonNumber } from '../../money/json-number.js';

export class ShapeError extends Error {
  override readonly name = 'ShapeError';
  constructor(
    readonly path: string,
    readonly problem: string,
  ) {
    super(`${path}: ${problem}`);
  }
}

export interface Reader<T> {
  readonly optional: false;
  read(value: unknown, path: string): T;
}

export interface OptionalReader<T> {
  readonly optional: true;
  read(value: unknown, path: string): T | undefined;
}

/** The readers a record of type `T` needs, one per property. */
export type ShapeOf<T> = {
  [K in keyof T]-?: undefined extends T[K] ? OptionalReader<Exclude<T[K], undefined>> : Reader<T[K]>;
};

function reader<T>(read: (value: unknown, path: string) => T): Reader<T> {
  return { optional: false, read };
}

function kindOf(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  if (value instanceof JsonNumber) return 'number';
  return typeof value;
}

/** Absent or null reads as undefined (§2: "absent rather than null", but tolerate either). */
export function optional<T>(inner: Reader<T>): OptionalReader<T> {
  return {
    optional: true,
    read: (value, path) => (value === undefined || value === null ? undefined : inner.read(value, path)),
  };
}

/**
 * A field the spec does not pin down, read liberally: absent, null or of an unexpected kind or value (a state
 * added later, say) all read as undefined — the record is kept, only that field is not known.
 */
export function lenient<T>(inner: Reader<T>): OptionalReader<T> {
  return {
    optional: true,
    read: (value, path) => {
      if (value === undefined || value === null) return undefined;
      try {
        return inner.read(value, path);
      } catch (error) {
        if (error instanceof ShapeError) return undefined;
        throw error;
      }
    },
  };
}

/**
 * A `string or null` field (§2.9 displayTitle…) read liberally: absent, null or of another kind all read as
 * null — the record is kept, only that field is not known.
 */
export function nullableLenient<T>(inner: Reader<T>): Reader<T | null> {
  const read = lenient(inner);
  return reader((value, path) => read.read(value, path) ?? null);
}

/** Null is a value (e.g. §2.8 `sessionId` "present with value null"); absent reads as null too. */
export function nullable<T>(inner: Reader<T>): Reader<T | null> {
  return reader((value, path) => (value === null || value === undefined ? null : inner.read(value, path)));
}

/**
 * Longest free text taken from a venue record (a comment, a description, a currency code): the spec bounds none
 * but a withdrawal comment (1024); beyond this a value is refused rather than stored and republished.
 */
export const MAX_TEXT_CHARS = 4096;

export const text: Reader<string> = reader((value, path) => {
  if (typeof value !== 'string') throw new ShapeError(path, `expected a string, got ${kindOf(value)}`);
  if (value.length > MAX_TEXT_CHARS) throw new ShapeError(path, `expected at most ${MAX_TEXT_CHARS} characters`);
  return value;
});

/**
 * A currency code the ledger keys and publishes (§2.9 `ccy`: "Currency."): the gateway's own rule for one
 * (`#contracts` venue-codes: 1-16 visible characters). An empty, NUL, bidi-override or 4,096-character `ccy` is
 * no currency the gateway can book (tester t2 F5); the value is never echoed in the problem.
 */
export const currencyCode: Reader<string> = reader((value, path) => {
  if (typeof value !== 'string') throw new ShapeError(path, `expected a string, got ${kindOf(value)}`);
  if (!isCurrencyCode(value)) throw new ShapeError(path, `expected a currency code: ${CURRENCY_CODE_RULE}`);
  return value;
});

/**
 * Largest identifier the gateway takes, in UTF-8 bytes: it becomes part of NATS subjects and keys (a 4 KB one
 * broke the connection; a transaction uuid that is not a plain token is carried base64url-encoded, ≤ 1 367
 * characters at this bound, well inside the server's 4 KB control line). The spec says only "string"
 * (§2.4, §2.9), so the bound is generous: a venue identifier is refused only when it could not be carried.
 */
export const MAX_IDENTIFIER_BYTES = 1024;

const CONTROL = /\p{Cc}/u;

/** A record's identifier: a non-empty string of at most {@link MAX_IDENTIFIER_BYTES} UTF-8 bytes, no control character. */
export const identifier: Reader<string> = reader((value, path) => {
  if (typeof value !== 'string') throw new ShapeError(path, `expected a string, got ${kindOf(value)}`);
  if (value.length === 0) throw new ShapeError(path, 'expected a non-empty string');
  // it becomes a NATS message id and key: a header cannot carry CR or LF
  if (CONTROL.test(value)) throw new ShapeError(path, 'expected no control characters');
  // nor a lone surrogate: UTF-8 has none, so the id or key would be U+FFFD — another id's too (spec-gaps K8)
  if (hasLoneSurrogate(value)) throw new ShapeError(path, 'expected whole characters (no lone UTF-16 surrogate)');
  const bytes = Buffer.byteLength(value, 'utf8');
  if (bytes > MAX_IDENTIFIER_BYTES) {
    throw new ShapeError(path, `expected at most ${MAX_IDENTIFIER_BYTES} bytes, got ${bytes}`);
  }
  return value;
});

export const flag: Reader<boolean> = reader((value, path) => {
  if (typeof value !== 'boolean') throw new ShapeError(path, `expected a boolean, got ${kindOf(value)}`);
  return value;
});

/**
 * A decimal sent either as a JSON number (read from its exact text, R15) or as a string. Returned as a
 * plain-notation decimal string: the venue's own text when it has no exponent, else its plain form.
 */
export const decimalText: Reader<string> = reader((value, path) => {
  const raw = value instanceof JsonNumber ? value.text : value;
  if (typeof raw !== 'string') throw new ShapeError(path, `expected a decimal, got ${kindOf(value)}`);
  try {
    const parsed = parseDecimal(raw, path);
    // negative zero (`-0`, `-0.00`) is zero: consumers comparing signs must not see a minus on nothing
    const plain = /[eE]/.test(raw) ? toPlain(parsed) : parsed.isZero() ? raw.replace(/^-/, '') : raw;
    // `1e400` is short, written out it is not: the same bound as for a decimal sent in full
    if (plain.length > MAX_DECIMAL_TEXT) throw new Error(`longer than ${MAX_DECIMAL_TEXT} characters written out`);
    return plain;
  } catch (error) {
    throw new ShapeError(path, error instanceof Error ? error.message : 'not a decimal');
  }
});

/** A whole number sent as a JSON number or a digit string (e.g. senders' `total`, §4.7), as a safe integer. */
export const integer: Reader<number> = reader((value, path) => {
  const raw = value instanceof JsonNumber ? value.text : value;
  if (typeof raw !== 'string' || !/^-?\d+$/.test(raw)) {
    throw new ShapeError(path, `expected an integer, got ${kindOf(value)}`);
  }
  const parsed = Number(raw);
  if (!Number.isSafeInteger(parsed)) throw new ShapeError(path, 'integer out of the safe range');
  return parsed;
});

/** Text of an identifier or epoch-millisecond value that may come as a string or a JSON number. */
export const digitsOrText: Reader<string> = reader((value, path) => {
  if (value instanceof JsonNumber) return value.text;
  return text.read(value, path);
});

export function oneOf<const T extends string>(...allowed: T[]): Reader<T> {
  return reader((value, path) => {
    const candidate = text.read(value, path);
    if (!(allowed as string[]).includes(candidate)) {
      throw new ShapeError(path, `unexpected value ${JSON.stringify(candidate.slice(0, 40))}`);
    }
    return candidate as T;
  });
}

/**
 * A value of a list the spec gives (§2.4 states, §2.9 classes) that the venue may extend (§9: changes are
 * additive): one of `known`, or any other string kept as the venue sent it.
 */
export type Open<T extends string> = T | (string & Record<never, never>);

/** Any string, typed {@link Open}: one of the values `T` lists, or another kept as the venue sent it. */
export function openText<T extends string>(): Reader<Open<T>> {
  return text;
}

export function listOf<T>(item: Reader<T>): Reader<T[]> {
  return reader((value, path) => {
    if (!Array.isArray(value)) throw new ShapeError(path, `expected an array, got ${kindOf(value)}`);
    return value.map((element, index) => item.read(element, `${path}[${index}]`));
  });
}

/**
 * A list of rows, each read on its own: a row that cannot be read (it lacks what identifies it) is left out and
 * told to `skipped`, never the whole list lost with it (the lists carry other members' rows too).
 */
export function rowsOf<T>(item: Reader<T>, skipped: (error: ShapeError) => void): Reader<T[]> {
  return reader((value, path) => {
    if (!Array.isArray(value)) throw new ShapeError(path, `expected an array, got ${kindOf(value)}`);
    const rows: T[] = [];
    value.forEach((element, index) => {
      try {
        rows.push(item.read(element, `${path}[${index}]`));
      } catch (error) {
        if (!(error instanceof ShapeError)) throw error;
        skipped(error);
      }
    });
    return rows;
  });
}

export function isJsonObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value) && !(value instanceof JsonNumber);
}

export function mapOf<T>(item: Reader<T>): Reader<Record<string, T>> {
  return reader((value, path) => {
    if (!isJsonObject(value)) throw new ShapeError(path, `expected an object, got ${kindOf(value)}`);
    const result: Record<string, T> = {};
    for (const [key, element] of Object.entries(value)) result[key] = item.read(element, `${path}.${key}`);
    return result;
  });
}

export function record<T>(shape: ShapeOf<T>): Reader<T> {
  return reader((value, path) => {
    if (!isJsonObject(value)) throw new ShapeError(path, `expected an object, got ${kindOf(value)}`);
    const result: Record<string, unknown> = {};
    for (const [key, field] of Object.entries(shape) as Array<[string, Reader<unknown> | OptionalReader<unknown>]>) {
      const read = field.read(value[key], `${path}.${key}`);
      if (read !== undefined) result[key] = read;
    }
    // Every property of T was produced by its reader above (ShapeOf<T> guarantees one per property).
    return result as T;
  });
}
