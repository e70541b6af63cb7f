import { describe, expect, it } from '@jest/globals';
import { tradeChangeOf } from './undone-trade.js';

const change = (value: unknown, extra: Record<string, unknown> = {}) => ({
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
    expect(tradeChangeOf(change(trade({ state }), { previous: trade({ state: 'PENDING_SETTLEMENT' }) }))).toEqual({
      kind: 'undone',
      clientRef: 'xabc123',
      trade: { state, tradeUuid: 't-1', at: 1_700_000_000_000 },
    });
  });

  it('a trade first seen already cancelled is undone too (its order’s fill was booked all the same)', () => {
    expect(tradeChangeOf(change(trade({ state: 'CANCELLED' }), { change: 'created' }))).toMatchObject({
      kind: 'undone',
    });
  });

  it.each([
    ['settled', change(trade({ state: 'SETTLED' }))],
    ['pending settlement', change(trade({ state: 'PENDING_SETTLEMENT' }))],
    ['a state the spec does not list', change(trade({ state: 'REVERSED' }))],
    [
      'cancelled, but placed without a clientRequestId (an OTC trade)',
      change(trade({ state: 'CANCELLED', clientRef: undefined })),
    ],
    ['removed', { ...change(undefined), change: 'removed' }],
  ])('%s is not', (_what, message) => {
    expect(tradeChangeOf(message)).toEqual({ kind: 'other' });
  });

  it.each([
    ['not JSON', undefined],
    ['another resource', { ...change(trade({ state: 'CANCELLED' })), resource: 'transfer' }],
    ['a trade without uuid', change({ state: 'CANCELLED', clientRef: 'xabc' })],
  ])('%s is unreadable', (_what, message) => {
    expect(tradeChangeOf(message)).toMatchObject({ kind: 'unreadable' });
  });

  it('a missing seenAt reads as 0 (the time execution learns it is used instead)', () => {
    expect(tradeChangeOf(change(trade({ state: 'FAILED' }), { seenAt: 'yesterday' }))).toMatchObject({
      trade: { at: 0 },
    });
  });
});
