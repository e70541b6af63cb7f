import { describe, expect, it } from '@jest/globals';
import { peerMessageOf } from './risk-book-sync.js';
import { order } from './testing/risk-fixtures.js';

const undoneOrder = { strategyId: 's', accountGroup: 'g', side: 'BUY', instrument: 'BTC.USD' };

describe('messages between instances (risk book)', () => {
  const admitted = { v: 1, instance: 'a', kind: 'admitted', admittedAt: 1, order: order() };

  it('takes well-formed messages', () => {
    expect(peerMessageOf(admitted)).toBe(admitted);
    const filled = {
      v: 1,
      instance: 'a',
      kind: 'event',
      event: { kind: 'filled', orderId: 'o', baseAmount: '1', quoteAmount: '2', price: '2' },
    };
    expect(peerMessageOf(filled)).toBe(filled);
    expect(
      peerMessageOf({ v: 1, instance: 'a', kind: 'event', event: { kind: 'unknown', orderId: 'o' } }),
    ).toBeDefined();
    const undone = {
      v: 1,
      instance: 'a',
      kind: 'event',
      event: { kind: 'undone', orderId: 'o', baseAmount: '1', quoteAmount: '2', order: undoneOrder },
    };
    expect(peerMessageOf(undone)).toBe(undone);
  });

  it.each([
    ['not an object', 'x'],
    ['another version', { ...admitted, v: 2 }],
    ['a side that is not BUY or SELL', { ...admitted, order: { ...admitted.order, side: 'HOLD' } }],
    [
      'a number where a decimal string belongs',
      { ...admitted, order: { ...admitted.order, quote: { ...admitted.order.quote, price: 1 } } },
    ],
    ['an order without an instrument', { ...admitted, order: { ...admitted.order, instrument: undefined } }],
    ['a fill without amounts', { v: 1, instance: 'a', kind: 'event', event: { kind: 'filled', orderId: 'o' } }],
    ['an unknown event', { v: 1, instance: 'a', kind: 'event', event: { kind: 'cancelled', orderId: 'o' } }],
    [
      'an undone fill without its order',
      {
        v: 1,
        instance: 'a',
        kind: 'event',
        event: { kind: 'undone', orderId: 'o', baseAmount: '1', quoteAmount: '2' },
      },
    ],
    [
      'an undone fill of an order without a side',
      {
        v: 1,
        instance: 'a',
        kind: 'event',
        event: {
          kind: 'undone',
          orderId: 'o',
          baseAmount: '1',
          quoteAmount: '2',
          order: { ...undoneOrder, side: 'X' },
        },
      },
    ],
  ])('refuses %s', (_what, value) => {
    expect(peerMessageOf(value)).toBeUndefined();
  });
});
