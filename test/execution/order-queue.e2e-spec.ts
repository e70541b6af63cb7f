/**
 * Backpressure at intake (docs/execution.md#the-order-queue). Outside chaos tester: with the connector's pace down
 * (the venue answering late), execution kept accepting ~2 orders/s that provably could not leave before their send
 * deadline — 28 of 33 ended FAILED SEND_DEADLINE_PASSED. Now the excess is refused at once, ORDER_QUEUE_FULL (ask
 * again with the same key), and what is accepted leaves in time — with two instances sharing one connector.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { StreamName, type ConnectorStatus, type OrderAccepted, type PlaceOrderReply } from '#contracts';
import { eventually } from '#testing';
import {
  ACCOUNT,
  adminPost,
  finalEvents,
  finals,
  place,
  startExecutionStack,
  subjects,
  type ExecutionStack,
} from './execution-stack.js';
import { metricValue } from '../connector/connector-stack.js';

/** The venue answers every order this late: the connector holds the next one until the answer + 251 ms (1.05 s). */
const ORDER_DELAY_MS = 800;
/** The app's send deadline, short so that a queue of a few orders outlasts it. */
const SEND_DEADLINE_MS = 4_000;
/** The outside tester's load: 2 orders a second, for 8 s. */
const LOAD = { orders: 16, everyMs: 500 };

describe('execution: an order the queue ahead would hold past its send deadline is refused at intake', () => {
  let stack: ExecutionStack;
  let group: string;
  let keys = 0;
  const order = (strategyId: string, side: 'BUY' | 'SELL') => ({
    idempotencyKey: `queue-${(keys += 1)}`,
    strategyId,
    accountGroup: group,
    side,
    instrument: 'BTC.USD',
    quantity: '0.01',
    currency: 'BTC',
    tenor: 'T',
  });

  beforeAll(async () => {
    stack = await startExecutionStack({ connectorEnv: { STATUS_INTERVAL_MS: '200' } });
    group = stack.venue.seed.defaultGroupUuid;
    const env = { ORDER_SEND_DEADLINE_MS: String(SEND_DEADLINE_MS) };
    await stack.startInstance('queue-a', env);
    await stack.startInstance('queue-b', env);
  }, 90_000);
  afterAll(async () => {
    await adminPost(stack.venue, 'faults/ws/order-delay', { ms: 0 }).catch(() => undefined);
    await stack?.stop();
  });

  it('2 orders/s against a venue answering 0.8 s late: the excess refused ORDER_QUEUE_FULL, none accepted ends SEND_DEADLINE_PASSED', async () => {
    await adminPost(stack.venue, 'faults/ws/order-delay', { ms: ORDER_DELAY_MS });
    // two orders one after the other: the connector learns the venue's late answers, and says so in its status
    for (const side of ['BUY', 'SELL'] as const) {
      const reply = await place(stack.algo, order('warm', side));
      if (!reply.ok) throw new Error(JSON.stringify(reply));
      await finalEvents(stack.js, 'warm', reply.orderId, 20_000, stack.instances);
    }
    await eventually(
      async () => {
        const status = await stack.algo.request(
          `$JS.API.DIRECT.GET.${StreamName.connectorStatus(ACCOUNT)}`,
          JSON.stringify({ last_by_subj: subjects.connectorStatus }),
        );
        const pace = status.json<ConnectorStatus>().orderQueuePaceMs ?? 0;
        return pace > ORDER_DELAY_MS ? pace : undefined;
      },
      { what: 'the connector status to carry the slow pace', timeoutMs: 10_000, intervalMs: 100 },
    );

    const replies: Array<Promise<PlaceOrderReply>> = [];
    for (let i = 0; i < LOAD.orders; i++) {
      replies.push(place(stack.algo, order('load', i % 2 === 0 ? 'BUY' : 'SELL')));
      await new Promise((resolve) => setTimeout(resolve, LOAD.everyMs));
    }
    const answered = await Promise.all(replies);
    const accepted = answered.filter((reply): reply is OrderAccepted => reply.ok);
    const refused = answered.flatMap((reply) => (reply.ok ? [] : [reply.error]));
    const outcomes: string[] = [];
    for (const reply of accepted) {
      const events = await finalEvents(stack.js, 'load', reply.orderId, 30_000, stack.instances);
      expect(finals(events)).toHaveLength(1);
      const final = finals(events)[0]?.order;
      outcomes.push(`${final?.state ?? '?'}${final?.code ? ` ${final.code}` : ''}`);
    }
    // without backpressure: every order accepted, and those queued past 4 s FAILED SEND_DEADLINE_PASSED
    expect(outcomes.filter((outcome) => outcome.includes('SEND_DEADLINE_PASSED'))).toEqual([]);
    expect(outcomes.every((outcome) => outcome === 'SUCCESS')).toBe(true);
    // the venue takes one order per ~1.05 s here: of 16 in 8 s, well under half can leave within 4 s of acceptance
    expect(refused.length).toBeGreaterThan(0);
    for (const error of refused) {
      expect(error).toMatchObject({
        code: 'ORDER_QUEUE_FULL',
        values: {
          ordersAhead: expect.stringMatching(/^[1-9]\d*$/),
          paceMs: expect.stringMatching(/^\d+$/),
          estimatedWaitMs: expect.stringMatching(/^\d+$/),
          timeLeftMs: expect.stringMatching(/^\d+$/),
        },
      });
      expect(Number(error.values?.['paceMs'])).toBeGreaterThan(ORDER_DELAY_MS);
    }
    expect(accepted.length).toBeGreaterThanOrEqual(3); // backpressure, not a closed door
    // both instances estimated against the one queue; each counts what it refused
    let counted = 0;
    for (const instance of stack.instances) {
      counted +=
        (await metricValue(instance.httpUrl, 'execution_order_queue_estimates_total', { result: 'refused' })) ?? 0;
    }
    expect(counted).toBe(refused.length);
  }, 120_000);
});
