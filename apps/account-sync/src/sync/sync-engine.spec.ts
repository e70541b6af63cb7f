import { describe, expect, it } from '@jest/globals';
import { JsonLogger, MetricsRegistry } from '#observability';
import type { Trade, TransactionRecord, VenueRestClient } from '#venue-api';
import type { IngestResult, TransactionIntake } from '../transactions/transaction-intake.js';
import { SyncEngine, type Mirrors } from './sync-engine.js';
import { SyncMetrics } from './sync-metrics.js';
import { SYNC_RESOURCES } from './sync-triggers.js';

const quiet = new JsonLogger('test', 'sync-engine', 'error', { write: () => undefined });

/** A venue whose trade pages answer in the order the test settles them. */
class ScriptedTrades {
  readonly pages: Array<{ resolve(page: { data: Trade[] }): void; reject(error: Error): void }> = [];
  listTrades(): Promise<{ data: Trade[] }> {
    return new Promise((resolve, reject) => this.pages.push({ resolve, reject }));
  }
}

/** An engine on a scripted venue (and ledger); trades go to a mirror that accepts everything. */
function engineFor(client: object, intake?: TransactionIntake): SyncEngine {
  const trade = { apply: () => Promise.resolve({ created: 0, changed: 0, stateChanged: 0, removed: 0 }), size: 0 };
  return new SyncEngine({
    client: client as unknown as VenueRestClient,
    mirrors: { trade } as unknown as Mirrors,
    intake,
    publishDrift: () => Promise.resolve(),
    metrics: new SyncMetrics(new MetricsRegistry('t', { defaultMetrics: false }), () => undefined, SYNC_RESOURCES),
    logger: quiet,
    now: () => 0,
    overlapMs: 0,
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
  listTransactions(filter: { from?: string; transactionState?: string }): Promise<{ data: TransactionRecord[] }> {
    if (filter.transactionState !== undefined) return Promise.resolve({ data: [] });
    this.fromFilters.push(filter.from);
    const from = filter.from === undefined ? 0 : Date.parse(filter.from);
    return Promise.resolve({ data: this.legs.filter((leg) => (leg.received ?? 0) >= from) });
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

function leg(uuid: string, received: number): TransactionRecord {
  return {
    uuid,
    transactionClass: 'CASH',
    amount: '1.00',
    ccy: 'USD',
    transactionState: 'PROCESSED',
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
    expect(venue.fromFilters).toEqual([new Date(2_000).toISOString()]);
  });

  it('after a failed incremental read the next one starts no later than the leg that failed', async () => {
    const venue = new TransactionVenue();
    venue.legs = [leg('a', 1_000)];
    const ledger = new RefusingLedger();
    const engine = engineFor(venue, ledger);
    await engine.run('transactions', 'full');
    venue.legs = [leg('a', 1_000), leg('c', 3_000), leg('d', 4_000)];
    ledger.failing.add('c');
    await expect(engine.run('transactions', 'incremental')).rejects.toThrow('ledger unavailable');
    await engine.run('transactions', 'incremental');
    expect(venue.fromFilters.at(-1)).toBe(new Date(3_000).toISOString());
    expect(ledger.offered.filter((uuid) => uuid === 'c')).toHaveLength(2);
    expect(ledger.offered.filter((uuid) => uuid === 'd')).toHaveLength(1);
    expect(engine.transactions.has('c')).toBe(true);
  });
});
