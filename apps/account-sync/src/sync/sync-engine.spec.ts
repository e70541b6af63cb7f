import { describe, expect, it } from '@jest/globals';
import { JsonLogger, MetricsRegistry } from '#observability';
import type { Page, Trade, TransactionRecord, VenueRestClient } from '#venue-api';
import type { IngestResult, TransactionIntake } from '../transactions/transaction-intake.js';
import { SyncEngine, type Mirrors } from './sync-engine.js';
import { SyncMetrics } from './sync-metrics.js';
import { SYNC_RESOURCES } from './sync-triggers.js';

const quiet = new JsonLogger('test', 'sync-engine', 'error', { write: () => undefined });

/** A page of `data` as the client reads it; `unreadable` rows were sent but left out. */
function pageOf<T>(data: T[], unreadable = 0): Page<T> {
  return { data, total: data.length + unreadable, rows: data.length + unreadable };
}

/** A venue whose trade pages answer in the order the test settles them. */
class ScriptedTrades {
  readonly pages: Array<{ resolve(page: Page<Trade>): void; reject(error: Error): void }> = [];
  listTrades(): Promise<Page<Trade>> {
    return new Promise((resolve, reject) => this.pages.push({ resolve, reject }));
  }
}

/** An engine on a scripted venue (and ledger); trades go to a mirror that accepts everything. */
function engineFor(client: object, intake?: TransactionIntake, mirrors: Partial<Record<keyof Mirrors, object>> = {}) {
  const trade = { apply: () => Promise.resolve({ created: 0, changed: 0, stateChanged: 0, removed: 0 }), size: 0 };
  return new SyncEngine({
    client: client as unknown as VenueRestClient,
    mirrors: { trade, ...mirrors } as unknown as Mirrors,
    intake,
    publishDrift: () => Promise.resolve(),
    metrics: new SyncMetrics(new MetricsRegistry('t', { defaultMetrics: false }), () => undefined, SYNC_RESOURCES),
    logger: quiet,
    now: () => 0,
    overlapMs: 0,
    sweepPages: 5,
  });
}

describe('SyncEngine full trade read', () => {
  it('a page failing while later pages are in flight fails the run once; the later failures are not unhandled', async () => {
    const unhandled: unknown[] = [];
    const onUnhandled = (reason: unknown) => unhandled.push(reason);
    process.on('unhandledRejection', onUnhandled);
    try {
      const venue = new ScriptedTrades();
      const run = engineFor(venue).run('trades', 'full');
      const outcome = run.then(
        () => 'resolved',
        (error: Error) => error.message,
      );
      expect(venue.pages.length).toBeGreaterThan(2);
      // the second page fails first, then the first: the run reports the first page's failure
      venue.pages[1]?.reject(new Error('page 2: HTTP 500'));
      await new Promise((resolve) => setImmediate(resolve));
      venue.pages[0]?.reject(new Error('page 1: HTTP 500'));
      for (const page of venue.pages.slice(2)) page.reject(new Error('later page: HTTP 500'));
      expect(await outcome).toBe('page 1: HTTP 500');
      await new Promise((resolve) => setTimeout(resolve, 20));
      expect(unhandled).toEqual([]);
    } finally {
      process.off('unhandledRejection', onUnhandled);
    }
  });
});

/** A venue transaction list and a ledger that refuses to store the legs named in `failing`, once each. */
class TransactionVenue {
  legs: TransactionRecord[] = [];
  readonly fromFilters: Array<string | undefined> = [];
  async *iterateTransactions(): AsyncIterable<TransactionRecord> {
    yield* this.legs;
  }
  listTransactions(filter: { from?: string; transactionState?: string }): Promise<Page<TransactionRecord>> {
    const state = filter.transactionState;
    if (state !== undefined) return Promise.resolve(pageOf(this.legs.filter((l) => l.transactionState === state)));
    this.fromFilters.push(filter.from);
    const from = filter.from === undefined ? 0 : Date.parse(filter.from);
    return Promise.resolve(pageOf(this.legs.filter((leg) => (leg.received ?? 0) >= from)));
  }
}

