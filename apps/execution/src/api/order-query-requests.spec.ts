import { describe, expect, it } from '@jest/globals';
import { readJsonObject } from '#contracts';
import { parseOrderListing, parseOrderLookup, parsePositionsQuery } from './order-query-requests.js';

/** The request as the bus responder hands it on: read within the common bounds (bus.spec: their refusals). */
const bytes = (text: string): Record<string, unknown> => {
  const read = readJsonObject(text);
  if (!read.ok) throw new Error(read.problem);
  return read.value;
};
const refused = (fields: string) => ({ ok: false, problems: [`invalid or missing: ${fields}`] });

describe('the bodies of the order queries', () => {
  it('an order is looked up by id, or by strategy and idempotency key', () => {
    expect(parseOrderLookup(bytes('{"orderId":"o-1"}'))).toEqual({ ok: true, value: { orderId: 'o-1' } });
    expect(parseOrderLookup(bytes('{"strategyId":"alpha","idempotencyKey":"k"}'))).toEqual({
      ok: true,
      value: { strategyId: 'alpha', idempotencyKey: 'k' },
    });
    for (const body of ['{}', '{"orderId":"a b"}', '{"orderId":7}'])
      expect(parseOrderLookup(bytes(body))).toEqual(refused('orderId (or strategyId with idempotencyKey)'));
    expect(parseOrderLookup(bytes('{"strategyId":"has space","idempotencyKey":"k"}'))).toEqual(
      refused('strategyId, idempotencyKey'),
    );
    // a lone surrogate (half a character, `\ud800` in JSON): exec.order.place refuses such a key, so none is stored
    expect(parseOrderLookup(bytes('{"strategyId":"alpha","idempotencyKey":"k\\ud800"}'))).toEqual(
      refused('strategyId, idempotencyKey'),
    );
  });

  it('a listing defaults to the open orders', () => {
    // outside tester: `{}` and `{"strategyId":…}` answered [] for a strategy with only final orders — the default
    expect(parseOrderListing(bytes('{}'))).toEqual({ ok: true, value: { filter: 'open' } });
    expect(parseOrderListing(bytes('{"strategyId":"alpha"}'))).toEqual({
      ok: true,
      value: { filter: 'open', strategyId: 'alpha' },
    });
    expect(parseOrderListing(bytes('{"filter":"unresolved","strategyId":"alpha"}'))).toEqual({
      ok: true,
      value: { filter: 'unresolved', strategyId: 'alpha' },
    });
    for (const filter of ['all', 'final', 'OPEN', 7]) {
      const parsed = parseOrderListing(bytes(JSON.stringify({ filter })));
      expect(parsed.ok).toBe(false);
      // the allowed values, the default, and where final orders are read
      expect(parsed.ok ? [] : parsed.problems).toEqual([
        expect.stringMatching(
          /^filter must be one of open, unresolved \(default open\); final orders .*exec\.order\.get/,
        ),
      ]);
    }
    expect(parseOrderListing(bytes('{"strategyId":7}'))).toEqual(refused('strategyId'));
  });

  it('positions need a strategy id', () => {
    expect(parsePositionsQuery(bytes('{"strategyId":"alpha"}'))).toEqual({ ok: true, value: { strategyId: 'alpha' } });
    for (const body of ['{}', '{"strategyId":"has space"}'])
      expect(parsePositionsQuery(bytes(body))).toEqual(refused('strategyId'));
  });

  it('a field a query does not know is refused, named — __proto__ and constructor too (tester t2 F6)', () => {
    const unknown = (name: string) => ({ ok: false, problems: [`unknown field "${name}"`] });
    for (const name of ['__proto__', 'constructor', 'toString', 'orderID']) {
      expect(parseOrderLookup(bytes(`{"orderId":"o-1","${name}":{"a":1}}`))).toEqual(unknown(name));
      expect(parseOrderListing(bytes(`{"${name}":{"a":1}}`))).toEqual(unknown(name));
      expect(parsePositionsQuery(bytes(`{"strategyId":"alpha","${name}":1}`))).toEqual(unknown(name));
    }
  });
});
