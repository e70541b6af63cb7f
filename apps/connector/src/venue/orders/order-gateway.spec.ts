import { describe, expect, it } from '@jest/globals';
import type { OrderContradiction, OrderOutcome } from '#contracts';
import { MetricsRegistry } from '#observability';
import type { OrderReply } from '#venue-api';
import { OutboundLimiter } from '../outbound/outbound-limiter.js';
import type { OrderStateView } from '../rest/venue-sources.js';
import { FakeChannel } from '../testing/fake-channel.js';
import { FakeClock } from '#testing';
import { captureLogger } from '../testing/test-logger.js';
import { VenueMetrics } from '../venue-metrics.js';
import { OrderGateway, OrderNotSentError } from './order-gateway.js';

function setup(states: (id: string) => Promise<OrderStateView[]> = () => Promise.resolve([])) {
  const clock = new FakeClock(0);
  const channel = new FakeChannel();
  const registry = new MetricsRegistry('t', { defaultMetrics: false });
  const metrics = new VenueMetrics(registry);
  const limiter = new OutboundLimiter(
    {
      messagesPerWindow: 30,
      windowMs: 1_000,
      orderIntervalMs: 250,
      orderPaceMs: 200,
      orderGap: { maxMs: 1_000, stepMs: 50, narrowAfter: 20 },
      lastOrderAt: Number.NEGATIVE_INFINITY, // no earlier life's order to space from
    },
    clock,
    metrics,
  );
  const lookups: string[] = [];
  const log = captureLogger();
  const gateway = new OrderGateway(
    channel,
    limiter,
    {
      orderState: (id) => {
        lookups.push(id);
        return states(id);
      },
    },
    metrics,
    log.logger,
    clock,
    {
      sessionId: 'sess-1',
      orderReplyTimeoutMs: 2_000,
      orderSendTimeoutMs: 1_000,
      redeliveryGraceMs: 300,
      reconcileInitialMs: 1_000,
      reconcileMaxMs: 8_000,
      reconcileHorizonMs: 60_000,
    },
  );
  const outcomes: OrderOutcome[] = [];
  gateway.outcomes$.subscribe((o) => outcomes.push(o));
  const flush = async () => {
    for (let i = 0; i < 5; i++) await new Promise((resolve) => setImmediate(resolve));
  };
  const reply = (id: string, orderStatus: OrderReply['orderStatus'], extra: Partial<OrderReply> = {}): OrderReply => ({
    messageType: 'order',
    chanId: 'c',
    timestamp: clock.now(),
    clientRequestId: id,
    transactionId: `tx-${id}`,
    quoteId: 'q-1',
    side: 'BUY',
    orderStatus,
    subscriptionStatus: 'SUBSCRIBED',
    sessionId: 'sess-1',
    code: '',
    message: '',
    ...extra,
  });
  return { clock, channel, metrics, registry, limiter, gateway, outcomes, flush, reply, lookups, lines: log.lines };
}

const order = (clientRequestId: string) => ({ clientRequestId, quoteId: 'q-1', side: 'BUY' as const });

