import { describe, expect, it } from '@jest/globals';
import { parsePlaceOrder } from './place-order.js';

const base = { idempotencyKey: 'k1', strategyId: 'alpha', accountGroup: 'g1', side: 'BUY' };
const fields = (payload: unknown) => {
  const parsed = parsePlaceOrder(JSON.stringify(payload));
  return parsed.ok ? [] : parsed.problems.map((p) => p.field).sort();
};

describe('place request', () => {
  it('takes a quoteId, or a whole quote request', () => {
    expect(parsePlaceOrder(JSON.stringify({ ...base, quoteId: 'q1' })).ok).toBe(true);
    expect(parsePlaceOrder(JSON.stringify({ ...base, quoteId: 'q1', instrument: 'BTC.USD' })).ok).toBe(true);
    const request = {
      ...base,
      instrument: 'BTC.USD',
      quantity: '0.5',
      currency: 'USD',
      tenor: 'T',
      worstPrice: '42000.5',
    };
    expect(parsePlaceOrder(JSON.stringify(request))).toMatchObject({ ok: true, value: request });
  });

  it('refuses a lone UTF-16 surrogate in the key, account group, tenor and quote id, naming the field (it was taken, and reached the journal, a subject token and the venue as U+FFFD)', () => {
    const quoteRequest = { ...base, instrument: 'BTC.USD', quantity: '1', currency: 'BTC', tenor: 'T' };
    const rule = (field: string) =>
      `${field} must not hold a lone UTF-16 surrogate (half a character, such as \\ud800: it cannot be sent as UTF-8)`;
    const cases: [object, string, string][] = [
      [{ ...base, quoteId: 'q', idempotencyKey: 'k\ud800' }, 'idempotencyKey', rule('idempotencyKey')],
      [{ ...base, quoteId: 'q', accountGroup: 'g\udc00' }, 'accountGroup', rule('accountGroup')],
      [{ ...quoteRequest, tenor: '\ud800' }, 'tenor', rule('tenor')],
      [
        { ...base, quoteId: 'q\ud800' },
        'quoteId',
        'quoteId must be 1–512 characters without control or format characters or lone surrogates',
      ],
    ];
    for (const [payload, field, problem] of cases) {
      expect(parsePlaceOrder(JSON.stringify(payload))).toEqual({ ok: false, problems: [{ field, problem }] });
    }
    // a pair is one character (an emoji): taken in the key
    expect(parsePlaceOrder(JSON.stringify({ ...base, quoteId: 'q', idempotencyKey: 'k\ud83d\ude00' })).ok).toBe(true);
  });

  it('one spelling per size, and no blank key (outside tester): 00.5, 400 digits and a key of spaces are refused', () => {
    const quoteRequest = { ...base, instrument: 'BTC.USD', currency: 'BTC', tenor: 'T' };
    for (const quantity of ['00.5', '01', '1'.repeat(21), '1'.repeat(400), '0.123456789', '1e3'])
      expect(fields({ ...quoteRequest, quantity })).toEqual(['quantity']);
    for (const quantity of ['0.5', '10', '0.00000001', '1'.repeat(20)])
      expect(fields({ ...quoteRequest, quantity })).toEqual([]);
    expect(fields({ ...base, quoteId: 'q', idempotencyKey: '     ' })).toEqual(['idempotencyKey']);
    expect(fields({ ...base, quoteId: 'q', idempotencyKey: ' k ' })).toEqual([]);
  });

  it('worstPrice is kept in its one plain form (outside tester: 070000 was stored and shown as written)', () => {
    const plain = (worstPrice: string) => {
      const parsed = parsePlaceOrder(JSON.stringify({ ...base, quoteId: 'q', worstPrice }));
      return parsed.ok ? parsed.value.worstPrice : parsed.problems.map((p) => p.problem);
    };
    expect(plain('070000')).toBe('70000');
    expect(plain('7E+4')).toBe('70000');
    expect(plain('70000.500')).toBe('70000.5');
    expect(plain('2.45e-5')).toBe('0.0000245');
    expect(plain('42000.5')).toBe('42000.5');
    for (const worstPrice of ['-5', '0', '0e3', '.5', '5.', '1,5', '1'.repeat(65)])
      expect(fields({ ...base, quoteId: 'q', worstPrice })).toEqual(['worstPrice']);
    // short as written, a hundred digits written plainly: refused, never stored as such
    expect(plain('1e100')).toEqual(['worstPrice must be at most 64 characters written plainly']);
  });

  it('names at most 10 unknown fields and counts the rest', () => {
    const junk = Object.fromEntries(Array.from({ length: 13 }, (_, i) => [`x${i}`, i]));
    const parsed = parsePlaceOrder(JSON.stringify({ ...base, quoteId: 'q', ...junk }));
    expect(parsed.ok ? [] : parsed.problems.map((p) => p.problem)).toEqual([
      ...Array.from({ length: 10 }, () => 'unknown field'),
      'and 3 more unknown fields',
    ]);
  });

  it('an unknown field named like an Object.prototype member is refused too (security tester: `in` walked the prototype)', () => {
    const names = [
      '__proto__',
      'constructor',
      'toString',
      'valueOf',
      'hasOwnProperty',
      'isPrototypeOf',
      '__defineGetter__',
    ];
    for (const name of names) {
      const payload = `{"idempotencyKey":"k1","strategyId":"alpha","accountGroup":"g1","side":"BUY","quoteId":"q1","${name}":1}`;
      const parsed = parsePlaceOrder(payload);
      expect(parsed).toEqual({ ok: false, problems: [{ field: name, problem: 'unknown field' }] });
    }
  });

  it('sendBy is a whole number of epoch milliseconds, kept as given', () => {
    expect(parsePlaceOrder(JSON.stringify({ ...base, quoteId: 'q', sendBy: 1_700_000_000_000 }))).toMatchObject({
      ok: true,
      value: { sendBy: 1_700_000_000_000 },
    });
    for (const sendBy of ['1700000000000', 1.5, 0, -1, 2 ** 53, null, true])
      expect(fields({ ...base, quoteId: 'q', sendBy })).toEqual(['sendBy']);
  });

  it('a quoteId follows the rule the connector holds the command to (control and bidi characters refused)', () => {
    for (const quoteId of ['q\u0000', 'q\u202e', 'q'.repeat(513), ''])
      expect(fields({ ...base, quoteId })).toEqual(['quoteId']);
    expect(fields({ ...base, quoteId: 'é-q'.repeat(10) })).toEqual([]);
  });

  it('names every bad field, unknown fields included, and never echoes values', () => {
    const parsed = parsePlaceOrder(
      JSON.stringify({
        idempotencyKey: '',
        strategyId: 'a b',
        side: 'SIDEWAYS',
        quantity: '1e3',
        worstPrice: '-1',
        junk: 'x'.repeat(5_000),
      }),
    );
    expect(parsed.ok).toBe(false);
    if (parsed.ok) return;
    expect(parsed.problems.map((p) => p.field).sort()).toEqual(
      [
        'accountGroup',
        'currency',
        'idempotencyKey',
        'instrument',
        'junk',
        'quantity',
        'side',
        'strategyId',
        'tenor',
        'worstPrice',
      ].sort(),
    );
    expect(JSON.stringify(parsed.problems)).not.toContain('xxxxx');
  });

  it('refuses a quoteId with a quote request, and a currency outside the pair', () => {
    expect(
      fields({ ...base, quoteId: 'q1', quantity: '1', currency: 'BTC', tenor: 'T', instrument: 'BTC.USD' }),
    ).toEqual(['quoteId']);
    expect(fields({ ...base, instrument: 'BTC.USD', quantity: '1', currency: 'EUR', tenor: 'T' })).toEqual([
      'currency',
    ]);
    expect(fields({ ...base, instrument: 'BTC.USD', quantity: '0.123456789', currency: 'BTC', tenor: 'T' })).toEqual([
      'quantity',
    ]);
  });

  it('refuses what is not a JSON object', () => {
    expect(parsePlaceOrder('nope')).toEqual({
      ok: false,
      problems: [{ field: '(payload)', problem: 'payload is not JSON' }],
    });
    expect(parsePlaceOrder('[1]')).toMatchObject({ ok: false });
  });
});
