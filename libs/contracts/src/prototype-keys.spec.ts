import { describe, expect, it } from '@jest/globals';
import { readJsonObject } from './json-payload.js';
import { parseContract } from './validate.js';
import { RiskLimitsChange } from './execution/risk-control.js';
import { WithdrawalGetRequest } from './account/withdrawals.js';

/**
 * Keys named after `Object.prototype` members, as JSON.parse gives them (own properties): never dropped, never
 * a prototype, never read through one — refused like any other unknown name, the field named (tester t2 F3).
 */
describe('payload keys named __proto__, constructor, prototype, toString, hasOwnProperty', () => {
  const change = (limits: string) => `{"scope":"strategy","id":"t2lim2","by":"t2","reason":"x","limits":${limits}}`;
  const problems = (limits: string) => {
    const parsed = parseContract(RiskLimitsChange, change(limits));
    return parsed.ok ? [] : parsed.problems.join('; ');
  };

  it('a limit named after a prototype member is refused as an unknown limit, named', () => {
    for (const name of ['__proto__', 'hasOwnProperty', 'toString', 'constructor', 'prototype', 'valueOf']) {
      const body = `{"${name}":{"maxNotionalPerOrder":{"USD":"100"}}}`;
      expect(problems(body)).toMatch(new RegExp(`limits\\.${name} is not a limit \\(known: `));
    }
    expect(problems('{"hasOwnProperty":1}')).toMatch(/limits\.hasOwnProperty is not a limit/);
  });

  it('a currency named after a prototype member is refused as a bad currency, named', () => {
    for (const name of ['__proto__', 'toString', 'constructor', 'hasOwnProperty']) {
      const value = name === '__proto__' ? '{"USD":"1"}' : '"5"';
      expect(problems(`{"maxNotionalPerOrder":{"${name}":${value}}}`)).toMatch(
        new RegExp(`limits\\.maxNotionalPerOrder\\.${name}: a currency is`),
      );
    }
  });

  it('a valid override next to such a key is refused whole, never stored with fewer limits', () => {
    const parsed = parseContract(
      RiskLimitsChange,
      change('{"maxOrdersPerSecond":5,"__proto__":{"maxNotionalPerOrder":{"USD":"100"}}}'),
    );
    expect(parsed.ok).toBe(false);
  });

  it('a valid override parses into the same limits, with nothing inherited', () => {
    const parsed = parseContract(RiskLimitsChange, change('{"maxNotionalPerOrder":{"USD":"100"}}'));
    expect(parsed.ok).toBe(true);
    if (!parsed.ok) return;
    expect(parsed.value).toBeInstanceOf(RiskLimitsChange);
    expect(JSON.parse(JSON.stringify(parsed.value.limits))).toEqual({ maxNotionalPerOrder: { USD: '100' } });
  });

  it('a refusing contract names a top-level prototype key as an unknown field', () => {
    for (const name of ['__proto__', 'constructor', 'toString', 'prototype']) {
      const parsed = parseContract(WithdrawalGetRequest, `{"requestId":"r1","${name}":{"x":1}}`);
      expect(parsed).toEqual({ ok: false, problems: [`unknown field "${name}"`] });
    }
  });

  it('readJsonObject reads objects without a prototype: own keys only, __proto__ an ordinary key', () => {
    const read = readJsonObject('{"__proto__":{"polluted":true},"a":{"constructor":1}}');
    expect(read.ok).toBe(true);
    if (!read.ok) return;
    expect(Object.keys(read.value)).toEqual(['__proto__', 'a']);
    expect(Object.getPrototypeOf(read.value)).toBeNull();
    expect(Object.getPrototypeOf(read.value['a'])).toBeNull();
    expect((read.value as Record<string, unknown>)['polluted']).toBeUndefined();
    expect(read.value['toString']).toBeUndefined();
    expect(({} as Record<string, unknown>)['polluted']).toBeUndefined();
  });

  it('readJsonObject bounds depth and field count for every reader, not only contracts', () => {
    const wide = JSON.stringify(Object.fromEntries(Array.from({ length: 1_001 }, (_, i) => [`k${i}`, 1])));
    expect(readJsonObject(wide)).toEqual({ ok: false, problem: 'payload has more than 1000 fields' });
    // deeper than 32 but short: under the text scan's size, caught after parsing
    const deep = `${'{"a":'.repeat(40)}1${'}'.repeat(40)}`;
    expect(readJsonObject(deep)).toEqual({ ok: false, problem: 'payload is nested deeper than 32 levels' });
  });
});
