import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import {
  accountLedgerStreams,
  AccountLedgerName,
  BusConnection,
  BusMetrics,
  BusStreams,
  readStreamJson,
  SubjectLedger,
} from '#bus';
import { TransactionSubjects, type TransactionStateChanged } from '#contracts';
import { HealthRegistry, JsonLogger, MetricsRegistry } from '#observability';
import { startNatsServer, type NatsServerHandle } from '#testing';
import type { TransactionRecord, TransactionState } from '#venue-api';
import { TransactionLedger, type LedgerHistory } from './transaction-ledger.js';
import { TransactionMetrics } from './transaction-metrics.js';

const silent = new JsonLogger('ledger-test', 'test', 'error', { write: () => undefined });
const ACCOUNT = 'acc1';
const subjects = new TransactionSubjects('gw.v1', ACCOUNT);

function leg(uuid: string, state: TransactionState, amount = '100.10'): TransactionRecord {
  return {
    uuid,
    transactionClass: 'CASH',
    transactionType: 'DEPOSIT',
    transactionState: state,
    ccy: 'USD',
    amount,
    displayTitle: null,
    displayDescription: null,
    paymentTransferType: null,
    beneficiaryUuid: null,
  };
}

describe('TransactionLedger (real nats-server)', () => {
  let server: NatsServerHandle;
  let connection: BusConnection;
  let store: SubjectLedger;
  let ledger: TransactionLedger;
  let registry: MetricsRegistry;

  async function history(uuid: string): Promise<TransactionStateChanged[]> {
    const stream = AccountLedgerName.transactions(ACCOUNT);
    const info = await connection.jsm.streams.info(stream);
    const found: TransactionStateChanged[] = [];
    for (let seq = info.state.first_seq; seq <= info.state.last_seq && info.state.messages > 0; seq += 1) {
      const message = await connection.jsm.streams.getMessage(stream, { seq }).catch(() => null);
      if (message && message.subject === subjects.changed(uuid)) found.push(message.json<TransactionStateChanged>());
    }
    return found;
  }

  beforeAll(async () => {
    server = await startNatsServer();
    registry = new MetricsRegistry('t', { defaultMetrics: false });
    connection = await BusConnection.open(
      { servers: server.url, name: 't' },
      new BusMetrics(registry),
      new HealthRegistry(),
      silent,
    );
    const streams = new BusStreams(connection, silent);
    for (const definition of accountLedgerStreams('gw.v1', ACCOUNT, { duplicateWindowMs: 60_000, retentionMs: 0 })) {
      await streams.ensureStream(definition);
    }
    store = new SubjectLedger(connection, AccountLedgerName.transactions(ACCOUNT));
    ledger = new TransactionLedger(store, subjects, new TransactionMetrics(registry), silent);
  });
  afterAll(async () => {
    await connection.close();
    await server.stop();
  });

  it('stores each (uuid, state) once and publishes it as the failure or success it is', async () => {
    expect(await ledger.ingest(leg('t-1', 'PENDING'), 'webhook')).toEqual({ kind: 'stored' });
    expect(await ledger.ingest(leg('t-1', 'PENDING'), 'webhook')).toEqual({ kind: 'duplicate' });
    expect(await ledger.ingest(leg('t-1', 'REVERSED'), 'webhook')).toEqual({ kind: 'stored' });
    expect(await ledger.ingest(leg('t-1', 'PENDING'), 'list')).toEqual({ kind: 'stale' });
    const events = await history('t-1');
    expect(events.map((e) => [e.state, e.previousState, e.outcome, e.failed])).toEqual([
      ['PENDING', null, 'pending', false],
      ['REVERSED', 'PENDING', 'failed', true],
    ]);
    expect(events[1]?.leg.amount).toBe('100.10');
    expect((await ledger.current('t-1'))?.state).toBe('REVERSED');
  });

  it('out of order and concurrent: one final state, published once', async () => {
    const results = await Promise.all([
      ledger.ingest(leg('t-2', 'PROCESSED'), 'webhook'),
      ledger.ingest(leg('t-2', 'PENDING'), 'webhook'),
      ledger.ingest(leg('t-2', 'PROCESSED'), 'list'),
      ledger.ingest(leg('t-2', 'PENDING'), 'list'),
    ]);
    expect(results.map((r) => r.kind)).toEqual(['stored', 'stale', 'duplicate', 'stale']);
    expect((await history('t-2')).map((e) => e.state)).toEqual(['PROCESSED']);
  });

  it('a second writer (another process, empty cache) cannot move a transaction twice or backwards', async () => {
    const other = new TransactionLedger(
      store,
      subjects,
      new TransactionMetrics(new MetricsRegistry('o', { defaultMetrics: false })),
      silent,
    );
    await ledger.ingest(leg('t-3', 'PENDING'), 'webhook');
    expect(await other.ingest(leg('t-3', 'PENDING'), 'list')).toEqual({ kind: 'duplicate' });
    expect(await other.ingest(leg('t-3', 'CANCELLED'), 'list')).toEqual({ kind: 'stored' });
    // this ledger still caches PENDING: its append is refused by the stream, it reads again and finds CANCELLED
    expect(await ledger.ingest(leg('t-3', 'PROCESSED'), 'webhook')).toEqual({ kind: 'stale' });
    expect((await history('t-3')).map((e) => e.state)).toEqual(['PENDING', 'CANCELLED']);
  });

  it('a transaction seen only in the list is published once like any other', async () => {
    expect(await ledger.ingest(leg('t-4', 'PROCESSED'), 'list')).toEqual({ kind: 'stored' });
    expect(await ledger.ingest(leg('t-4', 'PROCESSED'), 'list')).toEqual({ kind: 'duplicate' });
    const events = await history('t-4');
    expect(events).toHaveLength(1);
    expect(events[0]?.source).toBe('list');
  });

  it('a duplicate answer for a state the stream does not hold is verified and stored again (a leader lost mid-append)', async () => {
    // The real stream, except that its first append answers "duplicate" without storing (nats-server 2.9 on a
    // cluster can keep a msgId whose message the lost leader never committed).
    const lying = {
      lied: false,
      append(subject: string, json: string, msgId: string, expectedLastSeq: number) {
        if (!this.lied) {
          this.lied = true;
          return Promise.resolve({ kind: 'duplicate' as const, seq: 0 });
        }
        return store.append(subject, json, msgId, expectedLastSeq);
      },
      last: <T>(subject: string) => store.last<T>(subject),
    };
    const verifying = new TransactionLedger(
      lying,
      subjects,
      new TransactionMetrics(new MetricsRegistry('v', { defaultMetrics: false })),
      silent,
    );
    expect(await verifying.ingest(leg('t-6', 'PENDING'), 'webhook')).toEqual({ kind: 'stored' });
    expect((await history('t-6')).map((e) => e.state)).toEqual(['PENDING']);
    // a genuine duplicate stays a duplicate, and nothing is stored twice
    expect(await ledger.ingest(leg('t-6', 'PENDING'), 'list')).toEqual({ kind: 'duplicate' });
    expect(await history('t-6')).toHaveLength(1);
  });

  it('rejects (so the receiver answers 5xx) when the stream cannot store, and reports it in health', async () => {
    const missing = new SubjectLedger(connection, 'NO_SUCH_STREAM');
    const broken = new TransactionLedger(
      missing,
      new TransactionSubjects('gw.v1', 'nowhere'),
      new TransactionMetrics(new MetricsRegistry('b', { defaultMetrics: false })),
      silent,
    );
    await expect(broken.ingest(leg('t-5', 'PENDING'), 'webhook')).rejects.toThrow();
    expect((await broken.health()).up).toBe(false);
  });

  describe("the venue's list against a webhook's final state (WH12)", () => {
    let now = 5_000_000;
    const judging = () =>
      new TransactionLedger(
        store,
        subjects,
        new TransactionMetrics(new MetricsRegistry('j', { defaultMetrics: false })),
        silent,
        { now: () => now, correctionAfterMs: 60_000 },
      );

    it('a final state the list keeps contradicting is corrected to the list, once, and webhooks no longer move it', async () => {
      const ledger = judging();
      // a webhook from a listed address says CANCELLED; the venue processed the deposit
      expect(await ledger.ingest(leg('t-forged', 'CANCELLED'), 'webhook')).toEqual({ kind: 'stored' });
      expect(await ledger.ingest(leg('t-forged', 'PROCESSED'), 'list')).toEqual({ kind: 'disputed' });
      now += 30_000;
      expect(await ledger.ingest(leg('t-forged', 'PROCESSED'), 'list')).toEqual({ kind: 'disputed' });
      now += 30_000;
      expect(await ledger.ingest(leg('t-forged', 'PROCESSED'), 'list')).toEqual({ kind: 'corrected' });
      const events = await history('t-forged');
      expect(events.map((e) => [e.state, e.previousState, e.source, e.corrected ?? false])).toEqual([
        ['CANCELLED', null, 'webhook', false],
        ['PROCESSED', 'CANCELLED', 'list', true],
      ]);
      expect(events[1]).toMatchObject({ outcome: 'completed', failed: false });
      // the same webhook again: the list decides this leg now
      expect(await ledger.ingest(leg('t-forged', 'CANCELLED'), 'webhook')).toEqual({ kind: 'stale' });
      expect(await ledger.ingest(leg('t-forged', 'PROCESSED'), 'list')).toEqual({ kind: 'duplicate' });
      // another process, reading the leg from the stream, holds it the same way
      expect(await judging().ingest(leg('t-forged', 'CANCELLED'), 'webhook')).toEqual({ kind: 'stale' });
      expect((await history('t-forged')).length).toBe(2);
    });

    it('a list read that lags behind a genuine webhook is no correction: the next read agrees', async () => {
      const ledger = judging();
      expect(await ledger.ingest(leg('t-reversed', 'PROCESSED'), 'webhook')).toEqual({ kind: 'stored' });
      expect(await ledger.ingest(leg('t-reversed', 'REVERSED'), 'webhook')).toEqual({ kind: 'stored' });
      expect(await ledger.ingest(leg('t-reversed', 'PENDING'), 'list')).toEqual({ kind: 'stale' });
      expect(await ledger.ingest(leg('t-reversed', 'PROCESSED'), 'list')).toEqual({ kind: 'disputed' });
      expect(await ledger.ingest(leg('t-reversed', 'REVERSED'), 'list')).toEqual({ kind: 'duplicate' });
      now += 120_000;
      // the list showed REVERSED: a contrary read now is its own lag, never a correction
      expect(await ledger.ingest(leg('t-reversed', 'PROCESSED'), 'list')).toEqual({ kind: 'stale' });
      expect((await history('t-reversed')).map((e) => e.state)).toEqual(['PROCESSED', 'REVERSED']);
    });
  });

  it('a leg only a webhook gave, which no list read long enough after it shows, is flagged once (WH13)', async () => {
    let now = 9_000_000;
    const metricsRegistry = new MetricsRegistry('u', { defaultMetrics: false });
    const flagging = new TransactionLedger(store, subjects, new TransactionMetrics(metricsRegistry), silent, {
      now: () => now,
      unconfirmedAfterMs: 60_000,
    });
    const flagged = async () =>
      (await metricsRegistry.getSingleMetric('account_sync_transactions_unconfirmed_total')?.get())?.values[0]?.value;
    expect(await flagging.ingest(leg('t-webhook-only', 'PENDING'), 'webhook')).toEqual({ kind: 'stored' });
    expect(await flagging.ingest(leg('t-genuine', 'PENDING'), 'webhook')).toEqual({ kind: 'stored' });
    expect(await flagging.ingest(leg('t-genuine', 'PROCESSED'), 'webhook')).toEqual({ kind: 'stored' });
    expect(await flagging.ingest(leg('t-listed-first', 'PENDING'), 'list')).toEqual({ kind: 'stored' });
    expect(await flagging.ingest(leg('t-listed-first', 'PROCESSED'), 'webhook')).toEqual({ kind: 'stored' });
    // a read started too soon after the webhooks proves nothing (the list may lag)
    flagging.listRead(now + 59_999);
    expect(await flagged()).toBe(0);
    now += 30_000;
    // the list shows the genuine leg (any state of it): confirmed
    expect(await flagging.ingest(leg('t-genuine', 'PENDING'), 'list')).toEqual({ kind: 'stale' });
    now += 30_000;
    flagging.listRead(now);
    expect(await flagged()).toBe(1);
    // once each: later reads do not count it again
    now += 60_000;
    flagging.listRead(now);
    expect(await flagged()).toBe(1);
    // another process holding the leg from the stream: its next webhook state is no first sight
    const other = new TransactionLedger(
      store,
      subjects,
      new TransactionMetrics(new MetricsRegistry('u2', { defaultMetrics: false })),
      silent,
      { now: () => now, unconfirmedAfterMs: 1_000 },
    );
    expect(await other.ingest(leg('t-webhook-only', 'PROCESSED'), 'webhook')).toEqual({ kind: 'stored' });
    other.listRead(now + 10_000);
    expect(await flagged()).toBe(1);
  });

  it('a restart does not forget webhook-only legs: those of the last day no list has shown await the list again (WH13)', async () => {
    let now = Date.now();
    const before = new TransactionLedger(
      store,
      subjects,
      new TransactionMetrics(new MetricsRegistry('r1', { defaultMetrics: false })),
      silent,
      { now: () => now },
    );
    expect(await before.ingest(leg('t-forged-before-restart', 'PENDING'), 'webhook')).toEqual({ kind: 'stored' });
    expect(await before.ingest(leg('t-forged-before-restart', 'PROCESSED'), 'webhook')).toEqual({ kind: 'stored' });
    expect(await before.ingest(leg('t-seen-by-list', 'PENDING'), 'webhook')).toEqual({ kind: 'stored' });
    expect(await before.ingest(leg('t-seen-by-list', 'PROCESSED'), 'list')).toEqual({ kind: 'stored' });
    // the process restarts: a new ledger, nothing in memory
    const registry = new MetricsRegistry('r2', { defaultMetrics: false });
    const after = new TransactionLedger(store, subjects, new TransactionMetrics(registry), silent, {
      now: () => now,
      unconfirmedAfterMs: 60_000,
    });
    const history: LedgerHistory = (since, each) =>
      readStreamJson<TransactionStateChanged>(
        connection,
        AccountLedgerName.transactions(ACCOUNT),
        subjects.allChanged,
        (_subject, event) => each(event),
        since,
      );
    const restored = await after.restoreAwaitingList(history);
    expect(restored).toBeGreaterThanOrEqual(1); // other tests' webhook-only legs of this stream too
    now += 60_000;
    after.listRead(now);
    const warned = (await registry.getSingleMetric('account_sync_transactions_unconfirmed_total')?.get())?.values[0];
    expect(warned?.value).toBe(restored); // each once: the listed leg is not among them
    expect(restored).toBeLessThan(
      (await connection.jsm.streams.info(AccountLedgerName.transactions(ACCOUNT))).state.num_subjects ?? 0,
    );
  });

  it('reads back a state it stored once the list sees it later, and stores it again if the stream lost it', async () => {
    let now = 1_000_000;
    const checking = new TransactionLedger(
      store,
      subjects,
      new TransactionMetrics(new MetricsRegistry('v', { defaultMetrics: false })),
      silent,
      {
        now: () => now,
        verifyAfterMs: 30_000,
      },
    );
    expect(await checking.ingest(leg('t-lost', 'PENDING'), 'webhook')).toEqual({ kind: 'stored' });
    // the cluster acknowledged it, then lost it in a failover
    const stream = AccountLedgerName.transactions(ACCOUNT);
    const stored = await connection.jsm.streams.getMessage(stream, { last_by_subj: subjects.changed('t-lost') });
    await connection.jsm.streams.deleteMessage(stream, stored?.seq ?? 0);
    expect(await checking.ingest(leg('t-lost', 'PENDING'), 'list')).toEqual({ kind: 'duplicate' }); // too soon
    now += 30_000;
    expect(await checking.ingest(leg('t-lost', 'PENDING'), 'list')).toEqual({ kind: 'stored' });
    expect((await history('t-lost')).map((e) => e.state)).toEqual(['PENDING']);
    // read back once: from now on the stream has it and the cache is trusted
    now += 60_000;
    expect(await checking.ingest(leg('t-lost', 'PENDING'), 'list')).toEqual({ kind: 'duplicate' });
    now += 60_000;
    expect(await checking.ingest(leg('t-lost', 'PENDING'), 'list')).toEqual({ kind: 'duplicate' });
    expect((await history('t-lost')).map((e) => e.state)).toEqual(['PENDING']);
  });
});
