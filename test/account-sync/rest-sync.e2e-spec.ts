/**
 * Issue 9, REST sync: every resource mirrored on NATS (KV buckets, change events, queries) from the sandbox
 * over real HTTP and a real nats-server; an order outcome on the connector's outcome stream refreshes at
 * once; a restart publishes nothing twice. Schedules are long here (60 s), so what changes is proven to be
 * refreshed by its trigger, not by the timer.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { jetstream } from '@nats-io/jetstream';
import { Kvm } from '@nats-io/kv';
import { AccountLedgerName, AccountStateName } from '#bus';
import {
  AccountSyncSubjects,
  StreamName,
  Subjects,
  stateKey,
  type AccountStateChanged,
  type BalanceState,
  type MirroredRecord,
} from '#contracts';
import { eventually, waitFor } from '#testing';
import { SeedIds } from '../../apps/sandbox-venue/src/domain/seed.js';
import {
  ACCOUNT,
  admin,
  appHealthy,
  bookOtcBuy,
  metricValue,
  request,
  startAccountSyncStack,
  syncAlone,
  type AccountSyncStack,
} from './webhooks-stack.js';

const subjects = new AccountSyncSubjects(new Subjects('gw.v1', ACCOUNT));
let stack: AccountSyncStack;

async function kvValue<T>(
  resource: Parameters<typeof AccountStateName.bucket>[1],
  key: string,
): Promise<T | undefined> {
  const kv = await new Kvm(stack.client).open(AccountStateName.bucket(ACCOUNT, resource));
  const entry = await kv.get(key);
  return entry === null || entry.operation !== 'PUT' ? undefined : entry.json<MirroredRecord<T>>().value;
}

async function stateEvents(subjectFilter: (subject: string) => boolean): Promise<AccountStateChanged[]> {
  const found: AccountStateChanged[] = [];
  for (const stream of [AccountStateName.events(ACCOUNT), AccountStateName.historyEvents(ACCOUNT)]) {
    const info = await stack.jsm.streams.info(stream);
    for (let seq = info.state.first_seq; seq <= info.state.last_seq && info.state.messages > 0; seq += 1) {
      const message = await stack.jsm.streams.getMessage(stream, { seq }).catch(() => null);
      if (message !== null && subjectFilter(message.subject)) found.push(message.json<AccountStateChanged>());
    }
  }
  return found;
}

async function storedEvents(): Promise<number> {
  let total = 0;
  for (const stream of [AccountStateName.events(ACCOUNT), AccountStateName.historyEvents(ACCOUNT)]) {
    total += (await stack.jsm.streams.info(stream)).state.messages;
  }
  return total;
}

beforeAll(async () => {
  stack = await startAccountSyncStack({
    env: { SYNC_FAST_INTERVAL_MS: '60000', SYNC_SLOW_INTERVAL_MS: '60000', SYNC_TRIGGER_DELAY_MS: '20' },
  });
  await syncAlone(stack);
  await waitFor(() => appHealthy(stack), 'first full sync of every resource, health ok', 20_000);
}, 60_000);

afterAll(async () => {
  await stack?.stop();
});

describe('REST sync: every resource mirrored on NATS', () => {
  it('balances per group and currency, from Account_Groups', async () => {
    const usd = await kvValue<BalanceState>('balance', stateKey(SeedIds.defaultGroup, 'USD'));
    expect(usd).toMatchObject({ accountGroupUuid: SeedIds.defaultGroup, ccy: 'USD', balance: '1000000.00' });
    const sub = await kvValue<BalanceState>('balance', stateKey(SeedIds.subGroup, 'BTC'));
    expect(sub?.balance).toMatch(/^1(\.0+)?$/);
    const reply = await request<{ ok: boolean; records: BalanceState[] }>(stack, subjects.query('balance'), {
      ccy: 'USD',
      nonZero: true,
    });
    expect(reply.ok).toBe(true);
    expect(reply.records.map((b) => b.accountGroupUuid)).toEqual(
      expect.arrayContaining([SeedIds.defaultGroup, SeedIds.subGroup]),
    );
  });

  it('account details, beneficiaries, senders, limits and pairs, each in its bucket and by query', async () => {
    await expect(kvValue('account-details', SeedIds.defaultGroup)).resolves.toMatchObject({ kind: 'ORIGINATOR' });
    const beneficiaries = await request<{ ok: boolean; total: number }>(stack, subjects.query('beneficiary'), {});
    expect(beneficiaries).toMatchObject({ ok: true, total: 3 });
    const senders = await request<{ ok: boolean; total: number }>(stack, subjects.query('sender'), {});
    expect(senders).toMatchObject({ ok: true, total: 2 });
    const limits = await request<{ ok: boolean; records: Array<{ ccy?: string; limit?: string }> }>(
      stack,
      subjects.query('limit'),
      {},
    );
    expect(limits.records[0]).toMatchObject({ ccy: 'USD', limit: '1000000.00' });
    const pairs = await request<{ ok: boolean; records: Array<{ instrument?: string }> }>(
      stack,
      subjects.query('pair'),
      {},
    );
    expect(pairs.records.map((p) => p.instrument)).toContain('BTC.USD');
    await expect(kvValue('pair', stateKey('BTC', 'USD'))).resolves.toMatchObject({ instrument: 'BTC.USD' });
  });

  it('bad queries are answered INVALID_REQUEST, never crash the app', async () => {
    const reply = await request<{ ok: boolean; error: { code: string } }>(stack, subjects.query('trade'), {
      limit: -1,
    });
    expect(reply).toMatchObject({ ok: false, error: { code: 'INVALID_REQUEST' } });
  });
});

describe('account-sync on /metrics: its JetStream streams and consumer', () => {
  it('reports each stream it declares and the lag of its order-outcome consumer (jetstream_*)', async () => {
    const text = await (await fetch(`${stack.app?.httpUrl}/metrics`)).text();
    const streams = [
      AccountLedgerName.transactions(ACCOUNT),
      AccountLedgerName.withdrawalEvents(ACCOUNT),
      AccountStateName.events(ACCOUNT),
      AccountStateName.historyEvents(ACCOUNT),
    ];
    for (const stream of streams) {
      expect(text).toMatch(
        new RegExp(`^jetstream_stream_messages\\{stream="${stream}",app="account-sync"\\} \\d+$`, 'm'),
      );
    }
    const outcomes = StreamName.orderOutcomes(ACCOUNT);
    expect(text).toMatch(
      new RegExp(
        `^jetstream_consumer_pending\\{stream="${outcomes}",consumer="account-sync",app="account-sync"\\} 0$`,
        'm',
      ),
    );
    expect(text).toMatch(/^jetstream_info_errors\{app="account-sync"\} 0$/m);
  });
});

describe('REST sync: kept current', () => {
  it('an order outcome refreshes trades, balances and transactions at once; a settlement follows', async () => {
    const booked = await bookOtcBuy(stack.venue, 'e2e-order-1');
    const js = jetstream(stack.client);
    await js.publish(
      `gw.v1.${ACCOUNT}.order.outcome.e2e-order-1`,
      JSON.stringify({ v: 1, clientRequestId: 'e2e-order-1', status: 'SUCCESS', code: '', message: '' }),
      { msgID: 'e2e-order-1:SUCCESS' },
    );
    const created = await eventually(
      async () => (await stateEvents((s) => s === subjects.stateChanged('trade', 'created', booked.tradeUuid)))[0],
      { what: 'trade.created event', timeoutMs: 15_000 },
    );
    expect(created.value).toMatchObject({
      uuid: booked.tradeUuid,
      state: 'PENDING_SETTLEMENT',
      clientRef: 'e2e-order-1',
    });
    await eventually(
      async () => {
        const usd = await kvValue<BalanceState>('balance', stateKey(SeedIds.defaultGroup, 'USD'));
        return usd?.balance === '970000.00' ? usd : undefined;
      },
      { what: 'USD balance moved by the trade', timeoutMs: 15_000 },
    );
    const changed = await stateEvents(
      (s) => s === subjects.stateChanged('balance', 'changed', stateKey(SeedIds.defaultGroup, 'USD')),
    );
    expect(changed.at(-1)).toMatchObject({ value: { balance: '970000.00' }, previous: { balance: '1000000.00' } });
    const legs = await request<{ ok: boolean; records: Array<{ tradeId?: string }> }>(
      stack,
      subjects.query('transaction-list'),
      {
        tradeId: booked.tradeUuid,
      },
    );
    expect(legs.records).toHaveLength(2);

    await admin(stack.venue, `/trades/${booked.tradeUuid}/settle`);
    await js.publish(
      `gw.v1.${ACCOUNT}.order.outcome.e2e-order-2`,
      JSON.stringify({ v: 1, clientRequestId: 'e2e-order-2', status: 'FAILED', code: 'X', message: '' }),
      { msgID: 'e2e-order-2:FAILED' },
    );
    const settled = await eventually(
      async () =>
        (await stateEvents((s) => s === subjects.stateChanged('trade', 'state-changed', booked.tradeUuid)))[0],
      { what: 'trade.state-changed event', timeoutMs: 15_000 },
    );
    expect(settled).toMatchObject({ value: { state: 'SETTLED' }, previous: { state: 'PENDING_SETTLEMENT' } });
    const trades = await request<{ ok: boolean; records: Array<{ uuid: string }> }>(stack, subjects.query('trade'), {
      clientRef: 'e2e-order-1',
    });
    expect(trades.records.map((t) => t.uuid)).toEqual([booked.tradeUuid]);
    expect(await metricValue(stack, 'account_balance_drifts_total')).toBe(0);
  });

  it('a trade of a gateway order the venue cancels after executing it is counted as undone (positions still hold its fill)', async () => {
    const undone = () => metricValue(stack, 'account_sync_trades_undone_total', { state: 'CANCELLED' });
    expect(await undone()).toBe(0);
    const booked = await bookOtcBuy(stack.venue, 'e2e-undone-1');
    const js = jetstream(stack.client);
    const outcome = async (clientRequestId: string) =>
      js.publish(
        `gw.v1.${ACCOUNT}.order.outcome.${clientRequestId}`,
        JSON.stringify({ v: 1, clientRequestId, status: 'SUCCESS', code: '', message: '' }),
        { msgID: `${clientRequestId}:SUCCESS` },
      );
    await outcome('e2e-undone-1'); // an outcome refreshes the trades at once
    await eventually(
      async () => (await stateEvents((s) => s === subjects.stateChanged('trade', 'created', booked.tradeUuid)))[0],
      { what: 'trade.created event', timeoutMs: 15_000 },
    );
    await admin(stack.venue, `/trades/${booked.tradeUuid}/cancel`);
    await outcome('e2e-undone-2');
    const cancelled = await eventually(
      async () =>
        (await stateEvents((s) => s === subjects.stateChanged('trade', 'state-changed', booked.tradeUuid)))[0],
      { what: 'trade.state-changed event', timeoutMs: 15_000 },
    );
    expect(cancelled).toMatchObject({ value: { state: 'CANCELLED' }, previous: { state: 'PENDING_SETTLEMENT' } });
    expect(await undone()).toBe(1);
  });

  it('a restart publishes nothing twice (state from KV, Nats-Msg-Id per version)', async () => {
    // Counted once the mirror is quiet: reads the earlier tests triggered may still be publishing.
    let last = -1;
    const before = await eventually(
      async () => {
        const now = await storedEvents();
        const settled = now === last;
        last = now;
        return settled ? now : undefined;
      },
      { what: 'no new events for a second', timeoutMs: 20_000, intervalMs: 1_000 },
    );
    await stack.stopApp();
    await stack.startApp();
    await waitFor(() => appHealthy(stack), 'health ok after restart', 20_000);
    expect(await storedEvents()).toBe(before);
    // The trade history was folded back from its stream: the settled trade is still known, not created again.
    const trades = await request<{ total: number }>(stack, subjects.query('trade'), { clientRef: 'e2e-order-1' });
    expect(trades.total).toBe(1);
  });

  it('/health degrades while the venue REST fails, and recovers with its next good answer', async () => {
    await admin(stack.venue, '/faults/rest', { status: 503, count: 1000 });
    const js = jetstream(stack.client);
    const outcome = (id: string) =>
      js.publish(
        `gw.v1.${ACCOUNT}.order.outcome.${id}`,
        JSON.stringify({ v: 1, clientRequestId: id, status: 'SUCCESS', code: '', message: '' }),
        { msgID: `${id}:SUCCESS` },
      );
    await outcome('e2e-order-3');
    await waitFor(async () => !(await appHealthy(stack)), 'health down while the venue answers 503');
    const body = (await (await fetch(`${stack.app?.httpUrl}/health`)).json()) as {
      checks: Record<string, { up: boolean }>;
    };
    expect(body.checks['venue-rest']?.up).toBe(false);
    await fetch(`${stack.venue.adminUrl}/faults/rest`, { method: 'DELETE' });
    await outcome('e2e-order-4');
    await waitFor(() => appHealthy(stack), 'health ok again');
  });

  it('the whole suite saw no 429 from the venue', async () => {
    expect(await metricValue(stack, 'venue_rest_calls_total', { status: '429' })).toBe(0);
  });
});
