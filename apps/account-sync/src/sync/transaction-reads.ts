/**
 * The transaction list (R9, AS10): every leg goes to the transaction ledger (`ingest(record, 'list')`), which
 * publishes each (uuid, state) once — this is also how a missed webhook is filled. Full: the whole list; then what
 * is new at every run, and a few pages of the sweep at the periodic ones (list-walks.ts: every PENDING leg is read
 * again within two passes, with its new state).
 */
import type { TransactionRecord } from '#venue-api';
import type { TransactionIntake } from '../transactions/transaction-intake.js';
import { timeSpan } from './list-walks.js';
import { NewestFirstList, type WalkedPage } from './newest-first-list.js';
import type { ReadContext, SyncMode } from './read-context.js';
import { BalanceCheckState, type LegsByUuid } from './balance-check.js';
import { OldestPending } from './oldest-pending.js';

const TRANSACTION_PAGE = 200;
const INGEST_CONCURRENCY = 16;
const INGEST_BATCH = 200;

export class TransactionReads {
  /**
   * The balance check's state, kept as legs are held (a check costs what changed, AS8); it holds the legs
   * themselves too, once (`held` reads them).
   */
  readonly balanceCheck = new BalanceCheckState();
  /** Transaction legs read from the venue's list, by uuid (the `transaction-list` query and the balance check). */
  readonly held: LegsByUuid = this.balanceCheck.legs;
  /** The legs held PENDING, by booking time: where a sweep pass starts, without walking every leg held. */
  private readonly pending = new OldestPending();
  private readonly list: NewestFirstList;
  /** Received time of the newest leg held; the incremental read starts there (minus the overlap). */
  private newestAt: number | undefined;
  /** Set once a full read of the list ended well: until then every read is a full one. */
  private fullyRead = false;

  constructor(
    private readonly ctx: ReadContext,
    /** The transaction ledger (apps/account-sync/src/transactions); every list record goes to it. */
    private readonly intake: TransactionIntake | undefined,
  ) {
    this.list = new NewestFirstList({
      ...ctx,
      name: 'transaction',
      pageSize: TRANSACTION_PAGE,
      readPage: (request) => this.readPage(request),
      heldSpan: () => ({ newestHeld: this.newestAt, oldestPending: this.pending.oldest() }),
    });
  }

  async run(mode: SyncMode): Promise<void> {
    const startedAt = this.ctx.now();
    if (mode === 'full' || !this.fullyRead || this.newestAt === undefined) {
      await this.readAll();
      this.intake?.listRead?.(startedAt);
      this.fullyRead = true;
      this.list.endSweep();
    } else {
      await this.list.readRecent();
      if (mode === 'incremental') {
        const ended = await this.list.sweep();
        // A whole pass was handed over: a leg only a webhook gave that it did not show is flagged (WH13).
        if (ended !== undefined) this.intake?.listRead?.(ended.startedAt);
      }
    }
  }

  /** The whole list, page by page into the ledger, so a long history is handed over as it is read. */
  private async readAll(): Promise<void> {
    const { client, metrics, stop } = this.ctx;
    let batch: TransactionRecord[] = [];
    for await (const leg of client.iterateTransactions()) {
      batch.push(leg);
      if (batch.length === INGEST_BATCH) {
        await this.ingest(batch);
        metrics.records.inc({ resource: 'transactions' }, batch.length);
        batch = [];
        stop.check();
      }
    }
    await this.ingest(batch);
    metrics.records.inc({ resource: 'transactions' }, batch.length);
  }

  /** Reads one page of legs, hands it to the ledger, and tells what it saw. */
  private async readPage(request: { max: number; offset: number; from?: string }): Promise<WalkedPage> {
    const page = await this.ctx.client.listTransactions(request);
    const heldUnchanged = page.data.some((leg) => this.held.get(leg.uuid)?.transactionState === leg.transactionState);
    const span = timeSpan(page.data.map(legTimeOf));
    await this.ingest(page.data);
    this.ctx.metrics.records.inc({ resource: 'transactions' }, page.data.length);
    return { seen: { rows: page.rows, max: request.max, heldUnchanged, oldestAt: span.oldest }, newestAt: span.newest };
  }

  /**
   * Hands every new or changed leg to the ledger. A leg counts as held only once the ledger stored it: one the
   * ledger could not store (NATS unavailable) stays new, the read fails, and the next read starts no later
   * than that leg, so it is offered again — the list is how a lost webhook is filled, it must not lose one too.
   */
  private async ingest(legs: TransactionRecord[]): Promise<void> {
    const changed: TransactionRecord[] = [];
    for (const leg of legs) {
      const held = this.held.get(leg.uuid);
      if (held === undefined || held.transactionState !== leg.transactionState) changed.push(leg);
      else this.hold(leg);
    }
    const intake = this.intake;
    if (intake === undefined) {
      for (const leg of changed) this.hold(leg);
      return;
    }
    let next = 0;
    const failures: unknown[] = [];
    const worker = async () => {
      while (next < changed.length && failures.length === 0) {
        const leg = changed[next] as TransactionRecord;
        next += 1;
        try {
          // a disputed leg (WH12) is not held: the next read offers it again, until the ledger corrects it
          if ((await intake.ingest(leg, 'list')).kind !== 'disputed') this.hold(leg);
        } catch (error) {
          failures.push(error);
        }
      }
    };
    await Promise.all(Array.from({ length: Math.min(INGEST_CONCURRENCY, changed.length) }, worker));
    if (failures.length === 0) return;
    // The next sweep pass starts no later than the oldest leg not held (failed, or not offered after the failure);
    // the recent read walks down to where the last good one started.
    for (const leg of changed) {
      const at = legTimeOf(leg);
      if (this.held.get(leg.uuid) === leg || at === undefined) continue;
      if (this.newestAt !== undefined && at < this.newestAt) this.newestAt = at;
      this.list.readAgainFrom(at);
    }
    throw failures[0];
  }

  private hold(leg: TransactionRecord): void {
    this.balanceCheck.hold(leg);
    const at = legTimeOf(leg);
    if (leg.transactionState === 'PENDING' && at !== undefined) this.pending.pending(leg.uuid, at);
    else this.pending.settled(leg.uuid);
    if (at !== undefined && (this.newestAt === undefined || at > this.newestAt)) this.newestAt = at;
  }
}

/** The time a leg was booked (`received`, else `timestampMillis`). */
function legTimeOf(leg: TransactionRecord): number | undefined {
  return leg.received ?? leg.timestampMillis;
}