class RefusingLedger implements TransactionIntake {
  readonly offered: string[] = [];
  readonly failing = new Set<string>();
  ingest(record: TransactionRecord): Promise<IngestResult> {
    this.offered.push(record.uuid);
    if (this.failing.delete(record.uuid)) return Promise.reject(new Error('ledger unavailable: no stream'));
    return Promise.resolve({ kind: 'stored' });
  }
}

function leg(
  uuid: string,
  received: number,
  state: TransactionRecord['transactionState'] = 'PROCESSED',
): TransactionRecord {
  return {
    uuid,
    transactionClass: 'CASH',
    amount: '1.00',
    ccy: 'USD',
    transactionState: state,
    transactionType: 'DEPOSIT',
    received,
    displayTitle: null,
    displayDescription: null,
    paymentTransferType: null,
    beneficiaryUuid: null,
  };
}

describe('SyncEngine transaction list → ledger', () => {
  it('a leg the ledger could not store is offered again by the next read (the first full read is read again)', async () => {
    const venue = new TransactionVenue();
    venue.legs = [leg('a', 1_000), leg('b', 2_000)];
    const ledger = new RefusingLedger();
    ledger.failing.add('a');
    const engine = engineFor(venue, ledger);
    await expect(engine.run('transactions', 'full')).rejects.toThrow('ledger unavailable');
    expect(engine.transactions.has('a')).toBe(false);
    await engine.run('transactions', 'incremental');
    expect(ledger.offered).toEqual(['a', 'b', 'a']); // b was stored: not offered twice
    expect(venue.fromFilters).toEqual([]); // the failed full read was read in full again
    await engine.run('transactions', 'incremental');
    expect(ledger.offered).toHaveLength(3);
    // what is new (no window), then the sweep from the newest leg held
    expect(venue.fromFilters).toEqual([undefined, new Date(2_000).toISOString()]);
  });

  it('a leg that failed in an incremental read is offered again by the next one', async () => {
    const venue = new TransactionVenue();
    venue.legs = [leg('a', 1_000)];
    const ledger = new RefusingLedger();
    const engine = engineFor(venue, ledger);
    await engine.run('transactions', 'full');
    venue.legs = [leg('a', 1_000), leg('c', 3_000), leg('d', 4_000)];
    ledger.failing.add('c');
    await expect(engine.run('transactions', 'incremental')).rejects.toThrow('ledger unavailable');
    await engine.run('transactions', 'incremental');
    expect(ledger.offered.filter((uuid) => uuid === 'c')).toHaveLength(2);
    expect(ledger.offered.filter((uuid) => uuid === 'd')).toHaveLength(1);
    expect(engine.transactions.has('c')).toBe(true);
  });
});

