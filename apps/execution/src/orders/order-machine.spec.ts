import { describe, expect, it } from '@jest/globals';
import type { OrderOutcome } from '#contracts';
import type { OrderStateRecord, Trade } from '#venue-api';
import {
  initialOrderState,
  orderTransition,
  type OrderEffect,
  type OrderEnv,
  type OrderMachineEvent,
  type OrderMachineState,
} from './order-machine.js';
import { SILENT_AFTER_SEND_BY_MS, unresolvedSince, type OrderRecord } from './order-record.js';
import { riskRestoreOf } from './risk-restore.js';

const timings = {
  venueCheckAfterMs: 30_000,
  reconcileInitialMs: 1_000,
  reconcileMaxMs: 60_000,
  notExecutedGraceMs: 60_000,
  sendDeadlineMs: 10_000,
  fillLookups: 3,
};
const T0 = 1_700_000_000_000;
const env = (now = T0): OrderEnv => ({ now, timings });

function record(overrides: Partial<OrderRecord> = {}): OrderRecord {
  return {
    v: 1,
    orderId: 'o1',
    clientRequestId: 'c1',
    idempotencyKey: 'k1',
    payloadHash: 'h',
    strategyId: 's1',
    accountGroup: 'g1',
    side: 'BUY',
    instrument: 'BTC.USD',
    quoteId: 'q1',
    quote: {
      venueTimestamp: T0,
      quoteExpiresAt: T0 + 600_000,
      price: '42000.5',
      quantity: '0.5',
      quoteAmount: '21000.25',
    },
    state: 'INTENT_RECORDED',
    acceptedAt: T0,
    updatedAt: T0,
    owner: 'i1',
    eventSeq: 1,
    ...overrides,
  };
}

function outcome(status: OrderOutcome['status'], extra: Partial<OrderOutcome> = {}): OrderOutcome {
  return { v: 1, clientRequestId: 'c1', status, code: '', message: '', source: 'reply', ...extra };
}

function run(state: OrderMachineState, events: OrderMachineEvent[], now = T0) {
  const effects: OrderEffect[] = [];
  for (const event of events) {
    const next = orderTransition(state, event, env(now));
    state = next.state;
    effects.push(...next.effects);
  }
  return { state, effects };
}

const types = (effects: OrderEffect[]) => effects.map((e) => e.type);
const emitted = (effects: OrderEffect[]) =>
  effects.flatMap((e) => (e.type === 'emit' ? [`${e.event.order.state}#${e.event.seq}`] : []));

const trade = (overrides: Partial<Trade> = {}): Trade => ({
  uuid: 't1',
  tradeRef: 'TR1',
  clientRef: 'c1',
  tradeSide: 'BUY',
  state: 'PENDING_SETTLEMENT',
  executedPrice: '[BTC/USD] 42001.25',
  tradedAmount: { amount: '0.5', currency: 'BTC' },
  settlementAmount: { amount: '21000.625', currency: 'USD' },
  ...overrides,
});

const orderState = (orderStatus: OrderStateRecord['orderStatus'], code = ''): OrderStateRecord => ({
  messageType: 'orderState',
  timestamp: T0,
  transactionId: 'tx',
  clientRequestId: 'c1',
  orderStatus,
  subscriptionStatus: 'NOT_SUBSCRIBED',
  sessionId: null,
  message: '',
  code,
});

