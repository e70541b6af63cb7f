/**
 * Old balances and trades are never passed off as live: every `acct.balance.query` / `acct.trade.query` reply
 * carries `asOf` (end of the last good venue read) and `stale` (judged on the bound of /health's `sync` check),
 * against the sandbox over real HTTP and a real nats-server. The venue's balances and trades reads fail
 * (sandbox REST fault); past the bound the replies still hold the last known values, marked stale, also from a
 * freshly restarted app that has read nothing yet; once the venue answers again they are fresh and new.
 * The bound is small here: fast interval 1 s × SYNC_STALE_INTERVALS 2.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { AccountSyncSubjects, Subjects, WithdrawalSubjects, type BalanceState, type Freshness } from '#contracts';
import { RestPath } from '#venue-api';
import { eventually, waitFor } from '#testing';
import { SeedIds } from '../../apps/sandbox-venue/src/domain/seed.js';
import {
  ACCOUNT,
  admin,
  bookOtcBuy,
  metricValue,
  request,
  startAccountSyncStack,
  type AccountSyncStack,
} from './webhooks-stack.js';

const subjects = new AccountSyncSubjects(new Subjects('gw.v1', ACCOUNT));
const BOUND_MS = 2 * 1_000;
let stack: AccountSyncStack;

type Reply<T> = { ok: true; total: number; records: T[] } & Freshness;

const balances = () =>
  request<Reply<BalanceState>>(stack, subjects.query('balance'), {
    accountGroupUuid: SeedIds.defaultGroup,
    ccy: 'USD',
  });
const trades = () =>
  request<Reply<{ uuid: string; clientRef?: string }>>(stack, subjects.query('trade'), { clientRef: 'e2e-stale-1' });

async function syncHealth(): Promise<{ up: boolean; detail?: string } | undefined> {
  const body = (await (await fetch(`${stack.app?.httpUrl}/health`)).json()) as {
    checks: Record<string, { up: boolean; detail?: string }>;
  };
  return body.checks['sync'];
}

beforeAll(async () => {
  stack = await startAccountSyncStack({
    env: {
      SYNC_FAST_INTERVAL_MS: '1000',
      SYNC_SLOW_INTERVAL_MS: '5000',
      SYNC_STALE_INTERVALS: '2',
      SYNC_TRIGGER_DELAY_MS: '20',
    },
  });
  await waitFor(async () => (await syncHealth())?.up === true, 'first full sync of every resource', 30_000);
}, 60_000);

afterAll(async () => {
  await stack?.stop();
});

describe('balance and trade queries say how current their records are', () => {
  it('fresh while the venue answers: stale false, asOf a recent read', async () => {
    const reply = await balances();
    expect(reply).toMatchObject({ ok: true, stale: false, records: [{ ccy: 'USD', balance: '1000000.00' }] });
    expect(reply.asOf).toBeGreaterThan(Date.now() - BOUND_MS - 1_000);
    expect(await trades()).toMatchObject({ ok: true, stale: false, total: 0 });
  });

  it('venue reads failing past the bound: the last known values, marked stale (like /health), even after a restart; fresh and new once the venue answers', async () => {
    for (const path of [RestPath.Balances, RestPath.Trades]) {
      await admin(stack.venue, '/faults/rest', { status: 503, count: 100_000, path });
    }
    // The venue moves on meanwhile: USD goes 1000000.00 → 970000.00 and a trade is booked.
    await bookOtcBuy(stack.venue, 'e2e-stale-1');

    const stale = await eventually(
      async () => {
        const reply = await balances();
        return reply.stale ? reply : undefined;
      },
      { what: 'balances stale once the bound has passed', timeoutMs: 15_000, intervalMs: 200 },
    );
    expect(stale).toMatchObject({ ok: true, records: [{ balance: '1000000.00' }] });
    expect(stale.asOf).not.toBeNull();
    expect(Date.now() - (stale.asOf ?? 0)).toBeGreaterThan(BOUND_MS);
    await eventually(async () => ((await trades()).stale ? true : undefined), {
      what: 'trades stale',
      intervalMs: 200,
    });
    expect(await trades()).toMatchObject({ ok: true, stale: true, total: 0 });
    // the same judgement as /health
    const health = await syncHealth();
    expect(health?.up).toBe(false);
    expect(health?.detail).toMatch(/balances: /);
    expect(health?.detail).toMatch(/trades: /);

    // A restarted app that has read nothing yet answers the stored values, stale, of unknown age.
    await stack.stopApp();
    await stack.startApp();
    expect(await balances()).toMatchObject({
      ok: true,
      stale: true,
      asOf: null,
      records: [{ balance: '1000000.00' }],
    });
    expect(await trades()).toMatchObject({ ok: true, stale: true, asOf: null });

    await fetch(`${stack.venue.adminUrl}/faults/rest`, { method: 'DELETE' });
    const fresh = await eventually(
      async () => {
        const reply = await balances();
        return reply.stale ? undefined : reply;
      },
      { what: 'balances fresh again', timeoutMs: 20_000, intervalMs: 200 },
    );
    expect(fresh).toMatchObject({ ok: true, stale: false, records: [{ balance: '970000.00' }] });
    const freshTrades = await eventually(
      async () => {
        const reply = await trades();
        return reply.stale || reply.total === 0 ? undefined : reply;
      },
      { what: 'trades fresh again, with the new trade', timeoutMs: 20_000, intervalMs: 200 },
    );
    expect(freshTrades).toMatchObject({ ok: true, stale: false, total: 1, records: [{ clientRef: 'e2e-stale-1' }] });
  }, 90_000);
});

describe('bad queries are refused, naming the field', () => {
  it.each([
    ['trade', { from: 'garbage' }, /^from must be an ISO 8601 date/],
    ['trade', { from: '2026-13-45' }, /^from must be an ISO 8601 date/],
    ['trade', { to: '2026-02-30' }, /^to must be an ISO 8601 date/],
    ['trade', { sate: 'SETTLED' }, /^unknown field "sate"$/],
    ['balance', { currency: 'USD' }, /^unknown field "currency"$/],
    ['transaction-list', { tradeID: 'x' }, /^unknown field "tradeID"$/],
    ['limit', { group: 'g' }, /^unknown field "group"$/],
    ['pair', { instrument: 'BTC.USD' }, /^unknown field "instrument"$/],
  ] as const)('%s.query %j: INVALID_REQUEST', async (resource, body, message) => {
    const reply = await request<{ ok: boolean; error: { code: string; message: string } }>(
      stack,
      subjects.query(resource),
      body,
    );
    expect(reply).toMatchObject({
      ok: false,
      error: { code: 'INVALID_REQUEST', message: expect.stringMatching(message) },
    });
  });

  it('pair.query: {} and an empty body answer every pair; a body not JSON is refused like any query, counted', async () => {
    type PairReply = { ok: boolean; total?: number; error?: { code: string; message: string } };
    const raw = async (body: string) =>
      (await stack.client.request(subjects.query('pair'), body, { timeout: 20_000 })).json<PairReply>();
    const counted = () => metricValue(stack, 'bus_bad_requests_total', { subject_kind: 'acct.pair.query' });
    const before = await counted();
    const all = await request<PairReply>(stack, subjects.query('pair'), {});
    expect(all).toMatchObject({ ok: true });
    expect(all.total).toBeGreaterThan(0);
    expect(await raw('')).toMatchObject({ ok: true, total: all.total });
    expect(await raw('pairs please')).toEqual({
      ok: false,
      error: { code: 'INVALID_REQUEST', message: 'payload is not JSON' },
    });
    expect(await counted()).toBe(before + 1);
  });

  it.each([
    'balance',
    'trade',
    'transaction-list',
    'account-details',
    'beneficiary',
    'sender',
    'limit',
    'transfer',
  ] as const)(
    '%s.query: an empty body is the query {} (no field is required; outside tester t3 F8)',
    async (resource) => {
      type Answer = { ok: boolean; total?: number };
      const viaObject = await request<Answer>(stack, subjects.query(resource), {});
      const viaEmpty = (await stack.client.request(subjects.query(resource), '', { timeout: 20_000 })).json<Answer>();
      expect(viaObject).toMatchObject({ ok: true });
      expect(viaEmpty).toMatchObject({ ok: true, total: viaObject.total });
    },
  );

  it('acct.withdrawal.list: an empty body is the request {} (no field is required)', async () => {
    const list = new WithdrawalSubjects('gw.v1', ACCOUNT).list;
    const viaEmpty = (await stack.client.request(list, '', { timeout: 20_000 })).json<{ ok: boolean }>();
    expect(viaEmpty).toMatchObject({ ok: true });
  });

  it('acct.drift.query is no query and no drift: no responder, nothing stored (the drift stream takes drift.{group}.{ccy} only)', async () => {
    const drifts = `${subjects.query('balance').replace(/balance\.query$/, 'drift.query')}`;
    await expect(stack.client.request(drifts, '{}', { timeout: 2_000 })).rejects.toThrow(/no responders|503/i);
  });
});
