import { describe, it, expect } from '@jest/globals';
import { Decimal, Rounding, InvalidDecimalError } from './decimal.js';
import { InvalidJsonError } from './invalid-json-error.js';
import { JsonNumber } from './json-number.js';
import { parseJsonLossless, stringifyJson } from './lossless-json.js';

/** Replaces every JsonNumber by Number(text) so a parse can be compared with JSON.parse. */
function asNumbers(value: unknown): unknown {
  if (value instanceof JsonNumber) return Number(value.text);
  if (Array.isArray(value)) return value.map(asNumbers);
  if (value !== null && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) {
      Object.defineProperty(out, k, { value: asNumbers(v), enumerable: true, writable: true, configurable: true });
    }
    return out;
  }
  return value;
}

describe('JsonNumber', () => {
  it('keeps its text and converts exactly', () => {
    const n = new JsonNumber('0.1000000000000000055511151231257827');
    expect(n.text).toBe('0.1000000000000000055511151231257827');
    expect(n.toDecimal().toFixed()).toBe('0.1000000000000000055511151231257827');
    expect(String(n)).toBe(n.text);
  });
  it.each(['', '01', '+1', '.5', '1.', '1e', 'NaN', 'Infinity', '0x10', ' 1', '1,5'])('rejects %j', (text) => {
    expect(() => new JsonNumber(text)).toThrow(InvalidJsonError);
  });
  it('converts safe integers and refuses others', () => {
    expect(new JsonNumber('1700000000000').toSafeInteger()).toBe(1700000000000);
    expect(new JsonNumber('-5').toSafeInteger()).toBe(-5);
    expect(new JsonNumber('1e3').toSafeInteger()).toBe(1000);
    expect(new JsonNumber('2.0').toSafeInteger()).toBe(2);
    expect(() => new JsonNumber('1.5').toSafeInteger('total')).toThrow('total is not an integer: 1.5');
    expect(() => new JsonNumber('9007199254740993').toSafeInteger()).toThrow(RangeError);
    expect(() => new JsonNumber('1e400').toSafeInteger()).toThrow(RangeError);
    expect(() => new JsonNumber('1e5000').toSafeInteger()).toThrow(InvalidDecimalError);
  });
  it('is written with the scale asked for (fiat withdrawal amount, §4.9)', () => {
    expect(JsonNumber.fromDecimal(new Decimal('100.5'), 2).text).toBe('100.50');
    expect(JsonNumber.fromDecimal(new Decimal('100.555'), 2, Rounding.Down).text).toBe('100.55');
    expect(JsonNumber.fromDecimal(new Decimal('7'), 0).text).toBe('7');
    expect(JsonNumber.fromDecimal(new Decimal('1e-9'), 8).text).toBe('0.00000000');
  });
  it('writes its digits as a string under plain JSON.stringify', () => {
    expect(JSON.stringify({ a: new JsonNumber('0.10') })).toBe('{"a":"0.10"}');
  });
});