describe('OrderGateway', () => {
  it('sends with clientRequestId and autoSubscribe, publishes PENDING then SUCCESS, then orderUnsubscribes', async () => {
    const { channel, gateway, outcomes, reply, metrics } = setup();
    channel.up();
    await gateway.submit(order('o-1'));
    expect(channel.sentOfType('order')).toEqual([
      { messageType: 'order', quoteId: 'q-1', side: 'BUY', clientRequestId: 'o-1', autoSubscribe: true },
    ]);
    channel.deliver(reply('o-1', 'PENDING'));
    channel.deliver(
      reply('o-1', 'SUCCESS', { price: '64010.5', quantity: '0.5', quoteAmount: '32005.25', tradeRef: 'T-1' }),
    );
    expect(outcomes.map((o) => [o.status, o.source])).toEqual([
      ['PENDING', 'reply'],
      ['SUCCESS', 'reply'],
    ]);
    expect(outcomes[1]).toEqual(
      expect.objectContaining({ price: '64010.5', quoteAmount: '32005.25', tradeRef: 'T-1' }),
    );
    await new Promise((resolve) => setImmediate(resolve));
    expect(channel.sentOfType('orderUnsubscribe')).toEqual([
      { messageType: 'orderUnsubscribe', clientRequestId: 'o-1' },
    ]);
    channel.deliver({
      messageType: 'orderUnsubscribe',
      chanId: 'c',
      timestamp: 1,
      clientRequestId: 'o-1',
      success: true,
    });
    expect(gateway.inFlight).toBe(0);
    const counted = (await metrics.orders.get()).values.find((v) => v.labels.status === 'SUCCESS');
    expect(counted?.labels.code).toBe('none');
  });

  it('treats an immediate rejection as final, with a bounded code label', async () => {
    const { channel, gateway, outcomes, reply, metrics } = setup();
    channel.up();
    await gateway.submit(order('o-2'));
    channel.deliver(reply('o-2', 'FAILED', { code: 'RFS100019', subscriptionStatus: 'NOT_SUBSCRIBED' }));
    expect(outcomes).toEqual([expect.objectContaining({ status: 'FAILED', code: 'RFS100019', source: 'reply' })]);
    expect(gateway.inFlight).toBe(0);
    channel.deliver(reply('o-3', 'FAILED', { code: 'SOMETHING_NEW_123' }));
    const codes = (await metrics.orders.get()).values.map((v) => v.labels.code);
    expect(codes).toEqual(expect.arrayContaining(['RFS100019', 'other']));
  });

  it('an order refused for the pace is final (not re-sent) and widens the order gap; a redelivery of it does not', async () => {
    const { channel, gateway, outcomes, reply, limiter } = setup();
    channel.up();
    await gateway.submit(order('o-rl'));
    channel.deliver(reply('o-rl', 'FAILED', { code: 'ORDER_RATE_LIMITED' }));
    channel.deliver(reply('o-rl', 'FAILED', { code: 'ORDER_RATE_LIMITED' }));
    expect(outcomes).toEqual([expect.objectContaining({ status: 'FAILED', code: 'ORDER_RATE_LIMITED' })]);
    expect(channel.sentOfType('order')).toHaveLength(1);
    expect(limiter.orderGapMs).toBe(300);
  });

  it('refuses, unsent, an order the codec cannot write (its checks run on the wire)', async () => {
    const { channel, gateway } = setup();
    channel.up();
    await expect(gateway.submit({ clientRequestId: 'o-bad', quoteId: '', side: 'BUY' })).rejects.toMatchObject({
      code: 'INVALID_ORDER',
    });
    expect(channel.sent).toEqual([]);
    expect(gateway.inFlight).toBe(0);
  });

  it('never sends one clientRequestId twice', async () => {
    const { channel, gateway } = setup();
    channel.up();
    await gateway.submit(order('o-4'));
    await gateway.submit(order('o-4'));
    expect(channel.sentOfType('order')).toHaveLength(1);
  });

  it('refuses, unsent, an order when no session opens in time', async () => {
    const { clock, channel, gateway, flush } = setup();
    const sending = gateway.submit(order('o-5'));
    await flush();
    clock.advance(1_000);
    await expect(sending).rejects.toBeInstanceOf(OrderNotSentError);
    expect(channel.sent).toEqual([]);
  });

  it('a session that drops while an order waits for its gap is waited for again within the send timeout (outside tester)', async () => {
    const { clock, channel, gateway, flush, reply } = setup();
    channel.up();
    await gateway.submit(order('o-before-drop'));
    channel.deliver(reply('o-before-drop', 'PENDING'));
    const waiting = gateway.submit(order('o-in-gap')); // behind the order gap
    await flush();
    channel.down(); // the socket closes during the gap wait
    clock.advance(250);
    await flush();
    channel.up(); // reconnected well within VENUE_ORDER_SEND_TIMEOUT_MS (1 s here)
    await flush();
    clock.advance(250);
    await waiting;
    expect(channel.sentOfType('order').map((o) => o.clientRequestId)).toEqual(['o-before-drop', 'o-in-gap']);
    // no session back within the send timeout: refused unsent
    const stranded = gateway.submit(order('o-stranded')).then(
      () => 'sent',
      (error: OrderNotSentError) => error.code,
    );
    await flush();
    channel.down();
    clock.advance(250);
    await flush();
    clock.advance(1_000);
    await flush();
    expect(await stranded).toBe('NOT_CONNECTED');
    expect(channel.sentOfType('order')).toHaveLength(2);
  });

  it('an order that never leaves (its sendBy passed while it waited) gives its turn back: the next one is paced from the order before', async () => {
    const { clock, channel, gateway, flush, reply } = setup();
    channel.up();
    await gateway.submit(order('o-a'));
    channel.deliver(reply('o-a', 'PENDING'));
    const late = gateway.submit({ ...order('o-late'), sendBy: 100 });
    await flush();
    clock.advance(250);
    await expect(late).rejects.toMatchObject({ code: 'SEND_DEADLINE_PASSED' });
    // not held until o-late's answer (it has none: it was never sent) nor the ceiling
    await gateway.submit(order('o-next'));
    expect(channel.sentOfType('order').map((o) => o.clientRequestId)).toEqual(['o-a', 'o-next']);
  });

  it("the pace survives a reconnect: the next order waits for the last one's answer, redelivered, or at most the ceiling", async () => {
    const { clock, channel, gateway, flush, reply, metrics } = setup();
    const sent = () => channel.sentOfType('order').map((o) => o.clientRequestId);
    channel.up();
    await gateway.submit(order('o-before-drop'));
    channel.down(); // its answer is lost with the connection; the venue counted the order all the same
    clock.advance(100);
    channel.up();
    const next = gateway.submit(order('o-after'));
    await flush();
    clock.advance(400);
    await flush();
    expect(sent()).toEqual(['o-before-drop']); // our gap (250) passed; the venue's reading of it is unknown
    channel.deliver(reply('o-before-drop', 'PENDING')); // redelivered on the new connection, at 500
    clock.advance(200);
    await flush();
    expect(sent()).toEqual(['o-before-drop']);
    clock.advance(1);
    await next;
    // the venue's interval (200 ms here) and a millisecond of clock resolution after the answer
    expect(sent()).toEqual(['o-before-drop', 'o-after']);
    // o-after's answer never comes: the next order goes at the ceiling (1 s after o-after left), not later
    const last = gateway.submit(order('o-last'));
    await flush();
    clock.advance(999);
    await flush();
    expect(sent()).toHaveLength(2);
    clock.advance(1);
    await last;
    expect(sent()).toEqual(['o-before-drop', 'o-after', 'o-last']);
    const waits = (await metrics.orderPaceWaitSeconds.get()).values.filter((v) => v.metricName?.endsWith('_count'));
    expect(Object.fromEntries(waits.map((v) => [v.labels.bound, v.value]))).toEqual({
      gap: 0,
      answer: 1,
      unanswered: 1,
    });
  });

  it('never sends a command past its sendBy: at once, or after waiting for the session or the order gap', async () => {
    const { clock, channel, gateway, flush, reply } = setup();
    channel.up();
    clock.advance(10_000);
    // already late when it arrives (a connector that was down, a long queue)
    await expect(gateway.submit({ ...order('o-late'), sendBy: 9_999 })).rejects.toMatchObject({
      code: 'SEND_DEADLINE_PASSED',
    });
    // in time when it arrives, late once the order gap lets it go (the previous order left just now)
    await gateway.submit({ ...order('o-first'), sendBy: 20_000 });
    channel.deliver(reply('o-first', 'PENDING'));
    const waiting = gateway.submit({ ...order('o-gap'), sendBy: 10_100 });
    await flush();
    clock.advance(250);
    await expect(waiting).rejects.toMatchObject({ code: 'SEND_DEADLINE_PASSED' });
    expect(channel.sentOfType('order').map((o) => o.clientRequestId)).toEqual(['o-first']);
    // in time: sent
    await flush();
    clock.advance(250);
    await gateway.submit({ ...order('o-ok'), sendBy: clock.now() + 1 });
    expect(channel.sentOfType('order').map((o) => o.clientRequestId)).toEqual(['o-first', 'o-ok']);
  });

  it('never sends a recalled command: recalled before it came, or while it waited for the order gap; a sent one stays sent', async () => {
    const { clock, channel, gateway, flush, reply } = setup();
    channel.up();
    expect(gateway.recall(['o-before'])).toEqual({ alreadySent: 0 });
    await expect(gateway.submit(order('o-before'))).rejects.toMatchObject({ code: 'RECALLED' });
    await gateway.submit(order('o-sent'));
    channel.deliver(reply('o-sent', 'PENDING'));
    const waiting = gateway.submit(order('o-waiting')); // behind the order gap
    await flush();
    expect(gateway.recall(['o-sent', 'o-waiting'])).toEqual({ alreadySent: 1 });
    clock.advance(250);
    await expect(waiting).rejects.toMatchObject({ code: 'RECALLED' });
    expect(channel.sentOfType('order').map((o) => o.clientRequestId)).toEqual(['o-sent']);
  });

  it('a final contradicting the one published — live or after the order finished — is counted and logged, never published', async () => {
    const { channel, gateway, outcomes, reply, metrics, lines } = setup();
    channel.up();
    await gateway.submit(order('o-c'));
    channel.deliver(reply('o-c', 'SUCCESS'));
    channel.deliver(reply('o-c', 'FAILED', { code: 'X'.repeat(500) })); // while unsubscribing
    channel.deliver({
      messageType: 'orderUnsubscribe',
      chanId: 'c',
      timestamp: 1,
      clientRequestId: 'o-c',
      success: true,
    });
    expect(gateway.inFlight).toBe(0);
    channel.deliver(reply('o-c', 'FAILED', { subscriptionStatus: 'NOT_SUBSCRIBED' })); // after it finished
    channel.deliver(reply('o-c', 'SUCCESS', { subscriptionStatus: 'NOT_SUBSCRIBED' })); // the same final again: none
    expect(outcomes.map((o) => o.status)).toEqual(['SUCCESS']);
    const counted = (await metrics.outcomeContradictions.get()).values;
    const bySource = Object.fromEntries(counted.map((v) => [v.labels.source, v.value]));
    expect(bySource).toEqual({ reply: 1, redelivery: 1, 'order-state': 0, gateway: 0 });
    const warnings = lines
      .map((line) => JSON.parse(line) as Record<string, unknown>)
      .filter((l) => l['level'] === 'warn');
    const contradictions = warnings.filter((l) => String(l['msg']).includes('contradicts'));
    expect(contradictions).toHaveLength(2);
    expect(contradictions[0]).toMatchObject({
      clientRequestId: 'o-c',
      kept: 'SUCCESS',
      status: 'FAILED',
      source: 'reply',
    });
    expect(contradictions[1]).toMatchObject({
      clientRequestId: 'o-c',
      kept: 'SUCCESS',
      status: 'FAILED',
      source: 'redelivery',
    });
    expect(JSON.stringify(contradictions)).not.toContain('XXXXXXXX');
  });

  it('a SUCCESS after a published FAILED is told to execution (contradictions$), the FAILED stands', async () => {
    const { channel, gateway, outcomes, reply } = setup();
    const told: OrderContradiction[] = [];
    gateway.contradictions$.subscribe((c) => told.push(c));
    channel.up();
    await gateway.submit(order('o-k7'));
    channel.deliver(reply('o-k7', 'FAILED', { code: 'EXECUTION_REJECTED' }));
    channel.deliver(reply('o-k7', 'SUCCESS'));
    expect(outcomes.map((o) => o.status)).toEqual(['FAILED']);
    expect(told).toEqual([
      { v: 1, clientRequestId: 'o-k7', kept: 'FAILED', status: 'SUCCESS', source: 'reply', at: expect.any(Number) },
    ]);
  });

  it('collects the outcome redelivered after a reconnect, marked as redelivery', async () => {
    const { channel, gateway, outcomes, reply } = setup();
    channel.up();
    await gateway.submit(order('o-6'));
    channel.deliver(reply('o-6', 'PENDING'));
    channel.down();
    channel.up();
    channel.deliver(reply('o-6', 'SUCCESS'));
    channel.deliver(reply('o-6', 'SUCCESS'));
    expect(outcomes.map((o) => [o.status, o.source])).toEqual([
      ['PENDING', 'reply'],
      ['SUCCESS', 'redelivery'],
    ]);
  });

  it('publishes outcomes of orders it never sent (redelivered after a restart) and unsubscribes them', async () => {
    const { channel, gateway, outcomes, reply } = setup();
    channel.up();
    channel.deliver(reply('o-old', 'SUCCESS'));
    expect(outcomes).toEqual([expect.objectContaining({ clientRequestId: 'o-old', source: 'redelivery' })]);
    await new Promise((resolve) => setImmediate(resolve));
    expect(channel.sentOfType('orderUnsubscribe')).toHaveLength(1);
    await gateway.submit(order('o-old')); // a command redelivered for it is not sent again
    expect(channel.sentOfType('order')).toEqual([]);
  });

  it('reconciles a silent order through the order-state endpoint: UNKNOWN when unresolved, never FAILED', async () => {
    const { clock, channel, gateway, outcomes, flush, reply, lookups } = setup();
    channel.up();
    await gateway.submit(order('o-7'));
    clock.advance(2_000);
    await flush();
    clock.advance(300);
    await flush();
    expect(lookups).toEqual(['o-7']);
    expect(outcomes).toEqual([expect.objectContaining({ clientRequestId: 'o-7', status: 'UNKNOWN' })]);
    channel.deliver(reply('o-7', 'SUCCESS'));
    expect(outcomes.map((o) => o.status)).toEqual(['UNKNOWN', 'SUCCESS']);
    expect(channel.sentOfType('order')).toHaveLength(1);
  });

  it('an order still reconciled here that the execution app settled is no longer looked up nor unresolved', async () => {
    const { clock, channel, gateway, outcomes, flush, lookups, registry } = setup(() => Promise.resolve([]));
    channel.up();
    await gateway.submit(order('o-elsewhere'));
    expect(gateway.settledElsewhere('o-elsewhere', 'SUCCESS')).toBe(false); // awaiting its reply: it keeps waiting
    clock.advance(2_000); // no reply within the reply timeout: reconciling
    await flush();
    const unresolved = async () =>
      (await registry.getSingleMetric('connector_orders_unresolved')?.get())?.values[0]?.value;
    expect(await unresolved()).toBe(1);
    expect(gateway.settledElsewhere('o-elsewhere', 'SUCCESS')).toBe(true);
    expect(await unresolved()).toBe(0);
    const asked = lookups.length;
    clock.advance(60_000);
    await flush();
    expect(lookups.length).toBe(asked); // no more order-state lookups
    expect(outcomes.filter((o) => o.status === 'SUCCESS')).toEqual([]); // nothing published: the venue's word only
    expect(gateway.settledElsewhere('o-unknown-here', 'FAILED')).toBe(false);
  });

  it('an order the execution app settled is orderUnsubscribed, so the venue stops redelivering it at every reconnect', async () => {
    const { channel, gateway, flush, clock } = setup(() => Promise.resolve([]));
    channel.up();
    await gateway.submit(order('o-settled-unsub'));
    clock.advance(2_000); // no reply: reconciling
    await flush();
    expect(gateway.settledElsewhere('o-settled-unsub', 'SUCCESS')).toBe(true);
    await flush();
    expect(channel.sentOfType('orderUnsubscribe').map((f) => f.clientRequestId)).toEqual(['o-settled-unsub']);
  });

  it('a late duplicate final that does not say it is unsubscribed (minimal reply) is orderUnsubscribed again', async () => {
    const { channel, gateway, reply, flush } = setup();
    channel.up();
    await gateway.submit(order('o-dup'));
    channel.deliver(reply('o-dup', 'SUCCESS'));
    channel.deliver({
      messageType: 'orderUnsubscribe',
      chanId: 'c',
      timestamp: 1,
      clientRequestId: 'o-dup',
      success: true,
    });
    await flush();
    expect(gateway.inFlight).toBe(0);
    const before = channel.sentOfType('orderUnsubscribe').length;
    const { subscriptionStatus: _omitted, ...minimal } = reply('o-dup', 'SUCCESS');
    channel.deliver(minimal as OrderReply); // redelivered after a reconnect, no subscriptionStatus
    channel.deliver(reply('o-dup', 'SUCCESS', { subscriptionStatus: 'NOT_SUBSCRIBED' })); // says it is not: none
    await flush();
    expect(channel.sentOfType('orderUnsubscribe').length).toBe(before + 1);
  });

  it('an order the venue answered PENDING, its final reply lost, that the execution app settled: ended here too', async () => {
    const { channel, gateway, flush, lookups, clock, reply } = setup(() => Promise.resolve([]));
    channel.up();
    await gateway.submit(order('o-pending-elsewhere'));
    channel.deliver(reply('o-pending-elsewhere', 'PENDING'));
    await flush();
    expect(gateway.stateOf('o-pending-elsewhere')?.phase).toBe('awaiting');
    expect(gateway.settledElsewhere('o-pending-elsewhere', 'SUCCESS')).toBe(true);
    expect(gateway.stateOf('o-pending-elsewhere')).toBeUndefined();
    clock.advance(60_000); // its reply timeout and any check would have come by now
    await flush();
    expect(lookups).toEqual([]);
  });

  it('takes a final state from the order-state endpoint', async () => {
    const record: OrderStateView = {
      timestamp: 5,
      transactionId: 'tx-8',
      orderStatus: 'SUCCESS',
      subscriptionStatus: 'SUBSCRIBED',
      sessionId: 'sess-1',
      code: '',
      message: '',
    };
    const { channel, gateway, outcomes, flush, clock } = setup(() => Promise.resolve([record]));
    channel.up();
    await gateway.submit(order('o-8'));
    clock.advance(2_000); // no reply in time
    await flush();
    clock.advance(300);
    await flush();
    expect(outcomes).toEqual([
      expect.objectContaining({
        clientRequestId: 'o-8',
        status: 'SUCCESS',
        source: 'order-state',
        transactionId: 'tx-8',
      }),
    ]);
  });

  it('publishes UNKNOWN when the order-state lookup itself fails', async () => {
    const { channel, gateway, outcomes, flush, clock } = setup(() => Promise.reject(new Error('HTTP 500')));
    channel.up();
    const done = gateway.reconcile('o-9');
    await flush();
    clock.advance(300);
    await done;
    expect(outcomes.map((o) => o.status)).toEqual(['UNKNOWN']);
  });

  it('after close, a reconciliation in progress stops: no order-state call, nothing published', async () => {
    const { clock, channel, gateway, outcomes, flush, lookups } = setup();
    channel.up();
    await gateway.submit(order('o-10'));
    clock.advance(2_000); // no reply in time: reconciliation starts, waiting for a redelivery
    await flush();
    gateway.close();
    clock.advance(300);
    await flush();
    clock.advance(10_000);
    await flush();
    expect(lookups).toEqual([]);
    expect(outcomes).toEqual([]);
  });

  it('a reconcile request for an order it is still watching (a redelivered command) publishes no UNKNOWN', async () => {
    const { clock, channel, gateway, outcomes, flush, reply, lookups } = setup();
    channel.up();
    await gateway.submit(order('o-11'));
    channel.deliver(reply('o-11', 'PENDING'));
    const done = gateway.reconcile('o-11');
    await flush();
    clock.advance(300);
    await done;
    await flush();
    channel.deliver(reply('o-11', 'SUCCESS'));
    expect(outcomes.map((o) => o.status)).toEqual(['PENDING', 'SUCCESS']);
    expect(lookups).toEqual([]);
  });

  it('correlates minimal replies (no clientRequestId, no subscriptionStatus) by quoteId, then transactionId', async () => {
    const { channel, gateway, outcomes } = setup();
    channel.up();
    await gateway.submit({ clientRequestId: 'o-20', quoteId: 'q-20', side: 'SELL' });
    channel.deliver({ messageType: 'order', quoteId: 'q-20', transactionId: 'tx-20', orderStatus: 'PENDING' });
    channel.deliver({ messageType: 'order', transactionId: 'tx-20', orderStatus: 'SUCCESS' });
    expect(outcomes.map((o) => [o.clientRequestId, o.status, o.source])).toEqual([
      ['o-20', 'PENDING', 'reply'],
      ['o-20', 'SUCCESS', 'reply'],
    ]);
    await new Promise((resolve) => setImmediate(resolve));
    // subscriptionStatus not said: we sent autoSubscribe, so delivery is stopped explicitly
    expect(channel.sentOfType('orderUnsubscribe')).toEqual([
      { messageType: 'orderUnsubscribe', clientRequestId: 'o-20' },
    ]);
    channel.deliver({ messageType: 'orderUnsubscribe', clientRequestId: 'o-20' });
    expect(gateway.inFlight).toBe(0);
  });

  it('counts a reply it cannot correlate, and publishes nothing for it', async () => {
    const { channel, gateway, outcomes, metrics } = setup();
    channel.up();
    await gateway.submit(order('o-21'));
    channel.deliver({ messageType: 'order', transactionId: 'tx-unknown', orderStatus: 'SUCCESS' });
    expect(outcomes).toEqual([]);
    expect((await metrics.uncorrelatedReplies.get()).values[0]?.value).toBe(1);
  });

  it('keeps asking the order-state endpoint, with capped backoff, until the venue says final', async () => {
    const pending: OrderStateView = {
      timestamp: 5,
      transactionId: 'tx-22',
      orderStatus: 'PENDING',
      subscriptionStatus: 'SUBSCRIBED',
      sessionId: 'sess-1',
      code: '',
      message: '',
    };
    let answers = 0;
    const { channel, gateway, outcomes, flush, clock, lookups } = setup(() =>
      Promise.resolve([{ ...pending, orderStatus: ++answers < 6 ? 'PENDING' : 'SUCCESS' }]),
    );
    channel.up();
    await gateway.submit(order('o-22'));
    const lookupTimes: number[] = [];
    for (let t = 0; t < 40_000 && lookups.length < 6; t += 100) {
      clock.advance(100);
      await flush();
      if (lookups.length > lookupTimes.length) lookupTimes.push(clock.now());
    }
    // reply timeout 2 s + redelivery grace 0.3 s, then 1, 2, 4, 8, 8 s (capped)
    expect(lookupTimes).toEqual([2_300, 3_300, 5_300, 9_300, 17_300, 25_300]);
    expect(outcomes.map((o) => [o.status, o.source])).toEqual([
      ['UNKNOWN', 'order-state'],
      ['SUCCESS', 'order-state'],
    ]);
    expect(gateway.stateOf('o-22')?.phase).toBe('unsubscribing');
  });

  it('reconciles INDETERMINATE too, and a redelivery after it settles the order', async () => {
    const { channel, gateway, outcomes, flush, clock, reply, lookups } = setup();
    channel.up();
    await gateway.submit(order('o-23'));
    channel.deliver(reply('o-23', 'INDETERMINATE'));
    clock.advance(1_000);
    await flush();
    expect(lookups).toEqual(['o-23']);
    channel.deliver(reply('o-23', 'FAILED', { code: 'RFS100019' }));
    expect(outcomes.map((o) => o.status)).toEqual(['INDETERMINATE', 'FAILED']);
  });

  it('gives up at the retention horizon (counted), yet a later reply still settles the order', async () => {
    const { channel, gateway, outcomes, flush, clock, reply, metrics } = setup();
    channel.up();
    await gateway.reconcile('o-24', { markedAt: clock.now() - 55_000 });
    for (let t = 0; t < 20_000; t += 500) {
      clock.advance(500);
      await flush();
    }
    expect(gateway.stateOf('o-24')).toBeUndefined();
    expect((await metrics.reconciliationsExpired.get()).values[0]?.value).toBe(1);
    channel.deliver(reply('o-24', 'SUCCESS'));
    expect(outcomes.map((o) => o.status)).toEqual(['UNKNOWN', 'SUCCESS']);
  });

  it('exports how many orders are unresolved and the age of the oldest, until evidence settles them', async () => {
    const { channel, gateway, flush, clock, reply, metrics } = setup();
    const read = async () => ({
      count: (await metrics.unresolvedOrders.get()).values[0]?.value,
      oldest: (await metrics.oldestUnresolvedSeconds.get()).values[0]?.value,
    });
    expect(await read()).toEqual({ count: 0, oldest: 0 });
    channel.up();
    await gateway.reconcile('o-30', { markedAt: clock.now() - 40_000 });
    await gateway.submit(order('o-31'));
    clock.advance(1_500);
    await flush();
    expect(await read()).toEqual({ count: 2, oldest: 41.5 });
    channel.deliver(reply('o-30', 'SUCCESS'));
    await flush();
    expect(await read()).toEqual({ count: 1, oldest: 1.5 });
  });

  it('drain waits for the reply of an order already sent, and stops sending new ones', async () => {
    const { channel, gateway, outcomes, reply, flush } = setup();
    channel.up();
    await gateway.submit(order('o-25'));
    let drained = false;
    const draining = gateway.drain().then(() => (drained = true));
    await flush();
    expect(drained).toBe(false);
    await expect(gateway.submit(order('o-26'))).rejects.toBeInstanceOf(OrderNotSentError);
    channel.deliver(reply('o-25', 'SUCCESS', { subscriptionStatus: 'NOT_SUBSCRIBED' }));
    await draining;
    expect(outcomes.map((o) => o.status)).toEqual(['SUCCESS']);
    expect(channel.sentOfType('order').map((o) => o.clientRequestId)).toEqual(['o-25']);
  });
});
