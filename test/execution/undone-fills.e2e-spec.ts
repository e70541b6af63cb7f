/**
 * A trade the venue undoes after executing it (§3.2: CANCELLED before settlement, FAILED when settlement failed):
 * the whole gateway running — connector, execution and account-sync against the sandbox over HTTP and
 * WebSocket, one nats-server. Account-sync mirrors the trade's new state; execution takes the order's fill back
 * from the strategy's position and from risk's durable positions, marks the order `undone` and announces it.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Kvm } from '@nats-io/kv';
import { RiskBucketName, type OrderEvent } from '#contracts';
import { eventually } from '#testing';
import { bookOtcBuy } from '../account-sync/webhooks-stack.js';
import { liveQuotes, metricValue } from '../connector/connector-stack.js';
import { startGatewayStack, type GatewayStack } from '../monitoring/gateway-stack.js';
import { ACCOUNT, adminPost, getOrder, orderEvents, placeToFinal, positionsOf } from './execution-stack.js';

describe('execution: a trade the venue undid takes its fill back (with account-sync)', () => {
  let stack: GatewayStack;
  let keys = 0;
  const algo = () => ({ algo: stack.strategy, js: stack.js });

  /** The durable risk position of a strategy in a currency (KV `GW_EXEC_RISK_POSITIONS_{account}`). */
  async function riskPosition(strategyId: string, currency: string): Promise<string | undefined> {
    const kv = await new Kvm(stack.strategy).open(RiskBucketName.positions(ACCOUNT));
    const entry = await kv.get(`p.${Buffer.from(`strategy:${strategyId}`).toString('base64url')}`);
    return entry?.json<{ positions: Record<string, string> }>().positions[currency];
  }

  async function buy(strategyId: string): Promise<{ orderId: string; clientRequestId: string; tradeUuid: string }> {
    const [quoteId] = await liveQuotes(stack.strategy, stack.venue, 'undone-e2e', 1);
    const { reply, events } = await placeToFinal(algo(), {
      idempotencyKey: `undone-${(keys += 1)}`,
      strategyId,
      accountGroup: stack.venue.seed.defaultGroupUuid,
      side: 'BUY',
      quoteId,
    });
    expect(events.at(-1)?.order.state).toBe('SUCCESS');
    const trades = (await adminPost(stack.venue, 'trades', undefined, 'GET')) as Array<{
      uuid: string;
      clientRef?: string;
    }>;
    const trade = trades.find((t) => t.clientRef === reply.clientRequestId);
    if (trade === undefined) throw new Error(`no venue trade with clientRef ${reply.clientRequestId}`);
    return { orderId: reply.orderId, clientRequestId: reply.clientRequestId, tradeUuid: trade.uuid };
  }

  const undoneEvent = async (strategyId: string, orderId: string): Promise<OrderEvent | undefined> =>
    (await orderEvents(stack.js, strategyId, orderId)).find((e) => e.order.undone !== undefined);

  beforeAll(async () => {
    stack = await startGatewayStack({
      venue: { trading: { priceIntervalMs: 100, offContractEveryNTicks: 0 } },
      accountSyncEnv: { SYNC_FAST_INTERVAL_MS: '1000' },
    });
  });
  afterAll(async () => {
    await stack?.stop();
  });

  it('a cancelled trade: position and risk exposure go back, the order says undone in one more event, once', async () => {
    const order = await buy('undo-a');
    expect(await positionsOf(stack.strategy, 'undo-a')).toMatchObject({
      ok: true,
      positions: { positions: { BTC: '0.5' } },
    });
    expect(await eventually(() => riskPosition('undo-a', 'BTC'), { what: 'risk position stored' })).toBe('0.5');

    await adminPost(stack.venue, `trades/${order.tradeUuid}/cancel`);

    const announced = await eventually(() => undoneEvent('undo-a', order.orderId), {
      what: 'the undone event',
      timeoutMs: 30_000,
    });
    expect(announced?.order).toMatchObject({
      state: 'SUCCESS',
      final: true,
      undone: { state: 'CANCELLED', tradeUuid: order.tradeUuid },
    });
    const positions = await positionsOf(stack.strategy, 'undo-a');
    expect(positions).toMatchObject({
      ok: true,
      positions: { positions: { BTC: '0', USD: '0' }, fills: 1, undoneFills: 1 },
    });
    expect(await riskPosition('undo-a', 'BTC')).toBe('0');
    expect(await riskPosition('undo-a', 'USD')).toBe('0');
    expect(await getOrder(stack.strategy, { orderId: order.orderId })).toMatchObject({
      ok: true,
      order: { state: 'SUCCESS', undone: { state: 'CANCELLED' } },
    });
    expect(await metricValue(stack.execution.httpUrl, 'execution_undone_fills_total', { result: 'taken-back' })).toBe(
      1,
    );
    const events = await orderEvents(stack.js, 'undo-a', order.orderId);
    expect(events.filter((e) => e.order.final).map((e) => e.order.undone === undefined)).toEqual([true, false]);
  });

  it('after a restart of execution and of account-sync nothing is taken back twice; a failed settlement is undone too', async () => {
    const order = await buy('undo-b');
    await stack.restartExecution();
    await stack.restartAccountSync();
    await adminPost(stack.venue, `trades/${order.tradeUuid}/fail`);
    await eventually(() => undoneEvent('undo-b', order.orderId), { what: 'the undone event', timeoutMs: 30_000 });
    // the earlier order's change is not handled again by the restarted instance (the durable consumer acked it)
    expect(await positionsOf(stack.strategy, 'undo-a')).toMatchObject({ positions: { positions: { BTC: '0' } } });
    expect(await positionsOf(stack.strategy, 'undo-b')).toMatchObject({
      positions: { positions: { BTC: '0', USD: '0' }, undoneFills: 1 },
    });
    expect(await riskPosition('undo-b', 'BTC')).toBe('0');
    expect((await undoneEvent('undo-b', order.orderId))?.order.undone?.state).toBe('FAILED');
  });

  it('a trade the gateway did not place (an OTC trade with a foreign clientRef) changes nothing', async () => {
    // a clientRef in the form execution mints, but of no order of it
    const otc = await bookOtcBuy(stack.venue, 'xforeign1');
    const before = await metricValue(stack.execution.httpUrl, 'execution_undone_fills_total', { result: 'not-ours' });
    await adminPost(stack.venue, `trades/${otc.tradeUuid}/cancel`);
    await eventually(
      async () =>
        ((await metricValue(stack.execution.httpUrl, 'execution_undone_fills_total', { result: 'not-ours' })) ?? 0) >
        (before ?? 0),
      { what: 'the foreign trade seen and left alone', timeoutMs: 30_000 },
    );
    expect(await metricValue(stack.execution.httpUrl, 'execution_undone_fills_total', { result: 'taken-back' })).toBe(
      1,
    );
  });

  it('another trade carrying the order’s clientRef (a desk trade) leaves the fill alone; its own trade undone later still counts', async () => {
    const order = await buy('undo-d');
    const undoneCount = (result: string) =>
      metricValue(stack.execution.httpUrl, 'execution_undone_fills_total', { result });
    const before = (await undoneCount('not-its-trade')) ?? 0;
    const desk = await bookOtcBuy(stack.venue, order.clientRequestId);
    await adminPost(stack.venue, `trades/${desk.tradeUuid}/cancel`);
    await eventually(async () => ((await undoneCount('not-its-trade')) ?? 0) > before, {
      what: 'the desk trade seen and left alone',
      timeoutMs: 30_000,
    });
    expect(await positionsOf(stack.strategy, 'undo-d')).toMatchObject({ positions: { positions: { BTC: '0.5' } } });
    expect(await riskPosition('undo-d', 'BTC')).toBe('0.5');
    expect(await undoneEvent('undo-d', order.orderId)).toBeUndefined();
    await adminPost(stack.venue, `trades/${order.tradeUuid}/cancel`);
    await eventually(() => undoneEvent('undo-d', order.orderId), { what: 'the undone event', timeoutMs: 30_000 });
    expect(await positionsOf(stack.strategy, 'undo-d')).toMatchObject({ positions: { positions: { BTC: '0' } } });
  });
});