describe('parseJsonLossless', () => {
  it('keeps every digit of a money number', () => {
    const parsed = parseJsonLossless('{"amount": 0.1000000000000000055511151231257827}') as { amount: JsonNumber };
    expect(parsed.amount).toBeInstanceOf(JsonNumber);
    expect(parsed.amount.text).toBe('0.1000000000000000055511151231257827');
  });

  it('keeps scientific notation, trailing zeros and big integers as written', () => {
    const parsed = parseJsonLossless('[1e-7, 2.451E-5, 100.500, 12345678901234567890123, -0, 1E+2]') as JsonNumber[];
    expect(parsed.map((n) => n.text)).toEqual(['1e-7', '2.451E-5', '100.500', '12345678901234567890123', '-0', '1E+2']);
    expect(parsed[0]?.toDecimal().toFixed()).toBe('0.0000001');
  });

  it('parses strings, escapes, booleans, null, nesting like JSON.parse', () => {
    const text =
      ' {"a":"x\\"y\\\\z\\n\\u00e9\\ud83d\\ude00","b":[true,false,null,{}],"c":{"d":[[]],"e":""},"f":-12.5e3, "g" : "é€😀"} ';
    expect(asNumbers(parseJsonLossless(text))).toEqual(JSON.parse(text));
  });

  it('makes a realistic venue document round-trip byte for byte', () => {
    const text =
      '{"data":[{"uuid":"u1","amount":-1234.5600,"fee":0,"balanceBefore":1e-8,"balanceAfter":99999999999999999.99,' +
      '"received":1700000000123,"displayTitle":null,"settlementAmount":{"amount":1.10,"currency":"USD"}}],"total":1}';
    expect(stringifyJson(parseJsonLossless(text))).toBe(text);
  });

  it('keeps the last of duplicate keys, as JSON.parse does', () => {
    expect(asNumbers(parseJsonLossless('{"a":1,"a":2}'))).toEqual({ a: 2 });
  });

  it('does not let __proto__ change the prototype', () => {
    const parsed = parseJsonLossless('{"__proto__":{"polluted":true},"constructor":{"prototype":{"x":1}}}') as Record<
      string,
      unknown
    >;
    expect(Object.getPrototypeOf(parsed)).toBe(Object.prototype);
    expect(Object.prototype.hasOwnProperty.call(parsed, '__proto__')).toBe(true);
    expect(({} as Record<string, unknown>)['polluted']).toBeUndefined();
    expect((parsed as { polluted?: unknown }).polluted).toBeUndefined();
  });

  it.each([
    ['', 'unexpected end of input'],
    ['   ', 'unexpected end of input'],
    ['{', 'expected a property name'],
    ['{"a"}', "expected ':'"],
    ['{"a":1,}', 'expected a property name'],
    ['{"a":1 "b":2}', "expected ',' or '}'"],
    ['[1,]', 'unexpected character'],
    ['[1 2]', "expected ',' or ']'"],
    ['[1', "expected ',' or ']'"],
    ['"abc', 'unterminated string'],
    ['"a\tb"', 'control character in string'],
    ['"\\x"', 'invalid escape in string'],
    ['"\\u12"', 'invalid escape in string'],
    ['01', 'unexpected text after the value'],
    ['-', 'invalid number'],
    ['1.', 'digit expected after the decimal point'],
    ['1e+', 'digit expected in the exponent'],
    ['NaN', 'unexpected character'],
    ['Infinity', 'unexpected character'],
    ['tru', 'unexpected character'],
    ["{'a':1}", 'expected a property name'],
    ['{"a":1}x', 'unexpected text after the value'],
    ['\ufeff{}', 'unexpected character'],
  ])('rejects %j (%s)', (text, reason) => {
    expect(() => parseJsonLossless(text)).toThrow(InvalidJsonError);
    expect(() => parseJsonLossless(text)).toThrow(reason);
    expect(() => JSON.parse(text)).toThrow(SyntaxError);
  });

  it('reports where it stopped', () => {
    try {
      parseJsonLossless('{"a": x}');
      throw new Error('did not throw');
    } catch (error) {
      expect(error).toBeInstanceOf(InvalidJsonError);
      expect((error as InvalidJsonError).position).toBe(6);
    }
  });

  it('refuses hostile nesting without overflowing the stack', () => {
    expect(() => parseJsonLossless('['.repeat(100_000))).toThrow('nested too deeply');
    expect(() => parseJsonLossless(`${'['.repeat(500)}${']'.repeat(500)}`)).not.toThrow();
  });

  it('rejects a non-string at runtime', () => {
    expect(() => parseJsonLossless(undefined as unknown as string)).toThrow(InvalidJsonError);
  });

  it('parses a large list in reasonable time', () => {
    const rows = Array.from({ length: 2000 }, (_, i) => `{"uuid":"u${i}","amount":${i}.25,"ccy":"USD","ok":true}`);
    const text = `{"data":[${rows.join(',')}],"total":2000}`;
    const parsed = parseJsonLossless(text) as { data: Array<{ amount: JsonNumber }> };
    expect(parsed.data).toHaveLength(2000);
    expect(parsed.data[1999]?.amount.text).toBe('1999.25');
  });
});

describe('stringifyJson', () => {
  it('writes JsonNumber raw, bigint as digits, the rest like JSON.stringify', () => {
    const body = {
      nonce: 1700000000000000123n,
      amount: new JsonNumber('100.50'),
      ccy: 'USD',
      comment: 'quote " and \\ and \n',
      flags: [true, null, undefined, 1.5],
      skip: undefined,
      nested: { n: -0, inf: Infinity },
    };
    expect(stringifyJson(body)).toBe(
      '{"nonce":1700000000000000123,"amount":100.50,"ccy":"USD","comment":"quote \\" and \\\\ and \\n",' +
        '"flags":[true,null,null,1.5],"nested":{"n":0,"inf":null}}',
    );
  });

  it('matches JSON.stringify on plain values', () => {
    const value = { a: [1, 'b', { c: null }], d: 'é😀', e: false, f: new Date(0) };
    expect(stringifyJson(value)).toBe(JSON.stringify(value));
  });

  it('writes a Decimal as its string (its toJSON)', () => {
    expect(stringifyJson({ price: new Decimal('1e-9') })).toBe('{"price":"0.000000001"}');
  });

  it('refuses cycles and unwritable roots', () => {
    const cyclic: Record<string, unknown> = {};
    cyclic['self'] = cyclic;
    expect(() => stringifyJson(cyclic)).toThrow(TypeError);
    expect(() => stringifyJson(undefined)).toThrow(TypeError);
  });

  it('allows the same object twice when it is not a cycle', () => {
    const shared = { x: 1 };
    expect(stringifyJson([shared, shared])).toBe('[{"x":1},{"x":1}]');
  });
});
