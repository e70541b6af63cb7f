import { afterAll, afterEach, beforeAll, describe, expect, it } from '@jest/globals';
import type { OrderEvent } from '#contracts';
import { metricValue, liveQuotes } from '../connector/connector-stack.js';
import {
  accepted,
  adminPost,
  finalEvents,
  finals,
  place,
  startExecutionStack,
  type ExecutionStack,
} from './execution-stack.js';

interface VenueTrade {
  clientRef?: string;
}

/**
 * "Unknown is not failed, and not forever": orders placed through execution while a venue fault is on, the fault
 * lifted, then each order must end with exactly one final outcome, the one the venue's trade list tells, and none
 * may have reached the venue twice. Quotes live 10 s here, so "not executed" can be proven within a test.
 */
describe('execution: orders of unknown outcome under venue faults end once, as the trade list says', () => {
  let stack: ExecutionStack;
  let group: string;
  let keys = 0;
  const key = () => `ukey-${(keys += 1)}`;
  const venueAccepted = async () =>
    (await metricValue(stack.venue.restBaseUrl, 'sandbox_orders_total', { outcome: 'PENDING' })) ?? 0;
  const trades = async () => (await adminPost(stack.venue, 'trades', undefined, 'GET')) as VenueTrade[];

  /** Places `count` BUY orders at once, each on a live quote; returns their order ids and clientRequestIds. */
  const placeAll = async (strategyId: string, count: number) => {
    const quoteIds = await liveQuotes(stack.algo, stack.venue, 'algo-unknown', count);
    const replies = await Promise.all(
      quoteIds.map(async (quoteId) =>
        accepted(
          await place(stack.algo, { idempotencyKey: key(), strategyId, accountGroup: group, side: 'BUY', quoteId }),
        ),
      ),
    );
    return replies.map((reply) => ({ orderId: reply.orderId, clientRequestId: reply.clientRequestId }));
  };

  /** Every order: one final event; SUCCESS with one trade of its clientRequestId, FAILED with none. */
  const expectSettledAsTheVenueSays = async (
    strategyId: string,
    orders: ReadonlyArray<{ orderId: string; clientRequestId: string }>,
  ): Promise<Array<{ final: OrderEvent['order']; states: string[] }>> => {
    const all = [];
    for (const { orderId, clientRequestId } of orders) {
      const events = await finalEvents(stack.js, strategyId, orderId, 60_000, stack.instances);
      all.push({ clientRequestId, events });
    }
    const listed = await trades(); // read once every order is final: a trade books before its outcome is known
    const settled = [];
    for (const { clientRequestId, events } of all) {
      const [final, ...more] = finals(events);
      expect(more).toEqual([]);
      if (final === undefined) throw new Error(`no final event for ${clientRequestId}`);
      const itsTrades = listed.filter((trade) => trade.clientRef === clientRequestId);
      expect([final.order.state, itsTrades.length]).toEqual(
        final.order.state === 'SUCCESS' ? ['SUCCESS', 1] : ['FAILED', 0],
      );
      settled.push({ final: final.order, states: events.map((e) => e.order.state) });
    }
    return settled;
  };

  beforeAll(async () => {
    stack = await startExecutionStack({
      venue: { trading: { quoteTtlMs: 10_000 } },
      connectorEnv: { ORDER_REPLY_TIMEOUT_MS: '1500' },
      executionEnv: { QUOTE_LIFE_MS: '10000' },
    });
    group = stack.venue.seed.defaultGroupUuid;
    await stack.startInstance('unknown-1');
  });
  afterEach(async () => {
    await adminPost(stack.venue, 'faults/ws/clear');
    await adminPost(stack.venue, 'faults/rest', {}, 'DELETE');
  });
  afterAll(async () => {
    await stack?.stop();
  });

  it('an order frame dropped over the message budget: UNKNOWN, never sent again, FAILED NOT_EXECUTED once its quote expired', async () => {
    const before = await venueAccepted();
    await adminPost(stack.venue, 'faults/ws/rate-limit-frames', { messageType: 'order', count: 1 });
    const orders = await placeAll('ua', 1);
    const [settled] = await expectSettledAsTheVenueSays('ua', orders);
    expect(settled?.states).toContain('UNKNOWN');
    expect(settled?.final).toMatchObject({
      state: 'FAILED',
      code: 'NOT_EXECUTED',
      evidence: 'quote-expired-unknown-to-venue',
    });
    expect(await venueAccepted()).toBe(before); // the venue never had it, and it was never sent again
  }, 90_000);

  it('a burst: frames dropped for rate, replies lost, INDETERMINATE — each order ends once as the trade list says, none placed twice', async () => {
    const before = await venueAccepted();
    await adminPost(stack.venue, 'faults/ws/rate-limit-frames', { messageType: 'order', count: 2 });
    await adminPost(stack.venue, 'faults/ws/drop-order-outcomes', { count: 2 });
    await adminPost(stack.venue, 'faults/ws/indeterminate', { count: 1 });
    const orders = await placeAll('ub', 6);
    const settled = await expectSettledAsTheVenueSays('ub', orders);
    const failed = settled.filter((s) => s.final.state === 'FAILED');
    expect(failed.map((s) => s.final.code)).toEqual(['NOT_EXECUTED', 'NOT_EXECUTED']); // the two dropped frames
    expect(await venueAccepted()).toBe(before + 4); // the others, once each
  }, 120_000);

  it('order-state and trade list unreachable while replies are lost: UNKNOWN while it lasts, SUCCESS once each when lifted', async () => {
    await adminPost(stack.venue, 'faults/rest', { status: 503, count: 1_000_000 });
    await adminPost(stack.venue, 'faults/ws/drop-order-outcomes', { count: 3 });
    const before = await venueAccepted();
    const orders = await placeAll('uc', 3);
    // the venue's REST stays down past several lookups of the connector and ticks of execution
    await new Promise((resolve) => setTimeout(resolve, 6_000));
    await adminPost(stack.venue, 'faults/rest', {}, 'DELETE');
    const settled = await expectSettledAsTheVenueSays('uc', orders);
    expect(settled.map((s) => s.final.state)).toEqual(['SUCCESS', 'SUCCESS', 'SUCCESS']);
    expect(await venueAccepted()).toBe(before + 3);
  }, 120_000);
});
