/**
 * JSON parse and stringify that never pass a number through a JS `number` (R15).
 *
 * `parseJsonLossless` is a full RFC 8259 parser: every number token becomes a {@link JsonNumber}
 * holding its exact text; strings, objects, arrays, booleans and null come out as `JSON.parse` gives them
 * (an own `__proto__` key stays an own data property, as with `JSON.parse`: no prototype pollution).
 * It runs on REST responses, not on the price hot path.
 */
import { InvalidJsonError } from './invalid-json-error.js';
import { JsonNumber } from './json-number.js';

/** Deeper nesting than any venue document; protects the stack from a hostile body. */
const MAX_DEPTH = 512;

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COMMA = 0x2c;
const COLON = 0x3a;
const OPEN_BRACE = 0x7b;
const CLOSE_BRACE = 0x7d;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACKET = 0x5d;
const MINUS = 0x2d;
const DOT = 0x2e;
const DIGIT_0 = 0x30;
const DIGIT_9 = 0x39;

function isDigit(c: number): boolean {
  return c >= DIGIT_0 && c <= DIGIT_9;
}

class LosslessParser {
  private pos = 0;

  constructor(private readonly text: string) {}

  parseDocument(): unknown {
    this.skipWhitespace();
    const value = this.parseValue(0);
    this.skipWhitespace();
    if (this.pos !== this.text.length) this.fail('unexpected text after the value');
    return value;
  }

  private fail(reason: string): never {
    throw new InvalidJsonError(reason, this.pos);
  }

  private skipWhitespace(): void {
    const text = this.text;
    let pos = this.pos;
    for (;;) {
      const c = text.charCodeAt(pos);
      if (c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09) pos++;
      else break;
    }
    this.pos = pos;
  }

  private parseValue(depth: number): unknown {
    const c = this.text.charCodeAt(this.pos);
    if (c === OPEN_BRACE) return this.parseObject(depth + 1);
    if (c === OPEN_BRACKET) return this.parseArray(depth + 1);
    if (c === QUOTE) return this.parseString();
    if (c === MINUS || isDigit(c)) return this.parseNumber();
    if (this.text.startsWith('true', this.pos)) return this.literal(4, true);
    if (this.text.startsWith('false', this.pos)) return this.literal(5, false);
    if (this.text.startsWith('null', this.pos)) return this.literal(4, null);
    return this.fail(Number.isNaN(c) ? 'unexpected end of input' : 'unexpected character');
  }

  private literal<T>(length: number, value: T): T {
    this.pos += length;
    return value;
  }

  private parseObject(depth: number): Record<string, unknown> {
    if (depth > MAX_DEPTH) this.fail('nested too deeply');
    const result: Record<string, unknown> = {};
    this.pos++; // {
    this.skipWhitespace();
    if (this.text.charCodeAt(this.pos) === CLOSE_BRACE) {
      this.pos++;
      return result;
    }
    for (;;) {
      if (this.text.charCodeAt(this.pos) !== QUOTE) this.fail('expected a property name');
      const key = this.parseString();
      this.skipWhitespace();
      if (this.text.charCodeAt(this.pos) !== COLON) this.fail("expected ':'");
      this.pos++;
      this.skipWhitespace();
      const value = this.parseValue(depth);
      if (key === '__proto__') {
        // Assignment would replace the prototype; JSON.parse defines an own property instead.
        Object.defineProperty(result, key, { value, enumerable: true, writable: true, configurable: true });
      } else {
        result[key] = value;
      }
      this.skipWhitespace();
      const c = this.text.charCodeAt(this.pos);
      this.pos++;
      if (c === COMMA) {
        this.skipWhitespace();
        continue;
      }
      if (c === CLOSE_BRACE) return result;
      this.pos--;
      this.fail("expected ',' or '}'");
    }
  }

  private parseArray(depth: number): unknown[] {
    if (depth > MAX_DEPTH) this.fail('nested too deeply');
    const result: unknown[] = [];
    this.pos++; // [
    this.skipWhitespace();
    if (this.text.charCodeAt(this.pos) === CLOSE_BRACKET) {
      this.pos++;
      return result;
    }
    for (;;) {
      result.push(this.parseValue(depth));
      this.skipWhitespace();
      const c = this.text.charCodeAt(this.pos);
      this.pos++;
      if (c === COMMA) {
        this.skipWhitespace();
        continue;
      }
      if (c === CLOSE_BRACKET) return result;
      this.pos--;
      this.fail("expected ',' or ']'");
    }
  }

