import { describe, expect, it } from '@jest/globals';
import type { OrderReply } from '#venue-api';
import {
  backoffMs,
  newOrder,
  type OrderEffect,
  type OrderEvent,
  type OrderPolicy,
  type OrderState,
  orderTransition,
} from './order-machine.js';

const policy: OrderPolicy = {
  sessionId: 's-1',
  replyTimeoutMs: 2_000,
  redeliveryGraceMs: 300,
  checkInitialMs: 1_000,
  checkMaxMs: 8_000,
  horizonMs: 60_000,
  unsubscribeTimeoutMs: 2_000,
};

/** Feeds events in order at the given times; returns the last state and every effect. */
function run(events: ReadonlyArray<[number, OrderEvent]>, from: OrderState = newOrder('o-1', 0)) {
  let state = from;
  const effects: OrderEffect[] = [];
  for (const [now, event] of events) {
    const next = orderTransition(state, event, { now, policy });
    state = next.state;
    effects.push(...next.effects);
  }
  return { state, effects };
}

const reply = (
  orderStatus: OrderReply['orderStatus'],
  extra: Partial<OrderReply> = {},
): Extract<OrderEvent, { type: 'reply' }> => ({
  type: 'reply',
  reply: { messageType: 'order', clientRequestId: 'o-1', orderStatus, ...extra },
  connection: 1,
});
const published = (effects: OrderEffect[]) =>
  effects.flatMap((e) => (e.type === 'publish' ? [`${e.outcome.status}/${e.outcome.source}`] : []));
const armed = (effects: OrderEffect[]) => effects.flatMap((e) => (e.type === 'arm' ? [`${e.timer}:${e.ms}`] : []));
const record = (orderStatus: 'PENDING' | 'SUCCESS' | 'FAILED' | 'INDETERMINATE') => ({
  timestamp: 1,
  transactionId: 't-1',
  orderStatus,
  subscriptionStatus: 'SUBSCRIBED' as const,
  sessionId: 's-1',
  code: '',
  message: '',
});

