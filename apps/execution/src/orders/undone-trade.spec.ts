import { describe, expect, it } from '@jest/globals';
import type { OrderRecord } from './order-record.js';
import { notItsTrade, tradeChangeOf, type TradeFacts } from './undone-trade.js';

const change_ = (value: unknown, extra: Record<string, unknown> = {}) => ({
  v: 1,
  resource: 'trade',
  key: 't-1',
  change: 'state-changed',
  version: 2,
  seenAt: 1_700_000_000_000,
  value,
  ...extra,
});
const trade = (fields: Record<string, unknown>) => ({ uuid: 't-1', clientRef: 'xabc123', ...fields });

describe('trade changes as execution reads them', () => {
  it.each(['CANCELLED', 'FAILED'])('a trade of an order moved to %s is undone', (state) => {
    expect(tradeChangeOf(change_(trade({ state }), { previous: trade({ state: 'PENDING_SETTLEMENT' }) }))).toEqual({
      kind: 'undone',
      clientRef: 'xabc123',
      trade: { state, tradeUuid: 't-1', at: 1_700_000_000_000 },
      facts: {},
    });
  });

  it('a trade first seen already cancelled is undone too (its order’s fill was booked all the same)', () => {
    expect(tradeChangeOf(change_(trade({ state: 'CANCELLED' }), { change: 'created' }))).toMatchObject({
      kind: 'undone',
    });
  });

  it.each([
    ['settled', change_(trade({ state: 'SETTLED' }))],
    ['pending settlement', change_(trade({ state: 'PENDING_SETTLEMENT' }))],
    ['a state the spec does not list', change_(trade({ state: 'REVERSED' }))],
    [
      'cancelled, but placed without a clientRequestId (an OTC trade)',
      change_(trade({ state: 'CANCELLED', clientRef: undefined })),
    ],
    ['removed', { ...change_(undefined), change: 'removed' }],
  ])('%s is not', (_what, message) => {
    expect(tradeChangeOf(message)).toEqual({ kind: 'other' });
  });

  it.each([
    ['not JSON', undefined],
    ['another resource', { ...change_(trade({ state: 'CANCELLED' })), resource: 'transfer' }],
    ['a trade without uuid', change_({ state: 'CANCELLED', clientRef: 'xabc' })],
  ])('%s is unreadable', (_what, message) => {
    expect(tradeChangeOf(message)).toMatchObject({ kind: 'unreadable' });
  });

  it('a missing seenAt reads as 0 (the time execution learns it is used instead)', () => {
    expect(tradeChangeOf(change_(trade({ state: 'FAILED' }), { seenAt: 'yesterday' }))).toMatchObject({
      trade: { at: 0 },
    });
  });

  it('keeps what tells the order’s own trade from another: reference, class, amounts, account group', () => {
    const change = tradeChangeOf(
      change_(
        trade({
          state: 'CANCELLED',
          tradeRef: 'SBX-RFS-1',
          tradeClass: 'RFS',
          tradedAmount: { amount: '0.5', currency: 'BTC' },
          settlementAmount: { amount: 'x', currency: 7 },
          accountGroup: { uuid: 'G1', name: 'main' },
        }),
      ),
    );
    expect(change).toMatchObject({
      facts: {
        tradeRef: 'SBX-RFS-1',
        tradeClass: 'RFS',
        tradedAmount: { amount: '0.5', currency: 'BTC' },
        accountGroupUuid: 'G1',
      },
    });
    expect(change.kind === 'undone' && change.facts.settlementAmount).toBe(undefined);
  });
});

describe('is the undone trade the order’s own? (a clientRef alone is no proof)', () => {
  const order = {
    accountGroup: 'g1',
    instrument: 'BTC.USD',
    fill: {
      price: '50000',
      baseCurrency: 'BTC',
      quoteCurrency: 'USD',
      baseAmount: '0.50',
      quoteAmount: '25000',
      tradeRef: 'SBX-RFS-7',
      source: 'outcome',
    },
  } as OrderRecord;
  const noRef = { ...order, fill: { ...order.fill, tradeRef: undefined } } as OrderRecord;
  const rfs: TradeFacts = {
    tradeClass: 'RFS',
    tradedAmount: { amount: '0.5', currency: 'BTC' },
    settlementAmount: { amount: '25000', currency: 'USD' },
    accountGroupUuid: 'G1',
  };

  it('its own: the same reference, or (no reference on one side) every fact agreeing', () => {
    expect(notItsTrade({ ...rfs, tradeRef: 'SBX-RFS-7' }, order)).toBeUndefined();
    expect(notItsTrade(rfs, order)).toBeUndefined();
    expect(notItsTrade({ ...rfs, tradeRef: 'SBX-RFS-9' }, noRef)).toBeUndefined();
    expect(notItsTrade({}, noRef)).toBeUndefined(); // the trade says nothing against it
  });

  it.each<[string, TradeFacts, string]>([
    ['another reference', { ...rfs, tradeRef: 'SBX-RFS-8' }, 'another trade reference'],
    ['a desk (OTC) trade', { ...rfs, tradeClass: 'OTC' }, 'a OTC trade'],
    ['other currencies', { ...rfs, tradedAmount: { amount: '1', currency: 'ETH' } }, 'other currencies'],
    ['another base amount', { ...rfs, tradedAmount: { amount: '0.7', currency: 'BTC' } }, 'another base amount'],
    ['another account group', { ...rfs, accountGroupUuid: 'g2' }, 'another account group'],
  ])('not its own: %s', (_what, facts, why) => {
    expect(notItsTrade(facts, facts.tradeRef !== undefined ? order : noRef)).toBe(why);
  });
});
