import { describe, expect, it } from '@jest/globals';
import { MAX_REQUEST_BYTES, readJsonObject, textNestsDeeperThan } from './json-payload.js';
import { parsePlaceOrder } from './execution/place-order.js';

describe('readJsonObject: a request payload bounded before it is parsed', () => {
  it('reads a JSON object, and says why anything else is not one', () => {
    expect(readJsonObject('{"a":[1,{"b":"c"}]}')).toEqual({ ok: true, value: { a: [1, { b: 'c' }] } });
    expect(readJsonObject(new TextEncoder().encode('{"a":1}'))).toEqual({ ok: true, value: { a: 1 } });
    expect(readJsonObject('nope')).toEqual({ ok: false, problem: 'payload is not JSON' });
    expect(readJsonObject('[1]')).toEqual({ ok: false, problem: 'payload must be a JSON object' });
    expect(readJsonObject('null')).toEqual({ ok: false, problem: 'payload must be a JSON object' });
  });

  it('refuses a payload over the request size unread, in bytes (not characters)', () => {
    const huge = `{"a":"${'x'.repeat(MAX_REQUEST_BYTES)}"}`;
    expect(readJsonObject(huge)).toEqual({
      ok: false,
      problem: `request is ${huge.length} bytes; at most ${MAX_REQUEST_BYTES}`,
    });
    const wide = `{"a":"${'€'.repeat(MAX_REQUEST_BYTES / 3)}"}`; // 3 bytes each
    expect(readJsonObject(wide).ok).toBe(false);
  });

  it('refuses deep nesting from the text, before JSON.parse (outside tester: 1 MB of [[[…]]] held the loop 0.7 s)', () => {
    const deep = `${'['.repeat(100_000)}${']'.repeat(100_000)}`;
    expect(readJsonObject(deep)).toEqual({ ok: false, problem: 'payload is nested deeper than 32 levels' });
    const inObject = new TextEncoder().encode(`{"x":${'{"a":'.repeat(2_000)}1${'}'.repeat(2_000)}}`);
    expect(readJsonObject(inObject)).toEqual({ ok: false, problem: 'payload is nested deeper than 32 levels' });
    // the execution app's order path reads the same way
    expect(parsePlaceOrder(deep)).toEqual({
      ok: false,
      problems: [{ field: '(payload)', problem: 'payload is nested deeper than 32 levels' }],
    });
  });

  it('counts brackets outside strings only (escaped quotes included)', () => {
    const brackets = '['.repeat(50);
    expect(textNestsDeeperThan(`{"a":"${brackets}"}`, 2)).toBe(false);
    expect(textNestsDeeperThan(`{"a":"\\"${brackets}"}`, 2)).toBe(false);
    expect(textNestsDeeperThan(`{"a":"\\\\","b":[[[1]]]}`, 3)).toBe(true);
    expect(textNestsDeeperThan('{"a":[[1]],"b":[[2]]}', 3)).toBe(false);
    const padded = `{"a":"${' '.repeat(5_000)}${brackets}","b":[1]}`; // long enough to be scanned
    expect(readJsonObject(padded).ok).toBe(true);
  });
});
