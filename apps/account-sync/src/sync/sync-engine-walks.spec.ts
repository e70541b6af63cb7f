/**
 * The cost of the trade and transaction reads between full reads does not grow with the records held or pending
 * (list-walks.ts), and no state change of a pending record is missed for good: venues that page by `max`/`offset`,
 * newest first, and honour `from`, as the sandbox does.
 */
import { describe, expect, it } from '@jest/globals';
import { AccountSyncSubjects, Subjects } from '#contracts';
import { JsonLogger, MetricsRegistry } from '#observability';
import type { Page, Trade, TradePageRequest, TransactionRecord, VenueRestClient } from '#venue-api';
import type { IngestResult, TransactionIntake } from '../transactions/transaction-intake.js';
import { StateMirror, type MirrorStore } from './state-mirror.js';
import { SyncEngine, type Mirrors } from './sync-engine.js';
import { SyncMetrics } from './sync-metrics.js';
import { SYNC_RESOURCES } from './sync-triggers.js';

const quiet = new JsonLogger('test', 'sync-engine', 'error', { write: () => undefined });
const T0 = Date.UTC(2026, 0, 1);

/** Newest first by `at`, paged by offset; `from` honoured; every call recorded. */
class PagedList<T> {
  readonly calls: Array<{ max: number; offset: number; from?: string; tradeRef?: string }> = [];
  failAt: number | undefined;
  constructor(
    public rows: T[],
    private readonly at: (row: T) => number,
    private readonly ref: (row: T) => string | undefined = () => undefined,
  ) {}
  page(request: { max?: number; offset?: number; from?: string; tradeRef?: string }): Promise<Page<T>> {
    const max = request.max ?? 50;
    const offset = request.offset ?? 0;
    this.calls.push({ max, offset, ...request });
    if (this.failAt !== undefined && offset >= this.failAt) return Promise.reject(new Error('HTTP 503'));
    const from = request.from === undefined ? Number.NEGATIVE_INFINITY : Date.parse(request.from);
    const matching = [...this.rows]
      .filter((row) => this.at(row) >= from && (request.tradeRef === undefined || this.ref(row) === request.tradeRef))
      .sort((a, b) => this.at(b) - this.at(a));
    const data = matching.slice(offset, offset + max);
    return Promise.resolve({ data, total: matching.length, rows: data.length });
  }
}

function trade(i: number, state: Trade['state'] = 'PENDING_SETTLEMENT'): Trade {
  return { uuid: `t-${i}`, tradeRef: `R-${i}`, createdAt: new Date(T0 + i * 1_000).toISOString(), state };
}

function leg(i: number, state: TransactionRecord['transactionState'] = 'PENDING'): TransactionRecord {
  return {
    uuid: `l-${i}`,
    transactionClass: 'RFSTRADE',
    amount: '1.00',
    ccy: 'USD',
    transactionState: state,
    transactionType: 'TRADE_DEBIT',
    received: T0 + i * 1_000,
    displayTitle: null,
    displayDescription: null,
    paymentTransferType: null,
    beneficiaryUuid: null,
  };
}

/** The trade mirror, over a KV bucket in memory and a stream that takes every message. */
class MemoryStore implements MirrorStore {
  readonly entries = new Map<string, unknown>();
  values<T>(): Promise<Map<string, T>> {
    return Promise.resolve(new Map(this.entries) as Map<string, T>);
  }
  put(key: string, value: unknown): Promise<void> {
    this.entries.set(key, value);
    return Promise.resolve();
  }
}

const tradeMirror = () =>
  new StateMirror<Trade>(
    new MemoryStore(),
    () => Promise.resolve(),
    new AccountSyncSubjects(new Subjects('gw.v1', 'a1')),
    {
      resource: 'trade',
      stateOf: (trade) => trade.state,
    },
  );

class Ledger implements TransactionIntake {
  readonly offered: string[] = [];
  readonly failing = new Set<string>();
  listReads = 0;
  ingest(record: TransactionRecord): Promise<IngestResult> {
    this.offered.push(record.uuid);
    if (this.failing.delete(record.uuid)) return Promise.reject(new Error('ledger unavailable'));
    return Promise.resolve({ kind: 'stored' });
  }
  listRead(): void {
    this.listReads += 1;
  }
}

