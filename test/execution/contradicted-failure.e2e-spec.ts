/**
 * A venue that contradicts itself (spec-gaps K7): a provisional FAILED (`EXECUTION_REJECTED`), then the real
 * SUCCESS for the same order, its trade booked. Real nats-server, sandbox venue, connector and an execution
 * instance as a child process. The FAILED the connector published stands (one final outcome per order); the
 * connector tells execution of the contradiction, execution finds the trade by clientRef, books the fill in the
 * strategy's position and risk's exposure once, and announces it in one more order event.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Kvm } from '@nats-io/kv';
import { RiskBucketName, type OrderEvent } from '#contracts';
import { eventually } from '#testing';
import { liveQuotes, metricValue } from '../connector/connector-stack.js';
import {
  ACCOUNT,
  adminPost,
  finals,
  getOrder,
  orderEvents,
  placeToFinal,
  positionsOf,
  startExecutionStack,
  type ExecutionInstance,
  type ExecutionStack,
} from './execution-stack.js';

describe('execution: a FAILED the venue contradicts with a SUCCESS is checked against the trade list', () => {
  let stack: ExecutionStack;
  let instance: ExecutionInstance;
  let keys = 0;

  async function riskPosition(strategyId: string, currency: string): Promise<string | undefined> {
    const kv = await new Kvm(stack.algo).open(RiskBucketName.positions(ACCOUNT));
    const entry = await kv.get(`p.${Buffer.from(`strategy:${strategyId}`).toString('base64url')}`);
    return entry?.json<{ positions: Record<string, string> }>().positions[currency];
  }

  const correctionEvent = async (strategyId: string, orderId: string): Promise<OrderEvent | undefined> =>
    (await orderEvents(stack.js, strategyId, orderId)).find((e) => e.order.correction !== undefined);

  async function contradictedBuy(strategyId: string): Promise<{ orderId: string; clientRequestId: string }> {
    await adminPost(stack.venue, 'faults/ws/contradict-order', { count: 1 });
    const [quoteId] = await liveQuotes(stack.algo, stack.venue, 'contradict-e2e', 1);
    const { reply, events } = await placeToFinal(stack, {
      idempotencyKey: `contradict-${(keys += 1)}`,
      strategyId,
      accountGroup: stack.venue.seed.defaultGroupUuid,
      side: 'BUY',
      quoteId,
    });
    // the first final stands: the strategy was told FAILED
    expect(finals(events)[0]?.order).toMatchObject({ state: 'FAILED', code: 'EXECUTION_REJECTED' });
    return { orderId: reply.orderId, clientRequestId: reply.clientRequestId };
  }

  beforeAll(async () => {
    stack = await startExecutionStack();
    instance = await stack.startInstance('exec-k7');
  });
  afterAll(async () => {
    await stack?.stop();
  });

  it('the fill is booked once, the order stays FAILED and one more event says it executed', async () => {
    const order = await contradictedBuy('k7-a');
    const trades = (await adminPost(stack.venue, 'trades', undefined, 'GET')) as Array<{
      uuid: string;
      clientRef?: string;
    }>;
    const trade = trades.find((t) => t.clientRef === order.clientRequestId);
    expect(trade).toBeDefined();

    const corrected = await eventually(() => correctionEvent('k7-a', order.orderId), {
      what: 'the correction event',
      timeoutMs: 30_000,
    });
    expect(corrected?.order).toMatchObject({
      state: 'FAILED',
      final: true,
      correction: {
        verdict: 'EXECUTED_AFTER_FAILED',
        source: 'reply',
        tradeUuid: trade?.uuid,
        fill: { baseCurrency: 'BTC', quoteCurrency: 'USD', baseAmount: '0.5', source: 'trade-list' },
      },
    });
    const events = await orderEvents(stack.js, 'k7-a', order.orderId);
    // one final outcome (FAILED), then exactly one correction after it
    expect(events.filter((e) => e.order.final).map((e) => [e.order.state, e.order.correction?.verdict])).toEqual([
      ['FAILED', undefined],
      ['FAILED', 'EXECUTED_AFTER_FAILED'],
    ]);
    expect(await positionsOf(stack.algo, 'k7-a')).toMatchObject({
      ok: true,
      positions: { positions: { BTC: '0.5' }, fills: 1 },
    });
    expect(await eventually(() => riskPosition('k7-a', 'BTC'), { what: 'risk position stored' })).toBe('0.5');
    expect(await getOrder(stack.algo, { orderId: order.orderId })).toMatchObject({
      ok: true,
      order: { state: 'FAILED', correction: { verdict: 'EXECUTED_AFTER_FAILED' } },
    });
    expect(
      await metricValue(instance.httpUrl, 'execution_order_outcome_contradictions_total', { source: 'reply' }),
    ).toBe(1);
    expect(
      await metricValue(instance.httpUrl, 'execution_order_contradictions_reviewed_total', {
        result: 'executed-after-failed',
      }),
    ).toBe(1);
  });

  it('after a restart of execution nothing is booked twice, and a second contradicted order is repaired too', async () => {
    await instance.kill();
    instance = await stack.startInstance('exec-k7b');
    const order = await contradictedBuy('k7-b');
    await eventually(() => correctionEvent('k7-b', order.orderId), { what: 'the correction event', timeoutMs: 30_000 });
    expect(await positionsOf(stack.algo, 'k7-a')).toMatchObject({ positions: { positions: { BTC: '0.5' }, fills: 1 } });
    expect(await positionsOf(stack.algo, 'k7-b')).toMatchObject({ positions: { positions: { BTC: '0.5' }, fills: 1 } });
    expect(await riskPosition('k7-a', 'BTC')).toBe('0.5');
    expect(await eventually(() => riskPosition('k7-b', 'BTC'), { what: 'risk position stored' })).toBe('0.5');
  });
});