  private parseString(): string {
    const text = this.text;
    const start = this.pos; // at the opening quote
    let pos = start + 1;
    let escaped = false;
    for (;;) {
      const c = text.charCodeAt(pos);
      if (c === QUOTE) break;
      if (Number.isNaN(c)) {
        this.pos = pos;
        this.fail('unterminated string');
      }
      if (c < 0x20) {
        this.pos = pos;
        this.fail('control character in string');
      }
      if (c === BACKSLASH) {
        escaped = true;
        pos += 2;
      } else {
        pos++;
      }
    }
    this.pos = pos + 1;
    if (!escaped) return text.slice(start + 1, pos);
    try {
      // The slice is a complete JSON string token; JSON.parse validates and decodes its escapes.
      return JSON.parse(text.slice(start, pos + 1)) as string;
    } catch {
      this.pos = start;
      return this.fail('invalid escape in string');
    }
  }

  private parseNumber(): JsonNumber {
    const text = this.text;
    const start = this.pos;
    let pos = start;
    if (text.charCodeAt(pos) === MINUS) pos++;
    const first = text.charCodeAt(pos);
    if (first === DIGIT_0) {
      pos++;
    } else if (isDigit(first)) {
      while (isDigit(text.charCodeAt(pos))) pos++;
    } else {
      this.pos = pos;
      this.fail('invalid number');
    }
    if (text.charCodeAt(pos) === DOT) {
      pos++;
      if (!isDigit(text.charCodeAt(pos))) {
        this.pos = pos;
        this.fail('invalid number: digit expected after the decimal point');
      }
      while (isDigit(text.charCodeAt(pos))) pos++;
    }
    const e = text.charCodeAt(pos);
    if (e === 0x65 || e === 0x45) {
      pos++;
      const sign = text.charCodeAt(pos);
      if (sign === 0x2b || sign === MINUS) pos++;
      if (!isDigit(text.charCodeAt(pos))) {
        this.pos = pos;
        this.fail('invalid number: digit expected in the exponent');
      }
      while (isDigit(text.charCodeAt(pos))) pos++;
    }
    this.pos = pos;
    return new JsonNumber(text.slice(start, pos));
  }
}

/** Parses JSON text; numbers become {@link JsonNumber}. @throws InvalidJsonError on malformed input. */
export function parseJsonLossless(text: string): unknown {
  if (typeof text !== 'string') throw new InvalidJsonError(`expected a string, got ${typeof text}`);
  return new LosslessParser(text).parseDocument();
}

/**
 * Like `JSON.stringify(value)` (no indentation), except that a {@link JsonNumber} is written as its exact
 * number text and a bigint as its digits (tonce and nonce are bigints). Non-finite numbers become `null`
 * as in JSON.stringify; `undefined`, functions and symbols are dropped from objects and written `null` in
 * arrays. @throws TypeError on a cycle or when the value itself cannot be written (e.g. `undefined`).
 */
export function stringifyJson(value: unknown): string {
  const out = write(value, new Set<object>());
  if (out === undefined) throw new TypeError(`cannot write ${typeof value} as JSON`);
  return out;
}

function write(value: unknown, ancestors: Set<object>): string | undefined {
  if (value instanceof JsonNumber) return value.text;
  if (value !== null && typeof value === 'object' && typeof (value as { toJSON?: unknown }).toJSON === 'function') {
    value = (value as { toJSON: () => unknown }).toJSON();
    if (value instanceof JsonNumber) return value.text;
  }
  switch (typeof value) {
    case 'string':
      return JSON.stringify(value);
    case 'number':
      return Number.isFinite(value) ? String(value) : 'null';
    case 'bigint':
      return value.toString();
    case 'boolean':
      return value ? 'true' : 'false';
    case 'undefined':
    case 'function':
    case 'symbol':
      return undefined;
  }
  if (value === null) return 'null';
  const object = value as object;
  if (ancestors.has(object)) throw new TypeError('cannot write a cyclic structure as JSON');
  ancestors.add(object);
  try {
    if (Array.isArray(object)) {
      return `[${object.map((item: unknown) => write(item, ancestors) ?? 'null').join(',')}]`;
    }
    const parts: string[] = [];
    for (const key of Object.keys(object)) {
      const item = write((object as Record<string, unknown>)[key], ancestors);
      if (item !== undefined) parts.push(`${JSON.stringify(key)}:${item}`);
    }
    return `{${parts.join(',')}}`;
  } finally {
    ancestors.delete(object);
  }
}