function setUp(trades: Trade[], legs: TransactionRecord[], sweepPages = 2) {
  const tradeList = new PagedList(
    trades,
    (t) => Date.parse(t.createdAt ?? ''),
    (t) => t.tradeRef,
  );
  const legList = new PagedList(legs, (l) => l.received ?? 0);
  const client = {
    listTrades: (request: TradePageRequest) => tradeList.page(request),
    listTransactions: (request: { max?: number; offset?: number; from?: string }) => legList.page(request),
    async *iterateTransactions(): AsyncIterable<TransactionRecord> {
      yield* legList.rows;
    },
  };
  const mirror = tradeMirror();
  const ledger = new Ledger();
  const engine = new SyncEngine({
    client: client as unknown as VenueRestClient,
    mirrors: { trade: mirror } as unknown as Mirrors,
    intake: ledger,
    publishDrift: () => Promise.resolve(),
    metrics: new SyncMetrics(new MetricsRegistry('t', { defaultMetrics: false }), () => undefined, SYNC_RESOURCES),
    logger: quiet,
    now: () => T0 + 10_000_000,
    overlapMs: 60_000,
    sweepPages,
  });
  return { engine, tradeList, legList, mirror, ledger };
}

const range = (n: number) => Array.from({ length: n }, (_, i) => i);