describe('SyncEngine incremental reads never skip what a full read would find', () => {
  function trade(i: number): Trade {
    return {
      uuid: `t-${i}`,
      tradeRef: `R-${i}`,
      createdAt: new Date(1_000_000 - i * 1_000).toISOString(),
      tradeSide: 'BUY',
      state: 'SETTLED',
    };
  }

  /**
   * The venue's trade list (newest first, pages by offset); the page at `failOffset` fails once; the trades at
   * the `unreadable` positions are sent but cannot be read (the client leaves them out of `data`).
   */
  class TradeVenue {
    failOffset: number | undefined;
    readonly unreadable = new Set<number>();
    constructor(readonly trades: Trade[]) {}
    listTrades(request: { max?: number; offset?: number }): Promise<Page<Trade>> {
      const offset = request.offset ?? 0;
      if (offset === this.failOffset) {
        this.failOffset = undefined;
        return Promise.reject(new Error('HTTP 500'));
      }
      const sent = this.trades.slice(offset, offset + (request.max ?? 50));
      const read = sent.filter((_, i) => !this.unreadable.has(offset + i));
      return Promise.resolve(pageOf(read, sent.length - read.length));
    }
    listAllTrades(filter: { from?: string; tradeState?: string }): Promise<Trade[]> {
      const from = filter.from === undefined ? 0 : Date.parse(filter.from);
      return Promise.resolve(
        this.trades.filter(
          (t) =>
            Date.parse(t.createdAt ?? '') >= from && (filter.tradeState === undefined || t.state === filter.tradeState),
        ),
      );
    }
  }

  /** A mirror holding what it was given. */
  class HeldTrades {
    readonly held = new Map<string, Trade>();
    apply(fresh: Map<string, Trade>) {
      for (const [key, value] of fresh) this.held.set(key, value);
      return Promise.resolve({ created: fresh.size, changed: 0, removed: 0 });
    }
    values(): Trade[] {
      return [...this.held.values()];
    }
    get size(): number {
      return this.held.size;
    }
  }

  it('after a failed full trade read the next read is a full one, not one from the newest trade held', async () => {
    const venue = new TradeVenue(Array.from({ length: 450 }, (_, i) => trade(i)));
    venue.failOffset = 200;
    const mirror = new HeldTrades();
    const engine = engineFor(venue, undefined, { trade: mirror });
    await expect(engine.run('trades', 'full')).rejects.toThrow('HTTP 500');
    expect(mirror.size).toBeLessThan(450);
    await engine.run('trades', 'incremental');
    expect(mirror.size).toBe(450);
  });

  it('a full trade read pages by the rows the venue sent: an unreadable row does not end it early', async () => {
    const venue = new TradeVenue(Array.from({ length: 450 }, (_, i) => trade(i)));
    venue.unreadable.add(10); // on the first page: read, 199 of 200 rows
    const mirror = new HeldTrades();
    const engine = engineFor(venue, undefined, { trade: mirror });
    await engine.run('trades', 'full');
    expect(mirror.size).toBe(449);
    expect(mirror.held.has('t-449')).toBe(true);
  });

  it('a held PENDING leg older than the read window that left PENDING is read again with its new state', async () => {
    const venue = new TransactionVenue();
    venue.legs = [leg('old', 1_000, 'PENDING'), leg('new', 5_000)];
    const ledger = new RefusingLedger();
    const engine = engineFor(venue, ledger);
    await engine.run('transactions', 'full');
    venue.legs = [leg('old', 1_000, 'PROCESSED'), leg('new', 5_000)]; // its webhook was lost
    await engine.run('transactions', 'incremental');
    expect(engine.transactions.get('old')?.transactionState).toBe('PROCESSED');
    expect(ledger.offered.filter((uuid) => uuid === 'old')).toHaveLength(2);
    await engine.run('transactions', 'incremental'); // nothing pending any more: from the newest again
    expect(venue.fromFilters.at(-1)).toBe(new Date(5_000).toISOString());
  });

  it('beneficiaries are not read while no account group is known: nothing is removed', async () => {
    const applied: unknown[] = [];
    const beneficiary = { apply: (...args: unknown[]) => applied.push(args) };
    const engine = engineFor({}, undefined, { beneficiary });
    await expect(engine.run('beneficiaries', 'incremental')).rejects.toThrow('no account groups known yet');
    expect(applied).toEqual([]);
  });

  it('a participant read that left out an unreadable row removes nothing (its record may be the one held)', async () => {
    const scopes: unknown[] = [];
    const mirror = {
      apply: (_fresh: unknown, scope?: (key: string) => boolean) => {
        scopes.push(scope === undefined ? 'returned only' : scope('held-elsewhere') ? 'every key' : 'some keys');
        return Promise.resolve({ created: 0, changed: 0, removed: 0 });
      },
    };
    let unreadable = 1;
    const engine = engineFor({ listAllSenders: () => Promise.resolve({ records: [], unreadable }) }, undefined, {
      sender: mirror,
    });
    engine.groups = [{ uuid: 'g-1' }];
    await engine.run('senders', 'incremental');
    unreadable = 0;
    await engine.run('senders', 'incremental');
    expect(scopes).toEqual(['returned only', 'every key']);
  });
});
