import { describe, expect, it } from '@jest/globals';
import type { OrderContradiction } from '#contracts';
import type { Trade } from '#venue-api';
import { contradictionStep, reviewVerdict, type ReviewEnv } from './contradicted-failure.js';
import type { OrderRecord } from './order-record.js';

const T0 = 1_800_000_000_000;

function record(fields: Partial<OrderRecord> = {}): OrderRecord {
  return {
    v: 1,
    orderId: 'o1',
    clientRequestId: 'xabc1',
    idempotencyKey: 'k1',
    payloadHash: 'h',
    strategyId: 'alpha',
    accountGroup: 'g1',
    side: 'BUY',
    instrument: 'BTC.USD',
    quoteId: 'q1',
    quote: { quoteExpiresAt: T0 + 600_000, price: '50000', quantity: '0.01', quoteAmount: '500' },
    state: 'FAILED',
    status: 'FAILED',
    code: 'EXECUTION_REJECTED',
    evidence: 'reply',
    acceptedAt: T0,
    updatedAt: T0,
    owner: 'exec-a',
    eventSeq: 4,
    ...fields,
  };
}

const contradiction: OrderContradiction = {
  v: 1,
  clientRequestId: 'xabc1',
  kept: 'FAILED',
  status: 'SUCCESS',
  source: 'reply',
  at: T0 + 1_000,
};

const env = (fields: Partial<ReviewEnv> = {}): ReviewEnv => ({
  now: T0 + 2_000,
  deliveries: 1,
  horizonMs: 24 * 3_600_000,
  initialMs: 2_000,
  maxMs: 60_000,
  ...fields,
});

const trade = (fields: Partial<Trade> = {}): Trade =>
  ({
    uuid: 't1',
    clientRef: 'xabc1',
    tradeRef: 'TR1',
    executedPrice: '[BTC/USD] 50010',
    tradedAmount: { amount: '0.01', currency: 'BTC' },
    settlementAmount: { amount: '500.1', currency: 'USD' },
    state: 'CONFIRMED',
    ...fields,
  }) as Trade;

describe('contradictionStep: what a contradiction of a final outcome asks of execution', () => {
  it('a FAILED order, closed, contradicted by SUCCESS: read the trade list', () => {
    expect(contradictionStep(record(), false, contradiction)).toEqual({ kind: 'read-trades' });
  });

  it('an order not final, or final but still open here (its actor finishing): wait and ask again', () => {
    expect(contradictionStep(record({ state: 'PENDING', status: 'PENDING' }), false, contradiction).kind).toBe('wait');
    expect(contradictionStep(record(), true, contradiction).kind).toBe('wait');
  });

  it('no order of this app: not ours', () => {
    expect(contradictionStep(undefined, false, contradiction)).toEqual({ kind: 'not-ours' });
  });

  it('a SUCCESS contradicted by FAILED: the SUCCESS stands, nothing repaired', () => {
    const success = record({ state: 'SUCCESS', status: 'SUCCESS' });
    expect(contradictionStep(success, false, { ...contradiction, kept: 'SUCCESS', status: 'FAILED' })).toEqual({
      kind: 'nothing',
      result: 'success-kept',
    });
  });

  it('a correction recorded before (a redelivery after a crash): only its event is made sure of, never booked again', () => {
    const corrected = record({ correction: { verdict: 'EXECUTED_AFTER_FAILED', source: 'reply', at: T0 } });
    expect(contradictionStep(corrected, false, contradiction)).toEqual({ kind: 'announce' });
  });
});

describe('reviewVerdict: the trade list decides whether a contradicted FAILED executed', () => {
  it('its trade is listed: EXECUTED_AFTER_FAILED with the trade’s fill', () => {
    const verdict = reviewVerdict(record(), contradiction, [trade()], env());
    expect(verdict).toEqual({
      kind: 'corrected',
      correction: {
        verdict: 'EXECUTED_AFTER_FAILED',
        source: 'reply',
        at: T0 + 2_000,
        tradeUuid: 't1',
        fill: expect.objectContaining({ baseCurrency: 'BTC', baseAmount: '0.01', source: 'trade-list' }),
      },
    });
  });

  it('another order’s trade (other clientRef) is no evidence: asked again with the doubling backoff', () => {
    expect(reviewVerdict(record(), contradiction, [trade({ clientRef: 'xother' })], env())).toEqual({
      kind: 'ask-again',
      delayMs: 2_000,
    });
    expect(reviewVerdict(record(), contradiction, [], env({ deliveries: 3 }))).toEqual({
      kind: 'ask-again',
      delayMs: 8_000,
    });
    expect(reviewVerdict(record(), contradiction, [], env({ deliveries: 30 }))).toEqual({
      kind: 'ask-again',
      delayMs: 60_000,
    });
  });

  it('the trade list unreadable: never a conclusion, asked again (also past the horizon)', () => {
    expect(reviewVerdict(record(), contradiction, 'unreachable', env()).kind).toBe('ask-again');
    expect(reviewVerdict(record(), contradiction, 'unreachable', env({ now: T0 + 48 * 3_600_000 })).kind).toBe(
      'ask-again',
    );
  });

  it('no trade by the horizon: FAILED_STANDS', () => {
    const verdict = reviewVerdict(record(), contradiction, [], env({ now: contradiction.at + 24 * 3_600_000 }));
    expect(verdict).toEqual({
      kind: 'corrected',
      correction: { verdict: 'FAILED_STANDS', source: 'reply', at: contradiction.at + 24 * 3_600_000 },
    });
  });

  it('its trade was undone by the venue (CANCELLED): nothing stands booked, FAILED_STANDS at once', () => {
    const verdict = reviewVerdict(record(), contradiction, [trade({ state: 'CANCELLED' })], env());
    expect(verdict).toMatchObject({ kind: 'corrected', correction: { verdict: 'FAILED_STANDS' } });
  });

  it('a trade whose amounts cannot be read: the quote’s figures are booked', () => {
    const bare = trade({ executedPrice: 'n/a', tradedAmount: undefined, settlementAmount: undefined });
    const verdict = reviewVerdict(record(), contradiction, [bare], env());
    expect(verdict).toMatchObject({
      kind: 'corrected',
      correction: { verdict: 'EXECUTED_AFTER_FAILED', fill: { baseAmount: '0.01', source: 'quote' } },
    });
  });
});
