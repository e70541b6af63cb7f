/**
 * T1 F2: with many trades pending settlement at the venue (the sandbox never settles RFS trades by itself), order
 * outcomes cost the venue REST a small number of reads whatever the size of the pending set — what is new only,
 * coalesced — and the periodic sweep still sees an old pending trade (and its legs) settle, within its documented
 * bound. The sandbox over real HTTP, a real nats-server; the counts are the app's own `venue_rest_calls_total`.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { jetstream } from '@nats-io/jetstream';
import { AccountSyncSubjects, Subjects } from '#contracts';
import { eventually, waitFor } from '#testing';
import {
  ACCOUNT,
  admin,
  appHealthy,
  bookOtcBuys,
  bookOtcBuy,
  metricValue,
  request,
  startAccountSyncStack,
  syncAlone,
  type AccountSyncStack,
} from './webhooks-stack.js';

const PENDING = 400;
const OUTCOMES = 20;
const SWEEP_PAGES = 2;
const FAST_INTERVAL_MS = 4_000;
const subjects = new AccountSyncSubjects(new Subjects('gw.v1', ACCOUNT));
let stack: AccountSyncStack;

/** The counters this test reads, at one moment. */
async function counters() {
  const value = (name: string, labels: Record<string, string>) => metricValue(stack, name, labels);
  return {
    listTrades: await value('venue_rest_calls_total', { operation: 'listTrades', status: '200' }),
    listTransactions: await value('venue_rest_calls_total', { operation: 'listTransactions', status: '200' }),
    tradesRead: await value('account_sync_records_read_total', { resource: 'trades' }),
    legsRead: await value('account_sync_records_read_total', { resource: 'transactions' }),
    periodicTradeRuns: await value('account_sync_runs_total', {
      resource: 'trades',
      mode: 'incremental',
      result: 'ok',
    }),
    periodicLegRuns: await value('account_sync_runs_total', {
      resource: 'transactions',
      mode: 'incremental',
      result: 'ok',
    }),
    recentTradeRuns: await value('account_sync_runs_total', { resource: 'trades', mode: 'recent', result: 'ok' }),
  };
}

beforeAll(async () => {
  stack = await startAccountSyncStack({
    env: {
      SYNC_FAST_INTERVAL_MS: String(FAST_INTERVAL_MS),
      SYNC_SLOW_INTERVAL_MS: '60000',
      SYNC_SWEEP_PAGES: String(SWEEP_PAGES),
      SYNC_OVERLAP_MS: '60000',
    },
    startApp: false,
  });
  await syncAlone(stack);
  await bookOtcBuys(stack.venue, PENDING); // pending settlement, two PENDING legs each, booked before the app starts
  await stack.startApp();
  await waitFor(() => appHealthy(stack), 'first full sync of every resource, health ok', 30_000);
}, 90_000);

afterAll(async () => {
  await stack?.stop();
});

describe(`account-sync with ${PENDING} trades pending settlement`, () => {
  it(`${OUTCOMES} order outcomes cost a few list calls, not a re-read of the pending set each; an old pending trade settling is still seen`, async () => {
    const js = jetstream(stack.client);
    const before = await counters();
    const started = Date.now();
    const booked: string[] = [];
    for (let i = 0; i < OUTCOMES; i += 1) {
      const id = `scale-${i}`;
      booked.push((await bookOtcBuy(stack.venue, id)).tradeUuid);
      await js.publish(
        `gw.v1.${ACCOUNT}.order.outcome.${id}`,
        JSON.stringify({ v: 1, clientRequestId: id, status: 'SUCCESS', code: '', message: '' }),
        { msgID: `${id}:SUCCESS` },
      );
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    // every new trade is mirrored, read by the outcomes' reads
    await eventually(
      async () => {
        const reply = await request<{ total: number }>(stack, subjects.query('trade'), {
          clientRef: `scale-${OUTCOMES - 1}`,
        });
        return reply.total === 1 ? true : undefined;
      },
      { what: 'the last outcome’s trade mirrored', timeoutMs: 10_000 },
    );
    await new Promise((resolve) => setTimeout(resolve, 1_500)); // reads already asked for end
    const after = await counters();
    const seconds = (Date.now() - started) / 1_000;
    const periodicTrade = after.periodicTradeRuns - before.periodicTradeRuns;
    const periodicLeg = after.periodicLegRuns - before.periodicLegRuns;
    const recent = after.recentTradeRuns - before.recentTradeRuns;
    const tradeCalls = after.listTrades - before.listTrades;
    const legCalls = after.listTransactions - before.listTransactions;
    process.stdout.write(
      `pending-scale: ${OUTCOMES} outcomes in ${seconds.toFixed(1)} s with ${PENDING} pending: ` +
        `listTrades ${tradeCalls} (recent runs ${recent}, periodic ${periodicTrade}), listTransactions ${legCalls} ` +
        `(periodic ${periodicLeg}); records read: trades ${after.tradesRead - before.tradesRead}, ` +
        `legs ${after.legsRead - before.legsRead}\n`,
    );
    // coalesced: one recent read a second at most (SYNC_TRIGGER_MIN_GAP_MS), not one per outcome
    expect(recent).toBeLessThanOrEqual(Math.ceil(seconds) + 1);
    // each recent read one page (nothing but the new trade is new), each periodic one that page and its sweep pages
    expect(tradeCalls).toBeLessThanOrEqual(recent + periodicTrade * (1 + SWEEP_PAGES));
    expect(legCalls).toBeLessThanOrEqual(recent + 2 + periodicLeg * (1 + SWEEP_PAGES));
    // and so a small constant for the outcomes, whatever the pending set: 400 pending trades are 2 pages, their 800
    // legs 4 — a re-read of them per outcome would be far more
    expect(tradeCalls - periodicTrade * (1 + SWEEP_PAGES)).toBeLessThanOrEqual(Math.ceil(seconds) + 1);
    expect(tradeCalls + legCalls).toBeLessThan(OUTCOMES * 2);

    // the oldest pending trade settles at the venue (no webhook, no trigger): the sweep sees it and its legs
    const trades = (await (await fetch(`${stack.venue.adminUrl}/trades`)).json()) as Array<{
      uuid: string;
      state: string;
    }>;
    const oldest = trades.find((t) => t.state === 'PENDING_SETTLEMENT' && !booked.includes(t.uuid));
    expect(oldest).toBeDefined();
    await admin(stack.venue, `/trades/${oldest?.uuid}/settle`);
    const settledAt = Date.now();
    // bound: two passes; a pass over ~420 trades is one run of 2 pages, over ~840 legs three runs
    await eventually(
      async () => {
        const reply = await request<{ records: Array<{ state: string }> }>(stack, subjects.query('trade'), {
          state: 'SETTLED',
        });
        return reply.records.some((t) => (t as unknown as { uuid: string }).uuid === oldest?.uuid) ? true : undefined;
      },
      { what: 'the old trade seen SETTLED', timeoutMs: 2 * 3 * FAST_INTERVAL_MS + 10_000 },
    );
    await eventually(
      async () => {
        const reply = await request<{ records: Array<{ transactionState: string }> }>(
          stack,
          subjects.query('transaction-list'),
          { tradeId: oldest?.uuid },
        );
        return reply.records.length === 2 && reply.records.every((l) => l.transactionState !== 'PENDING')
          ? true
          : undefined;
      },
      { what: 'its legs seen out of PENDING', timeoutMs: 2 * 3 * FAST_INTERVAL_MS + 10_000 },
    );
    process.stdout.write(`pending-scale: the old trade and its legs seen settled in ${Date.now() - settledAt} ms\n`);
  }, 120_000);
});
