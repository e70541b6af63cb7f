import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { isFinalStatus, StreamName, type OrderOutcome } from '#contracts';
import {
  ACCOUNT,
  adminPost,
  askForStream,
  metricSum,
  metricValue,
  nextPrice,
  sendOrderCommand,
  startConnectorStack,
  storedOutcomes,
  streamRequest,
  waitFor,
  type ConnectorStack,
} from './connector-stack.js';
import { e2eDialect } from '../kit/e2e-venue.js';

/** Orders the sandbox accepted (its PENDING count) and executed (its SUCCESS count). */
async function venueOrders(stack: ConnectorStack): Promise<{ accepted: number; filled: number }> {
  const url = stack.venue.restBaseUrl;
  return {
    accepted: (await metricValue(url, 'sandbox_orders_total', { outcome: 'PENDING' })) ?? 0,
    filled: (await metricValue(url, 'sandbox_orders_total', { outcome: 'SUCCESS' })) ?? 0,
  };
}

const finals = (outcomes: OrderOutcome[]) => outcomes.filter((o) => isFinalStatus(o.status));

describe('orders through the connector: exactly one final outcome on NATS', () => {
  let stack: ConnectorStack;
  let subject: string;

  /** Renews the stream lease (as a strategy does periodically; a restarted connector starts with none). */
  async function freshQuote(): Promise<string> {
    const reply = await askForStream(stack.strategy, streamRequest(stack.venue, 'algo-1', { leaseSeconds: 600 }));
    if (!reply.ok) throw new Error(`stream refused: ${JSON.stringify(reply)}`);
    subject = reply.subject;
    const price = await nextPrice(stack.strategy, subject, (p) => p.status === 'live');
    if (price.quoteId === undefined) throw new Error('live price without quoteId');
    return price.quoteId;
  }

  async function finalOutcome(clientRequestId: string): Promise<OrderOutcome> {
    await waitFor(
      async () => finals(await storedOutcomes(stack.jsm, clientRequestId)).length > 0,
      `final outcome of ${clientRequestId}`,
      15_000,
    );
    const stored = finals(await storedOutcomes(stack.jsm, clientRequestId));
    expect(stored).toHaveLength(1);
    return stored[0] as OrderOutcome;
  }

  beforeAll(async () => {
    stack = await startConnectorStack();
  });
  afterAll(async () => {
    await stack?.stop();
  });

  it('an order command yields its outcomes on NATS, one final', async () => {
    await sendOrderCommand(
      stack,
      { clientRequestId: 'e2e-ord-1', quoteId: await freshQuote(), side: 'BUY' },
      'e2e-ord-1',
    );
    const outcome = await finalOutcome('e2e-ord-1');
    expect(outcome).toMatchObject({ v: 1, clientRequestId: 'e2e-ord-1', status: 'SUCCESS', side: 'BUY' });
    if (e2eDialect() === 'reference') expect(outcome.price).toMatch(/^\d+(\.\d+)?$/);
    // a minimal reply (alternate dialect) carries no execution fields: no price is invented; the execution
    // app reads the fill from the trade list
    else expect(outcome.price).toBeUndefined();
    const all = await storedOutcomes(stack.jsm, 'e2e-ord-1');
    expect(new Set(all.map((o) => o.status)).size).toBe(all.length);
  });

  it('an outcome the venue delivers only after a reconnect is published once', async () => {
    await adminPost(stack.venue, 'faults/ws/drop-order-outcomes', { count: 1 });
    const before = await venueOrders(stack);
    await sendOrderCommand(
      stack,
      { clientRequestId: 'e2e-ord-2', quoteId: await freshQuote(), side: 'SELL' },
      'e2e-ord-2',
    );
    await waitFor(
      async () => (await storedOutcomes(stack.jsm, 'e2e-ord-2')).some((o) => o.status === 'PENDING'),
      'PENDING of e2e-ord-2',
    );
    await waitFor(async () => (await venueOrders(stack)).filled > before.filled, 'the venue executed e2e-ord-2');
    await adminPost(stack.venue, 'faults/ws/drop');
    const outcome = await finalOutcome('e2e-ord-2');
    expect(outcome.status).toBe('SUCCESS');
    expect(outcome.source).not.toBe('reply');
  });

  it('a refused order gets one FAILED outcome with the venue code', async () => {
    await adminPost(stack.venue, 'faults/ws/reject-quotes', { count: 1, code: 'RFS100019' });
    await sendOrderCommand(
      stack,
      { clientRequestId: 'e2e-ord-3', quoteId: await freshQuote(), side: 'BUY' },
      'e2e-ord-3',
    );
    expect(await finalOutcome('e2e-ord-3')).toMatchObject({ status: 'FAILED', code: 'RFS100019' });
  });

  it('orders refused for the pace fail once each, never re-sent, and widen the order gap', async () => {
    const url = stack.connector.httpUrl;
    expect(await metricValue(url, 'connector_order_gap_seconds')).toBe(0.3);
    const sentBefore = await metricSum(stack.venue.restBaseUrl, 'sandbox_orders_total');
    await adminPost(stack.venue, 'faults/ws/reject-quotes', { count: 2, code: 'ORDER_RATE_LIMITED' });
    for (const id of ['e2e-ord-rl-1', 'e2e-ord-rl-2']) {
      await sendOrderCommand(stack, { clientRequestId: id, quoteId: await freshQuote(), side: 'BUY' }, id);
      expect(await finalOutcome(id)).toMatchObject({ status: 'FAILED', code: 'ORDER_RATE_LIMITED' });
    }
    expect(await metricValue(url, 'connector_order_rate_limited_total')).toBe(2);
    expect(await metricValue(url, 'connector_order_gap_seconds')).toBe(0.4);
    expect((await metricSum(stack.venue.restBaseUrl, 'sandbox_orders_total')) - sentBefore).toBe(2);
    await sendOrderCommand(
      stack,
      { clientRequestId: 'e2e-ord-rl-3', quoteId: await freshQuote(), side: 'BUY' },
      'e2e-ord-rl-3',
    );
    expect(await finalOutcome('e2e-ord-rl-3')).toMatchObject({ status: 'SUCCESS' });
    expect(await metricValue(url, 'connector_order_gap_seconds')).toBe(0.4); // narrows only after a run of 20
  });

  it('an invalid command is never sent and gets a FAILED INVALID_REQUEST outcome', async () => {
    const ordersBefore = await metricSum(stack.venue.restBaseUrl, 'sandbox_orders_total');
    await sendOrderCommand(stack, { clientRequestId: 'e2e-bad-1', quoteId: 'q', side: 'SIDEWAYS' }, 'e2e-bad-1');
    expect(await finalOutcome('e2e-bad-1')).toMatchObject({ status: 'FAILED', code: 'INVALID_REQUEST' });
    expect(await metricSum(stack.venue.restBaseUrl, 'sandbox_orders_total')).toBe(ordersBefore);
  });

  it('after a connector restart, a replayed command is not re-sent and no outcome is duplicated', async () => {
    const ordersBefore = await venueOrders(stack);
    const outcomesBefore = await storedOutcomes(stack.jsm, 'e2e-ord-1');
    await stack.restartConnector();
    // the execution app replays the command (a new msgId, as after the stream's duplicate window)
    await sendOrderCommand(
      stack,
      { clientRequestId: 'e2e-ord-1', quoteId: await freshQuote(), side: 'BUY' },
      'e2e-ord-1-replay',
    );
    await waitFor(
      async () =>
        (await metricValue(stack.connector.httpUrl, 'connector_order_commands_total', { result: 'duplicate' })) === 1,
      'the replay is recognised',
    );
    expect(await venueOrders(stack)).toEqual(ordersBefore);
    expect(await storedOutcomes(stack.jsm, 'e2e-ord-1')).toEqual(outcomesBefore);
    // the command consumer's lag is on /metrics, read from JetStream at scrape time: nothing left behind
    const lag = { stream: StreamName.orderCommands(ACCOUNT), consumer: 'connector' };
    expect(await metricValue(stack.connector.httpUrl, 'jetstream_consumer_pending', lag)).toBe(0);
    expect(await metricValue(stack.connector.httpUrl, 'jetstream_consumer_ack_pending', lag)).toBe(0);
  });

  it('an order in flight across a connector restart is resolved once, never re-placed', async () => {
    await adminPost(stack.venue, 'faults/ws/drop-order-outcomes', { count: 1 });
    const ordersBefore = await venueOrders(stack);
    await sendOrderCommand(
      stack,
      { clientRequestId: 'e2e-ord-4', quoteId: await freshQuote(), side: 'BUY' },
      'e2e-ord-4',
    );
    await waitFor(async () => (await venueOrders(stack)).filled > ordersBefore.filled, 'the venue executed e2e-ord-4');
    await stack.restartConnector();
    const outcome = await finalOutcome('e2e-ord-4');
    expect(outcome.status).toBe('SUCCESS');
    expect((await venueOrders(stack)).accepted).toBe(ordersBefore.accepted + 1);
  });
});
