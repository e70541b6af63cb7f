/**
 * Lossless JSON for the venue's wire. Request amounts are judged on the number's TEXT (§4.9: "a value with
 * three decimals is rejected even if the last is zero"), and money the venue writes as a JSON number must be
 * exact decimal text (spec-gaps R15), so neither direction may pass through a JavaScript `number`.
 */

/** A JSON number kept as the exact text that was sent or is to be written. */
export class JsonNumber {
  constructor(readonly text: string) {}
}

export type JsonValue = string | boolean | null | JsonNumber | JsonValue[] | { [key: string]: JsonValue };
export type JsonObject = { [key: string]: JsonValue };

export class JsonSyntaxError extends Error {}

const NUMBER = /-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/y;
const WS = /[ \t\n\r]*/y;

export function parseJson(text: string): JsonValue {
  let pos = 0;
  const skip = (): void => {
    WS.lastIndex = pos;
    WS.exec(text);
    pos = WS.lastIndex;
  };
  const fail = (what: string): never => {
    throw new JsonSyntaxError(`${what} at position ${pos}`);
  };
  const parseString = (): string => {
    // JSON.parse handles escapes correctly; find the closing quote ourselves.
    const start = pos;
    pos++;
    while (pos < text.length) {
      const c = text.charCodeAt(pos);
      if (c === 0x22) {
        pos++;
        try {
          return JSON.parse(text.slice(start, pos)) as string;
        } catch {
          return fail('bad string');
        }
      }
      if (c === 0x5c) pos += 2;
      else if (c < 0x20) fail('control character in string');
      else pos++;
    }
    return fail('unterminated string');
  };
  const parseValue = (depth: number): JsonValue => {
    if (depth > 64) fail('nesting too deep');
    skip();
    const c = text[pos];
    if (c === '{') {
      pos++;
      const obj: JsonObject = {};
      skip();
      if (text[pos] === '}') {
        pos++;
        return obj;
      }
      for (;;) {
        skip();
        if (text[pos] !== '"') fail('expected key');
        const key = parseString();
        skip();
        if (text[pos] !== ':') fail('expected colon');
        pos++;
        Object.defineProperty(obj, key, { value: parseValue(depth + 1), enumerable: true, writable: true });
        skip();
        if (text[pos] === ',') {
          pos++;
          continue;
        }
        if (text[pos] === '}') {
          pos++;
          return obj;
        }
        fail('expected , or }');
      }
    }
    if (c === '[') {
      pos++;
      const arr: JsonValue[] = [];
      skip();
      if (text[pos] === ']') {
        pos++;
        return arr;
      }
      for (;;) {
        arr.push(parseValue(depth + 1));
        skip();
        if (text[pos] === ',') {
          pos++;
          continue;
        }
        if (text[pos] === ']') {
          pos++;
          return arr;
        }
        fail('expected , or ]');
      }
    }
    if (c === '"') return parseString();
    if (text.startsWith('true', pos)) {
      pos += 4;
      return true;
    }
    if (text.startsWith('false', pos)) {
      pos += 5;
      return false;
    }
    if (text.startsWith('null', pos)) {
      pos += 4;
      return null;
    }
    NUMBER.lastIndex = pos;
    const m = NUMBER.exec(text);
    if (m === null) return fail('unexpected token');
    pos = NUMBER.lastIndex;
    return new JsonNumber(m[0]);
  };
  const value = parseValue(0);
  skip();
  if (pos !== text.length) fail('trailing characters');
  return value;
}

export function isJsonObject(v: JsonValue | undefined): v is JsonObject {
  return typeof v === 'object' && v !== null && !Array.isArray(v) && !(v instanceof JsonNumber);
}

/** Values the venue writes: plain data, `undefined` properties are omitted, JsonNumber written verbatim. */
export type WireValue =
  | string
  | number
  | boolean
  | null
  | undefined
  | JsonNumber
  | readonly WireValue[]
  | { readonly [key: string]: WireValue };

export function writeJson(value: WireValue): string {
  if (value === undefined || value === null) return 'null';
  if (value instanceof JsonNumber) return value.text;
  if (typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean') {
    return JSON.stringify(value);
  }
  if (Array.isArray(value)) return `[${value.map((v: WireValue) => writeJson(v)).join(',')}]`;
  const parts: string[] = [];
  for (const [k, v] of Object.entries(value as { readonly [key: string]: WireValue })) {
    if (v === undefined) continue;
    parts.push(`${JSON.stringify(k)}:${writeJson(v)}`);
  }
  return `{${parts.join(',')}}`;
}