describe('SyncEngine reads between full reads: bounded, and never missing a change for good', () => {
  it('a recent trade read costs one short page whatever the number of pending trades held', async () => {
    for (const pending of [10, 2_000]) {
      const { engine, tradeList, mirror } = setUp(
        range(pending).map((i) => trade(i)),
        [],
      );
      await engine.run('trades', 'full');
      tradeList.calls.length = 0;
      tradeList.rows.push(trade(pending)); // a new order's trade
      await engine.run('trades', 'recent');
      expect(tradeList.calls).toEqual([{ max: 50, offset: 0 }]);
      expect(mirror.get(`t-${pending}`)).toBeDefined();
    }
  });

  it('a recent read walks on while whole pages are new', async () => {
    const { engine, tradeList, mirror } = setUp(
      range(300).map((i) => trade(i)),
      [],
    );
    await engine.run('trades', 'full');
    tradeList.calls.length = 0;
    for (const i of range(400)) tradeList.rows.push(trade(300 + i));
    await engine.run('trades', 'recent');
    expect(tradeList.calls.map((c) => [c.max, c.offset])).toEqual([
      [50, 0],
      [200, 50],
      [200, 250],
    ]);
    expect(mirror.size).toBe(700);
  });

  it('periodic runs sweep the window a few pages each; the oldest pending trade settling is seen within a pass', async () => {
    const { engine, tradeList, mirror } = setUp(
      range(2_000).map((i) => trade(i)),
      [],
      2,
    );
    await engine.run('trades', 'full');
    tradeList.rows[0] = trade(0, 'SETTLED'); // the oldest: at the far end of the window
    const perRun: number[] = [];
    for (const run of range(6)) {
      const before = tradeList.calls.length;
      await engine.run('trades', 'incremental');
      perRun.push(tradeList.calls.length - before);
      if (mirror.get('t-0')?.state === 'SETTLED') {
        // 2 000 trades in the window, 2 pages of 200 a run: a pass is 5 runs
        expect(run).toBeLessThanOrEqual(5);
        break;
      }
    }
    expect(mirror.get('t-0')?.state).toBe('SETTLED');
    // each run: the recent read (one page) and at most two sweep pages
    expect(Math.max(...perRun)).toBeLessThanOrEqual(3);
    // the window starts at the oldest pending trade, minus the overlap
    expect(tradeList.calls.find((c) => c.from !== undefined)?.from).toBe(new Date(T0 - 60_000).toISOString());
  });

  it('a pass started after the old trades settled reads only from the oldest still pending', async () => {
    const trades = range(1_000).map((i) => trade(i, i < 900 ? 'SETTLED' : 'PENDING_SETTLEMENT'));
    const { engine, tradeList } = setUp(trades, [], 5);
    await engine.run('trades', 'full');
    tradeList.calls.length = 0;
    await engine.run('trades', 'incremental');
    const sweep = tradeList.calls.filter((c) => c.from !== undefined);
    expect(sweep.map((c) => c.from)).toEqual([new Date(T0 + 900_000 - 60_000).toISOString()]);
  });

  it('each trade sweep pass starts from the oldest trade still pending, as the old ones are read settled', async () => {
    const trades = range(1_000).map((i) => trade(i, i < 900 ? 'SETTLED' : 'PENDING_SETTLEMENT'));
    const { engine, tradeList, mirror } = setUp(trades, [], 5);
    await engine.run('trades', 'full');
    tradeList.calls.length = 0;
    await engine.run('trades', 'incremental'); // one short page from 900 − the overlap: the pass ends
    for (const i of range(50)) tradeList.rows[900 + i] = trade(900 + i, 'SETTLED'); // their webhooks were lost
    await engine.run('trades', 'incremental'); // the same window: the pass reads them settled
    await engine.run('trades', 'incremental'); // the next pass starts at 950, the oldest still pending
    for (const i of range(50)) tradeList.rows[950 + i] = trade(950 + i, 'CANCELLED');
    await engine.run('trades', 'incremental'); // the recent read sees them undone: nothing pending, from the newest
    const from = (i: number) => new Date(T0 + i * 1_000 - 60_000).toISOString();
    expect(tradeList.calls.filter((c) => c.from !== undefined).map((c) => c.from)).toEqual([
      from(900),
      from(900),
      from(950),
      from(999),
    ]);
    expect(mirror.get('t-949')?.state).toBe('SETTLED');
    expect(mirror.get('t-999')?.state).toBe('CANCELLED');
  });

  it('a trade whose leg reached a final state is looked up by tradeRef at the next run', async () => {
    const { engine, tradeList, mirror } = setUp(
      range(500).map((i) => trade(i)),
      [],
    );
    await engine.run('trades', 'full');
    tradeList.rows[3] = trade(3, 'SETTLED');
    engine.noteTradeMoved('R-3');
    tradeList.calls.length = 0;
    await engine.run('trades', 'recent');
    expect(tradeList.calls).toContainEqual(expect.objectContaining({ tradeRef: 'R-3' }));
    expect(mirror.get('t-3')?.state).toBe('SETTLED');
    await engine.run('trades', 'recent');
    expect(tradeList.calls.filter((c) => c.tradeRef !== undefined)).toHaveLength(1); // looked up once
  });

  it('a recent leg read costs one short page; the sweep re-reads an old PENDING leg within a pass and says so to the ledger', async () => {
    const { engine, legList, ledger } = setUp(
      [],
      range(1_000).map((i) => leg(i)),
      2,
    );
    await engine.run('transactions', 'full');
    expect(ledger.listReads).toBe(1);
    legList.calls.length = 0;
    legList.rows.push(leg(1_000));
    await engine.run('transactions', 'recent');
    expect(legList.calls).toEqual([{ max: 50, offset: 0 }]);
    expect(ledger.listReads).toBe(1); // not a whole list read
    legList.rows[0] = leg(0, 'PROCESSED'); // its webhook was lost
    for (const _ of range(3)) await engine.run('transactions', 'incremental'); // 1 001 legs, 400 a run
    expect(engine.transactions.get('l-0')?.transactionState).toBe('PROCESSED');
    expect(ledger.listReads).toBe(2); // the pass ended
    expect(Math.max(...legList.calls.map((c) => c.max))).toBe(200);
  });

  it('each leg sweep pass starts from the oldest leg still pending, as the old ones are read settled', async () => {
    const legs = range(1_000).map((i) => leg(i, i < 900 ? 'PROCESSED' : 'PENDING'));
    const { engine, legList } = setUp([], legs, 5);
    await engine.run('transactions', 'full');
    legList.calls.length = 0;
    await engine.run('transactions', 'incremental'); // one short page from 900 − the overlap: the pass ends
    for (const i of range(50)) legList.rows[900 + i] = leg(900 + i, 'PROCESSED'); // their webhooks were lost
    await engine.run('transactions', 'incremental'); // the same window: the pass reads them settled
    await engine.run('transactions', 'incremental'); // the next pass starts at 950, the oldest still pending
    const from = (i: number) => new Date(T0 + i * 1_000 - 60_000).toISOString();
    expect(legList.calls.filter((c) => c.from !== undefined).map((c) => c.from)).toEqual([
      from(900),
      from(900),
      from(950),
    ]);
    expect(engine.transactions.get('l-949')?.transactionState).toBe('PROCESSED');
    expect(engine.transactions.get('l-950')?.transactionState).toBe('PENDING');
  });

  it('after a failed recent read the next walks down to where the last good one started', async () => {
    const { engine, legList, ledger } = setUp(
      [],
      range(100).map((i) => leg(i)),
      2,
    );
    await engine.run('transactions', 'full');
    await engine.run('transactions', 'recent');
    for (const i of range(300)) legList.rows.push(leg(100 + i));
    ledger.failing.add('l-120'); // on the third page (newest first: 399 … 350, 349 … 150, 149 … 0)
    await expect(engine.run('transactions', 'recent')).rejects.toThrow('ledger unavailable');
    expect(engine.transactions.has('l-120')).toBe(false);
    await engine.run('transactions', 'recent');
    expect(engine.transactions.has('l-120')).toBe(true);
  });
});
