import { describe, expect, it } from '@jest/globals';
import { JsonNumber, JsonSyntaxError, parseJson, writeJson } from './json.js';

describe('lossless JSON', () => {
  it('keeps number text exactly as sent', () => {
    const v = parseJson('{"amount":100.500,"big":12345678901234567890.123456789,"e":1.5E-7}') as Record<
      string,
      JsonNumber
    >;
    expect(v['amount']?.text).toBe('100.500');
    expect(v['big']?.text).toBe('12345678901234567890.123456789');
    expect(v['e']?.text).toBe('1.5E-7');
  });

  it('parses strings with escapes, arrays, literals, nesting', () => {
    expect(parseJson('{"a":"x\\"y\\u00e9","b":[true,false,null,{"c":[]}]}')).toEqual({
      a: 'x"yé',
      b: [true, false, null, { c: [] }],
    });
  });

  it.each(['', '{', '{"a":}', '{"a":1,}', '[1 2]', '{"a":01}', '{"a":.5}', '{"a":1} x', "{'a':1}", 'NaN'])(
    'refuses %j',
    (text) => {
      expect(() => parseJson(text)).toThrow(JsonSyntaxError);
    },
  );

  it('a "__proto__" key is plain data', () => {
    const v = parseJson('{"__proto__":{"polluted":true}}') as Record<string, unknown>;
    expect(Object.keys(v)).toEqual(['__proto__']);
    expect(({} as Record<string, unknown>)['polluted']).toBeUndefined();
  });

  it('writes JsonNumber verbatim and omits undefined properties', () => {
    expect(writeJson({ amount: new JsonNumber('32125.25'), gone: undefined, n: null, s: 'x', list: [1, 'a'] })).toBe(
      '{"amount":32125.25,"n":null,"s":"x","list":[1,"a"]}',
    );
  });
});
