/**
 * One quote, two execution instances of one account (requests shared by the queue group): the quote's size is
 * claimed across instances at admission, so orders sent at once on one quote give exactly one accepted order,
 * and orders by quote request never share a quote (tester D4).
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { PlaceOrderReply } from '#contracts';
import { liveQuotes, metricSum } from '../connector/connector-stack.js';
import {
  exec,
  finalEvents,
  finals,
  place,
  startExecutionStack,
  strategyEvents,
  type ExecutionInstance,
  type ExecutionStack,
} from './execution-stack.js';

const BURST = 8;

describe('execution: one quote across two instances', () => {
  let stack: ExecutionStack;
  let first: ExecutionInstance;
  let second: ExecutionInstance;
  let group: string;
  let keys = 0;
  /** Every order the bursts were told accepted. */
  const acceptedIds: string[] = [];

  const order = (strategyId: string, source: Record<string, unknown>) =>
    place(stack.algo, {
      idempotencyKey: `claim-${(keys += 1)}`,
      strategyId,
      accountGroup: group,
      side: 'BUY',
      ...source,
    });
  /** Place requests each instance answered (accepted or refused). */
  const answered = async (instance: ExecutionInstance) =>
    (await metricSum(instance.httpUrl, 'execution_orders_total')) +
    (await metricSum(instance.httpUrl, 'execution_order_rejections_total'));

  beforeAll(async () => {
    stack = await startExecutionStack();
    group = stack.venue.seed.defaultGroupUuid;
    first = await stack.startInstance('exec-claim-1');
    second = await stack.startInstance('exec-claim-2');
  });
  afterAll(async () => {
    await stack?.stop();
  });

  it('orders sent at once on one quote: exactly one accepted, the others QUOTE_SIZE_EXHAUSTED before the venue', async () => {
    const quoteIds = await liveQuotes(stack.algo, stack.venue, 'claim-e2e', 3);
    for (const quoteId of quoteIds) {
      const replies = await Promise.all(Array.from({ length: BURST }, () => order('byid', { quoteId })));
      const accepted = replies.filter((r): r is Extract<PlaceOrderReply, { ok: true }> => r.ok);
      expect(accepted).toHaveLength(1);
      for (const reply of replies.filter((r) => !r.ok))
        expect(reply).toMatchObject({ ok: false, error: { code: 'QUOTE_SIZE_EXHAUSTED', values: { quoteId } } });
      const events = await finalEvents(stack.js, 'byid', accepted[0]?.orderId as string, undefined, [first, second]);
      expect(finals(events)[0]?.order.state).toBe('SUCCESS');
      acceptedIds.push(...accepted.map((r) => r.orderId));
    }
    // the queue group shared the bursts: both instances decided some of them
    expect(await answered(first)).toBeGreaterThan(0);
    expect(await answered(second)).toBeGreaterThan(0);
  });

  it('orders by quote request sent at once across both instances never share a quote, and all execute', async () => {
    const request = { instrument: 'BTC.USD', quantity: '0.5', currency: 'BTC', tenor: 'T' };
    const replies = await Promise.all(Array.from({ length: BURST }, () => order('byrequest', request)));
    const accepted = replies.filter((r): r is Extract<PlaceOrderReply, { ok: true }> => r.ok);
    expect(replies.filter((r) => !r.ok)).toEqual([]);
    expect(accepted).toHaveLength(BURST);
    const quoteIds = accepted.map((r) => r.order.quoteId);
    expect(new Set(quoteIds).size).toBe(BURST);
    for (const reply of accepted) {
      const events = await finalEvents(stack.js, 'byrequest', reply.orderId, undefined, [first, second]);
      expect(finals(events)[0]?.order.state).toBe('SUCCESS');
    }
    acceptedIds.push(...accepted.map((r) => r.orderId));
  });

  it('an order that lost its quote to another instance leaves nothing behind: no event, no open order (tester C2)', async () => {
    // a few ownership sweeps (1 s apart here) had their chance to resume a loser's intent
    await new Promise((resolve) => setTimeout(resolve, 3_000));
    const events = [...(await strategyEvents(stack.js, 'byid')), ...(await strategyEvents(stack.js, 'byrequest'))];
    expect(new Set(events.map((e) => e.order.orderId))).toEqual(new Set(acceptedIds));
    const open = await stack.algo.request(exec.list, JSON.stringify({ filter: 'open' }), { timeout: 5_000 });
    expect(open.json<{ ok: boolean; orders: unknown[] }>()).toEqual({ ok: true, filter: 'open', orders: [] });
  });
});