describe('order machine', () => {
  it('a new order announces its durable intent, then publishes the command once', () => {
    const { effects } = run(initialOrderState(record()), [{ type: 'start' }]);
    expect(types(effects)).toEqual(['publish-command', 'emit']);
    expect(emitted(effects)).toEqual(['INTENT_RECORDED#1']);
  });

  it('sent → PENDING → SUCCESS: persisted before each event, one final, fill from the outcome, position applied', () => {
    const { state, effects } = run(initialOrderState(record()), [
      { type: 'start' },
      { type: 'command-published' },
      { type: 'outcome', outcome: outcome('PENDING') },
      {
        type: 'outcome',
        outcome: outcome('SUCCESS', { price: '42000.5', quantity: '0.5', quoteAmount: '21000.25', tradeRef: 'TR9' }),
      },
    ]);
    expect(emitted(effects)).toEqual(['INTENT_RECORDED#1', 'SENT#2', 'PENDING#3', 'SUCCESS#4']);
    const persistIndex = effects.findIndex((e) => e.type === 'persist' && e.record.state === 'SUCCESS');
    const emitIndex = effects.findIndex((e) => e.type === 'emit' && e.event.order.state === 'SUCCESS');
    expect(persistIndex).toBeLessThan(emitIndex);
    expect(state.record.fill).toEqual({
      price: '42000.5',
      baseCurrency: 'BTC',
      quoteCurrency: 'USD',
      baseAmount: '0.5',
      quoteAmount: '21000.25',
      tradeRef: 'TR9',
      source: 'outcome',
    });
    expect(effects).toContainEqual({
      type: 'risk',
      event: {
        kind: 'filled',
        orderId: 'o1',
        baseAmount: '0.5',
        quoteAmount: '21000.25',
        price: '42000.5',
        order: { strategyId: 's1', accountGroup: 'g1', side: 'BUY', instrument: 'BTC.USD' },
      },
    });
    expect(types(effects).slice(-3)).toEqual(['risk', 'apply-position', 'close']);
    const finalEmit = effects.find((e) => e.type === 'emit' && e.event.order.final);
    expect(finalEmit).toMatchObject({ msgId: 'o1:final' });
  });

  it('nothing follows a final state, and a status never goes down the lattice', () => {
    const done = run(initialOrderState(record()), [
      { type: 'outcome', outcome: outcome('FAILED', { code: 'RFS100019' }) },
    ]);
    expect(done.state.record).toMatchObject({ state: 'FAILED', code: 'RFS100019', evidence: 'reply' });
    const after = run(done.state, [
      { type: 'outcome', outcome: outcome('SUCCESS', { price: '1', quantity: '1' }) },
      { type: 'venue-evidence', evidence: { trades: [trade()], orderState: [] } },
      { type: 'command-published' },
    ]);
    // the venue contradicting the final state is reported (counted, logged), never applied
    expect(after.effects).toEqual([
      { type: 'contradiction', kept: 'FAILED', status: 'SUCCESS', source: 'reply' },
      { type: 'contradiction', kept: 'FAILED', status: 'SUCCESS', source: 'trade-list' },
    ]);
    expect(after.state.record).toEqual(done.state.record);
    const repeated = run(done.state, [
      { type: 'outcome', outcome: outcome('FAILED', { source: 'redelivery' }) },
      { type: 'outcome', outcome: outcome('PENDING') },
      { type: 'venue-evidence', evidence: { trades: [], orderState: [] } },
    ]);
    expect(repeated.effects).toEqual([]);
    const unknown = run(initialOrderState(record({ state: 'UNKNOWN', status: 'UNKNOWN' })), [
      { type: 'outcome', outcome: outcome('PENDING') },
    ]);
    expect(unknown.effects).toEqual([]);
  });

  it('an outcome that overtakes the publish ack passes through SENT; the late ack only starts the timer', () => {
    const { state, effects } = run(initialOrderState(record()), [
      { type: 'start' },
      { type: 'outcome', outcome: outcome('PENDING') },
      { type: 'command-published' },
    ]);
    expect(emitted(effects)).toEqual(['INTENT_RECORDED#1', 'SENT#2', 'PENDING#3']);
    expect(state.record.state).toBe('PENDING');
    // the late ack still starts the reconciliation timer: no later event would (seen under load: UNKNOWN for ever)
    expect(effects.at(-1)).toEqual({ type: 'schedule', delayMs: timings.reconcileInitialMs });
  });

  it('one venue query at a time: ticks while one is in flight ask nothing more, an answer or 30 s frees the next', () => {
    const queries = (effects: OrderEffect[]) => effects.filter((e) => e.type === 'query-venue').length;
    const unknown = initialOrderState(record({ state: 'UNKNOWN', status: 'UNKNOWN', sentAt: T0 }));
    const first = run(unknown, [{ type: 'reconcile-due' }], T0 + 1_000);
    expect(queries(first.effects)).toBe(1);
    const waiting = run(first.state, [{ type: 'reconcile-due' }, { type: 'reconcile-due' }], T0 + 3_000);
    expect(queries(waiting.effects)).toBe(0);
    expect(types(waiting.effects)).toContain('schedule');
    const answered = run(
      waiting.state,
      [{ type: 'venue-evidence', evidence: { trades: [] } }, { type: 'reconcile-due' }],
      T0 + 4_000,
    );
    expect(queries(answered.effects)).toBe(1);
    const lost = run(answered.state, [{ type: 'reconcile-due' }], T0 + 4_000 + 30_000);
    expect(queries(lost.effects)).toBe(1);
  });

  it('a trade found in the trade list settles the order even when the order-state read failed', () => {
    const { state } = run(initialOrderState(record({ state: 'UNKNOWN', status: 'UNKNOWN', sentAt: T0 })), [
      { type: 'venue-evidence', evidence: { trades: [trade()], orderState: 'unreachable' } },
    ]);
    expect(state.record).toMatchObject({ state: 'SUCCESS', evidence: 'trade-list' });
  });

  it('a resumed SENT order is not published again: it is announced, read from the connector and checked at the venue', () => {
    const { effects } = run(initialOrderState(record({ state: 'SENT', sentAt: T0 })), [{ type: 'resume' }]);
    expect(types(effects)).not.toContain('publish-command');
    expect(types(effects)).toEqual(['emit', 'read-outcome', 'query-venue', 'schedule']);
  });

  it('a resumed INTENT_RECORDED order publishes its command (again: the stream and the connector keep it to once)', () => {
    const { state, effects } = run(initialOrderState(record({ state: 'INTENT_RECORDED' })), [
      { type: 'resume' },
      { type: 'command-published' },
    ]);
    expect(types(effects)).toEqual([
      'publish-command',
      'emit',
      'read-outcome',
      'query-venue',
      'schedule',
      'persist',
      'emit',
      'schedule',
    ]);
    expect(state.record.state).toBe('SENT');
    // past its sendBy (acceptance + 10 s here): not published again, only reconciled
    const late = run(initialOrderState(record({ state: 'INTENT_RECORDED', acceptedAt: T0 - 10_000 })), [
      { type: 'resume' },
    ]);
    expect(types(late.effects)).not.toContain('publish-command');
  });

  it('an order with no outcome well past its command’s sendBy counts as unresolved, from that sendBy (outside tester)', () => {
    const deadline = 10_000; // ORDER_SEND_DEADLINE_MS: sendBy = T0 + 10 s (before the quote's expiry)
    for (const state of ['INTENT_RECORDED', 'SENT'] as const) {
      expect(unresolvedSince(record({ state }), deadline, T0 + deadline + SILENT_AFTER_SEND_BY_MS)).toBeUndefined();
      expect(unresolvedSince(record({ state }), deadline, T0 + deadline + SILENT_AFTER_SEND_BY_MS + 1)).toBe(
        T0 + deadline,
      );
      // the algo's own sendBy, earlier, counts
      expect(unresolvedSince(record({ state, sendBy: T0 + 1_000 }), deadline, T0 + 40_000)).toBe(T0 + 1_000);
    }
    expect(unresolvedSince(record({ state: 'PENDING' }), deadline, T0 + 3_600_000)).toBeUndefined();
    expect(unresolvedSince(record({ state: 'UNKNOWN', unresolvedSince: T0 + 5 }), deadline, T0 + 6)).toBe(T0 + 5);
  });

  it('UNKNOWN is told to risk and resolved from the trade list (evidence named), fill from §2.4 fields', () => {
    const { state, effects } = run(initialOrderState(record({ state: 'SENT', sentAt: T0 })), [
      { type: 'outcome', outcome: outcome('UNKNOWN', { code: 'OUTCOME_UNKNOWN' }) },
      { type: 'venue-evidence', evidence: { trades: [trade()] } },
    ]);
    expect(effects).toContainEqual({ type: 'risk', event: { kind: 'unknown', orderId: 'o1' } });
    expect(state.record).toMatchObject({ state: 'SUCCESS', evidence: 'trade-list' });
    expect(state.record.fill).toMatchObject({
      price: '42001.25',
      baseAmount: '0.5',
      quoteAmount: '21000.625',
      tradedAmount: { amount: '0.5', currency: 'BTC' },
      settlementAmount: { amount: '21000.625', currency: 'USD' },
      source: 'trade-list',
    });
    expect(state.record.unresolvedSince).toBeUndefined();
  });

  it('PENDING at the venue while the quote lives is never concluded FAILED, however empty the records', () => {
    const start = initialOrderState(record({ state: 'UNKNOWN', status: 'UNKNOWN', sentAt: T0 }));
    const early = run(
      start,
      [{ type: 'venue-evidence', evidence: { trades: [], orderState: [orderState('PENDING')] } }],
      T0 + 1_000,
    );
    expect(early.state.record.state).toBe('UNKNOWN');
    const stillQuoted = run(
      start,
      [{ type: 'venue-evidence', evidence: { trades: [], orderState: [] } }],
      T0 + 600_000,
    );
    expect(stillQuoted.state.record.state).toBe('UNKNOWN');
    const known = run(
      start,
      [{ type: 'venue-evidence', evidence: { trades: [], orderState: [orderState('PENDING')] } }],
      T0 + 3_600_000,
    );
    expect(known.state.record.state).toBe('UNKNOWN');
  });

  it('not executed only with proof: quote expired, order-state and trade list both read and both silent', () => {
    const start = initialOrderState(record({ state: 'SENT', sentAt: T0 }));
    const late = T0 + 600_000 + 60_000;
    const unreachable = run(
      start,
      [{ type: 'venue-evidence', evidence: { trades: 'unreachable', orderState: [] } }],
      late,
    );
    expect(unreachable.state.record.state).toBe('SENT');
    expect(unreachable.effects).toEqual([{ type: 'schedule', delayMs: 1_000 }]);
    const tradesOnly = run(start, [{ type: 'venue-evidence', evidence: { trades: [] } }], late);
    expect(tradesOnly.state.record.state).toBe('SENT');
    const proven = run(start, [{ type: 'venue-evidence', evidence: { trades: [], orderState: [] } }], late);
    expect(proven.state.record).toMatchObject({
      state: 'FAILED',
      code: 'NOT_EXECUTED',
      evidence: 'quote-expired-unknown-to-venue',
    });
    expect(proven.effects).toContainEqual({ type: 'risk', event: { kind: 'not-executed', orderId: 'o1' } });
  });

  it('an unsettled order is asked again the moment "not executed" becomes provable, not up to a backoff later', () => {
    // Measured (hH): an order frame the venue dropped for rate stayed UNKNOWN until the first tick after the quote's
    // expiry + grace — up to RECONCILE_MAX_MS (60 s) after the proof was there to be read.
    const provableAt = T0 + 600_000 + 60_000;
    const unknown = { ...initialOrderState(record({ state: 'UNKNOWN', status: 'UNKNOWN', sentAt: T0 })), ticks: 10 };
    const before = run(unknown, [{ type: 'reconcile-due' }], provableAt - 20_000);
    expect(before.effects.flatMap((e) => (e.type === 'schedule' ? [e.delayMs] : []))).toEqual([20_000]);
    const after = run(unknown, [{ type: 'reconcile-due' }], provableAt + 1);
    expect(after.effects.flatMap((e) => (e.type === 'schedule' ? [e.delayMs] : []))).toEqual([60_000]);
    expect(after.effects).toContainEqual({ type: 'query-venue', orderState: true, trades: true });
    const unreadable = record({ state: 'UNKNOWN', status: 'UNKNOWN', sentAt: T0 });
    const noExpiry = {
      ...unknown,
      record: { ...unreadable, quote: { ...unreadable.quote, quoteExpiresAt: Number.NaN } },
    };
    const blind = run(noExpiry, [{ type: 'reconcile-due' }], provableAt - 20_000);
    expect(blind.effects.flatMap((e) => (e.type === 'schedule' ? [e.delayMs] : []))).toEqual([60_000]);
  });

  it('an order the venue showed it knew (PENDING, INDETERMINATE) is never concluded not executed when it drops out of order state', () => {
    const late = T0 + 600_000 + 60_000;
    const silent: OrderMachineEvent = { type: 'venue-evidence', evidence: { trades: [], orderState: [] } };
    const sent = initialOrderState(record({ state: 'SENT', sentAt: T0 }));
    for (const status of ['PENDING', 'INDETERMINATE'] as const) {
      const told = run(sent, [{ type: 'outcome', outcome: outcome(status) }]);
      expect(told.state.record.venueSeen).toBe(true);
      // then the connector lost sight of it (UNKNOWN), and past the order-state retention the venue lists nothing
      const lost = run(told.state, [{ type: 'outcome', outcome: outcome('UNKNOWN') }]);
      const after = run(lost.state, [silent], late + 86_400_000);
      expect(after.state.record.state).not.toBe('FAILED');
      // the trade list still settles it
      const found = run(after.state, [{ type: 'venue-evidence', evidence: { trades: [trade()] } }], late + 86_400_000);
      expect(found.state.record.state).toBe('SUCCESS');
    }
  });

  it('order-state records that disagree settle nothing; FAILED only when every record says so', () => {
    const start = initialOrderState(record({ state: 'UNKNOWN', status: 'UNKNOWN' }));
    const evidence = (...statuses: Array<'PENDING' | 'SUCCESS' | 'FAILED'>): OrderMachineEvent => ({
      type: 'venue-evidence',
      evidence: { trades: [], orderState: statuses.map((st) => orderState(st)) },
    });
    expect(run(start, [evidence('FAILED', 'SUCCESS')]).state.record.state).toBe('UNKNOWN');
    expect(run(start, [evidence('FAILED', 'PENDING')]).state.record.state).toBe('UNKNOWN');
    expect(run(start, [evidence('FAILED', 'FAILED')]).state.record.state).toBe('FAILED');
  });

  it('the order-state endpoint settles FAILED with its code; SUCCESS waits for the trade list’s figures', () => {
    const start = initialOrderState(record({ state: 'UNKNOWN', status: 'UNKNOWN' }));
    const failed = run(start, [
      { type: 'venue-evidence', evidence: { trades: [], orderState: [orderState('FAILED', 'RFS100019')] } },
    ]);
    expect(failed.state.record).toMatchObject({ state: 'FAILED', code: 'RFS100019', evidence: 'order-state' });
    const filled = run(start, [
      { type: 'venue-evidence', evidence: { trades: [], orderState: [orderState('SUCCESS')] } },
      { type: 'venue-evidence', evidence: { trades: [trade()] } },
    ]);
    expect(filled.state.record).toMatchObject({ state: 'SUCCESS', evidence: 'order-state' });
    expect(filled.state.record.fill?.source).toBe('trade-list');
  });

  it('a SUCCESS without figures reads the trade list, and falls back to the quote after the lookups', () => {
    const start = initialOrderState(record({ state: 'PENDING', status: 'PENDING' }));
    const waiting = run(start, [{ type: 'outcome', outcome: outcome('SUCCESS') }]);
    expect(waiting.state.record.state).toBe('PENDING');
    expect(types(waiting.effects)).toEqual(['query-venue']);
    const fallback = run(
      waiting.state,
      [1, 2, 3].map(() => ({ type: 'venue-evidence', evidence: { trades: [] } }) as const),
    );
    expect(fallback.state.record).toMatchObject({ state: 'SUCCESS', evidence: 'reply' });
    // while the figures are looked up, the order is decided SUCCESS: a FAILED then contradicts it
    const contradicted = run(waiting.state, [
      { type: 'outcome', outcome: outcome('FAILED', { source: 'order-state' }) },
    ]);
    expect(contradicted.effects).toEqual([
      { type: 'contradiction', kept: 'SUCCESS', status: 'FAILED', source: 'order-state' },
    ]);
    expect(contradicted.state).toEqual(waiting.state);
    expect(fallback.state.record.fill).toMatchObject({ price: '42000.5', baseAmount: '0.5', source: 'quote' });
  });

  it('a resumed final order redoes its final effects (deduplicated downstream), a fenced one does nothing', () => {
    const final = record({
      state: 'SUCCESS',
      status: 'SUCCESS',
      fill: {
        price: '1',
        baseCurrency: 'BTC',
        quoteCurrency: 'USD',
        baseAmount: '1',
        quoteAmount: '1',
        source: 'outcome',
      },
    });
    const { effects } = run(initialOrderState(final), [{ type: 'resume' }]);
    expect(types(effects)).toEqual(['emit', 'risk', 'apply-position', 'close']);
    // risk restored at start-up gets the same fill as the resumed order tells it (so it settles it once)
    const told = effects.flatMap((e) => (e.type === 'risk' ? [e.event] : []));
    const order = { strategyId: 's1', accountGroup: 'g1', side: 'BUY', instrument: 'BTC.USD' };
    expect(told).toEqual([{ kind: 'filled', orderId: 'o1', baseAmount: '1', quoteAmount: '1', price: '1', order }]);
    expect(riskRestoreOf(final)).toMatchObject({ admittedAt: T0, event: told[0] });
    expect(riskRestoreOf(record({ state: 'FAILED', status: 'FAILED' })).event).toEqual({
      kind: 'not-executed',
      orderId: 'o1',
    });
    expect(riskRestoreOf(record({ state: 'UNKNOWN' })).event).toEqual({ kind: 'unknown', orderId: 'o1' });
    expect(riskRestoreOf(record({ state: 'SENT' })).event).toBeUndefined();
    const fenced = run(initialOrderState(record()), [{ type: 'fenced' }, { type: 'start' }]);
    expect(fenced.effects).toEqual([]);
  });

  it('reconciliation ticks back off, and read the venue only when the order is unresolved or old enough', () => {
    const sent = initialOrderState(record({ state: 'SENT', sentAt: T0 }));
    const soon = run(sent, [{ type: 'reconcile-due' }], T0 + 1_000);
    expect(types(soon.effects)).toEqual(['read-outcome', 'schedule']);
    const later = run(soon.state, [{ type: 'reconcile-due' }], T0 + 31_000);
    expect(types(later.effects)).toEqual(['read-outcome', 'query-venue', 'schedule']);
    const delays = later.effects.flatMap((e) => (e.type === 'schedule' ? [e.delayMs] : []));
    expect(delays).toEqual([4_000]);
  });
});
