import { describe, expect, it } from '@jest/globals';
import type { OrderOutcome } from '#contracts';
import { MetricsRegistry } from '#observability';
import type { OrderReply } from '#venue-api';
import { OutboundLimiter } from '../outbound/outbound-limiter.js';
import type { OrderStateView } from '../rest/venue-sources.js';
import { FakeChannel } from '../testing/fake-channel.js';
import { FakeClock } from '../testing/fake-clock.js';
import { captureLogger } from '../testing/test-logger.js';
import { VenueMetrics } from '../venue-metrics.js';
import { OrderGateway, OrderNotSentError } from './order-gateway.js';

function setup(states: (id: string) => Promise<OrderStateView[]> = () => Promise.resolve([])) {
  const clock = new FakeClock(0);
  const channel = new FakeChannel();
  const metrics = new VenueMetrics(new MetricsRegistry('t', { defaultMetrics: false }));
  const limiter = new OutboundLimiter({ messagesPerWindow: 30, windowMs: 1_000, orderIntervalMs: 250 }, clock, metrics);
  const lookups: string[] = [];
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
    captureLogger().logger,
    clock,
    { sessionId: 'sess-1', orderReplyTimeoutMs: 2_000, orderSendTimeoutMs: 1_000, redeliveryGraceMs: 300 },
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
  return { clock, channel, metrics, gateway, outcomes, flush, reply, lookups };
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
});