describe('order transition', () => {
  it('fills what a minimal reply leaves out (quote, side) from what it knows of the order, never overriding the venue', () => {
    const known = newOrder('o-1', 0, { quoteId: 'q-known', side: 'SELL' });
    const { effects } = run(
      [
        [0, { type: 'sent', connection: 1 }],
        [10, reply('PENDING')],
        [20, reply('SUCCESS', { quoteId: 'q-venue' })],
      ],
      known,
    );
    const outcomes = effects.flatMap((e) => (e.type === 'publish' ? [e.outcome] : []));
    expect(outcomes.map((o) => [o.status, o.quoteId, o.side])).toEqual([
      ['PENDING', 'q-known', 'SELL'],
      ['SUCCESS', 'q-venue', 'SELL'],
    ]);
  });

  it('sent → awaiting its reply; a final reply publishes and stops the venue delivery', () => {
    const { state, effects } = run([
      [0, { type: 'sent', connection: 1 }],
      [10, reply('PENDING')],
      [40, reply('SUCCESS', { subscriptionStatus: 'SUBSCRIBED' })],
      [50, { type: 'unsubscribed' }],
    ]);
    expect(published(effects)).toEqual(['PENDING/reply', 'SUCCESS/reply']);
    expect(effects).toContainEqual({ type: 'latency', phase: 'first', ms: 10 });
    expect(effects).toContainEqual({ type: 'latency', phase: 'final', ms: 40 });
    expect(effects.filter((e) => e.type === 'firstAnswer')).toEqual([{ type: 'firstAnswer', code: '' }]);
    expect(effects.filter((e) => e.type === 'orderUnsubscribe')).toHaveLength(1);
    expect(state.phase).toBe('done');
    expect(effects.at(-1)).toEqual({ type: 'finished' });
  });

  it('tells the first answer to an order it sent, with its code (the limiter paces orders by it), once', () => {
    const { effects } = run([
      [0, { type: 'sent', connection: 1 }],
      [5, reply('FAILED', { code: 'ORDER_RATE_LIMITED', subscriptionStatus: 'SUBSCRIBED' })],
      [6, reply('FAILED', { code: 'ORDER_RATE_LIMITED', subscriptionStatus: 'SUBSCRIBED' })],
    ]);
    expect(effects.filter((e) => e.type === 'firstAnswer')).toEqual([
      { type: 'firstAnswer', code: 'ORDER_RATE_LIMITED' },
    ]);
    const heard = run([[5, reply('FAILED', { code: 'ORDER_RATE_LIMITED' })]]);
    expect(heard.effects.filter((e) => e.type === 'firstAnswer')).toEqual([]);
  });

  it('a reply on a later connection is a redelivery', () => {
    const { effects } = run([
      [0, { type: 'sent', connection: 1 }],
      [5, { ...reply('FAILED', { subscriptionStatus: 'NOT_SUBSCRIBED' }), connection: 2 }],
    ]);
    expect(published(effects)).toEqual(['FAILED/redelivery']);
  });

  it('silence → UNKNOWN once, then order-state again and again with doubling, capped delays', () => {
    const { state, effects } = run([
      [0, { type: 'sent', connection: 1 }],
      [2_000, { type: 'replyTimeout' }],
      [2_300, { type: 'checkDue' }],
      [2_310, { type: 'stateRecords', records: [record('PENDING')] }],
      [3_310, { type: 'checkDue' }],
      [3_320, { type: 'stateRecords', records: [] }],
      [5_320, { type: 'checkDue' }],
      [5_330, { type: 'stateRecords', records: [] }],
    ]);
    expect(published(effects)).toEqual(['UNKNOWN/order-state']);
    expect(armed(effects)).toEqual([
      'replyTimeout:2000',
      'checkDue:300',
      'checkDue:1000',
      'checkDue:2000',
      'checkDue:4000',
    ]);
    expect(effects.filter((e) => e.type === 'queryState')).toHaveLength(3);
    expect(state.phase).toBe('reconciling');
    expect([1, 2, 3, 4, 5, 9].map((n) => backoffMs(n, policy))).toEqual([1_000, 2_000, 4_000, 8_000, 8_000, 8_000]);
  });

  it('a lookup that got no answer (venue down, throttled) is asked again soon and does not grow the backoff', () => {
    // Lookups failing through a venue outage doubled the delay as if the venue had answered: once it was back, the
    // next check could be the whole cap away (300 s in production), the order UNKNOWN all that time.
    const events: Array<[number, OrderEvent]> = [
      [0, { type: 'sent', connection: 1 }],
      [2_000, { type: 'replyTimeout' }],
    ];
    let now = 2_300;
    for (let i = 0; i < 6; i += 1) {
      events.push([now, { type: 'checkDue' }], [now + 10, { type: 'stateFailed' }]);
      now += 1_010;
    }
    events.push([now, { type: 'checkDue' }], [now + 10, { type: 'stateRecords', records: [] }]);
    const { state, effects } = run(events);
    expect(published(effects)).toEqual(['UNKNOWN/order-state']);
    expect(armed(effects)).toEqual([
      'replyTimeout:2000',
      'checkDue:300',
      ...Array.from({ length: 6 }, () => 'checkDue:1000'), // each failed lookup: again after the initial delay
      'checkDue:1000', // the first answer: the backoff starts from its beginning
    ]);
    expect(state.checks).toBe(1);
  });

  it('UNKNOWN is resolved by a later reply or by the order-state endpoint', () => {
    const unknown = run([
      [0, { type: 'reconcile' }],
      [300, { type: 'checkDue' }],
      [310, { type: 'stateRecords', records: [] }],
    ]);
    expect(published(unknown.effects)).toEqual(['UNKNOWN/order-state']);
    const byReply = run([[900, { ...reply('SUCCESS'), connection: undefined }]], unknown.state);
    expect(published(byReply.effects)).toEqual(['SUCCESS/redelivery']);
    const byState = run(
      [
        [1_310, { type: 'checkDue' }],
        [1_320, { type: 'stateRecords', records: [record('PENDING'), record('FAILED')] }],
      ],
      unknown.state,
    );
    expect(published(byState.effects)).toEqual(['FAILED/order-state']);
    expect(byState.state.phase).toBe('unsubscribing');
  });

  it('order-state records of another order reusing the id (§4.10) never fail ours', () => {
    const unknown = run([
      [0, { type: 'reconcile' }],
      [300, { type: 'checkDue' }],
      [310, { type: 'stateRecords', records: [] }],
    ]).state;
    const other = { ...record('FAILED'), transactionId: 't-other', sessionId: 's-other' };
    const ours = run([[1_320, { type: 'stateRecords', records: [other, record('PENDING')] }]], {
      ...unknown,
      checking: true,
    });
    expect(published(ours.effects)).toEqual([]); // ours is PENDING: unresolved, asked again
    // no session on either record, two transactions that disagree: nothing is settled
    const unbound = { ...record('SUCCESS'), sessionId: null as unknown as string };
    const ambiguous = run(
      [[1_320, { type: 'stateRecords', records: [{ ...other, sessionId: null as unknown as string }, unbound] }]],
      { ...unknown, checking: true },
    );
    expect(published(ambiguous.effects)).toEqual([]);
    expect(ambiguous.state.phase).toBe('reconciling');
  });

  it('an order-state lookup failing after the final reply leaves the unsubscribe timer alone: the order still finishes', () => {
    const unknown = run([
      [0, { type: 'reconcile' }],
      [300, { type: 'checkDue' }],
      [310, { type: 'stateRecords', records: [] }],
      [1_310, { type: 'checkDue' }], // a lookup in flight…
    ]);
    const final = run([[1_400, { ...reply('SUCCESS'), connection: undefined }]], unknown.state); // …the final arrives
    expect(final.state.phase).toBe('unsubscribing');
    const failed = run([[1_500, { type: 'stateFailed' }]], final.state); // …then the lookup fails
    expect(armed(failed.effects)).toEqual([]);
    expect(failed.state).toMatchObject({ phase: 'unsubscribing', checking: false });
    const finished = run([[3_400, { type: 'unsubscribeTimeout' }]], failed.state);
    expect(finished.state.phase).toBe('done');
    expect(finished.effects).toContainEqual({ type: 'finished' });
  });

  it('statuses only climb the lattice: no regress, no second final, a conflicting final is reported', () => {
    const { effects } = run([
      [0, { type: 'sent', connection: 1 }],
      [1, reply('SUCCESS', { subscriptionStatus: 'SUBSCRIBED' })],
      [2, reply('PENDING')],
      [3, reply('SUCCESS', { subscriptionStatus: 'SUBSCRIBED' })],
      [4, reply('FAILED', { subscriptionStatus: 'SUBSCRIBED' })],
    ]);
    expect(published(effects)).toEqual(['SUCCESS/reply']);
    expect(effects).toContainEqual({ type: 'conflict', kept: 'SUCCESS', status: 'FAILED', source: 'reply' });
    // the redelivered final still gets its delivery stopped again
    expect(effects.filter((e) => e.type === 'orderUnsubscribe').length).toBeGreaterThanOrEqual(2);
  });

  it('INDETERMINATE is published and reconciled until a final status', () => {
    const { state, effects } = run([
      [0, { type: 'sent', connection: 1 }],
      [5, reply('INDETERMINATE')],
      [1_005, { type: 'checkDue' }],
      [1_010, { type: 'stateRecords', records: [record('INDETERMINATE')] }],
    ]);
    expect(published(effects)).toEqual(['INDETERMINATE/reply']);
    expect(state.phase).toBe('reconciling');
    expect(armed(effects).at(-1)).toBe('checkDue:1000');
  });

  it('at the retention horizon the order expires instead of being asked about again', () => {
    const { state, effects } = run([
      [0, { type: 'reconcile' }],
      [60_000, { type: 'checkDue' }],
    ]);
    expect(state.phase).toBe('expired');
    expect(effects).toEqual([{ type: 'arm', timer: 'checkDue', ms: 300 }, { type: 'disarm' }, { type: 'expired' }]);
    expect(orderTransition(state, reply('SUCCESS'), { now: 60_001, policy }).effects).toEqual([]);
  });

  it('a reconcile request for an order still awaiting its reply changes nothing', () => {
    const sent = run([[0, { type: 'sent', connection: 1 }]]);
    expect(run([[10, { type: 'reconcile' }]], sent.state)).toEqual({ state: sent.state, effects: [] });
  });

  it('an order-state record contradicting the final already published is reported, never published', () => {
    const { state, effects } = run([
      [0, { type: 'reconcile' }],
      [300, { type: 'checkDue' }], // the lookup is asked…
      [310, { ...reply('SUCCESS', { subscriptionStatus: 'SUBSCRIBED' }), connection: undefined }], // …a redelivery settles it
      [320, { type: 'stateRecords', records: [record('FAILED')] }], // …then the lookup answers FAILED
    ]);
    expect(published(effects)).toEqual(['SUCCESS/redelivery']);
    expect(effects).toContainEqual({ type: 'conflict', kept: 'SUCCESS', status: 'FAILED', source: 'order-state' });
    expect(state.published).toBe('SUCCESS');
  });

  it('an order-state record agreeing with the final, or not final, is no contradiction', () => {
    const settled = run([
      [0, { type: 'reconcile' }],
      [300, { type: 'checkDue' }],
      [310, { ...reply('FAILED', { subscriptionStatus: 'SUBSCRIBED' }), connection: undefined }],
    ]).state;
    for (const status of ['FAILED', 'PENDING', 'INDETERMINATE'] as const) {
      const { effects } = run([[320, { type: 'stateRecords', records: [record(status)] }]], settled);
      expect(effects.filter((e) => e.type === 'conflict')).toEqual([]);
    }
  });
});
