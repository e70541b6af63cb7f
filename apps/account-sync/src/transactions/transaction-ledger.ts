/**
 * The transaction ledger: owns each transaction's state (per uuid), stores every new (uuid, state) on the
 * durable transaction stream BEFORE it answers, and so publishes each change exactly once:
 *
 *  - the stream message is both the durable record and the publication (`Nats-Msg-Id` = `uuid:state`; the
 *    last message of a uuid's subject is its current state);
 *  - an append names the last sequence seen on the uuid's subject (compare-and-set), so a second writer —
 *    another process, or this one after a restart — cannot move a transaction twice or backwards;
 *  - work for one uuid runs one at a time (a mailbox per uuid); the decision is the pure
 *    `decideTransaction` table; states held are cached (bounded), the stream stays the truth.
 *
 * Sources: the webhook receiver and the REST transaction-list sync (missed webhooks are filled from the list).
 */
import {
  transactionEventMsgId,
  transactionOutcomeOf,
  type TransactionLegState,
  type TransactionStateChanged,
  type TransactionSubjects,
} from '#contracts';
import type { LedgerEntry, LedgerAppend } from '#bus';
import type { JsonLogger } from '#observability';
import type { TransactionRecord } from '#venue-api';
import type { SyncTriggers } from '../sync/sync-triggers.js';
import { decideTransaction } from './transaction-decision.js';
import type { IngestResult, TransactionIntake, TransactionSource } from './transaction-intake.js';
import { legOf } from './transaction-leg.js';
import type { TransactionMetrics } from './transaction-metrics.js';
import { KeyedMailbox } from '#actors';

/** The ledger's store: appends with compare-and-set on a subject, and reads a subject's last entry. */
export interface TransactionStore {
  append(subject: string, json: string, msgId: string, expectedLastSeq: number): Promise<LedgerAppend>;
  last<T>(subject: string): Promise<LedgerEntry<T> | undefined>;
}

interface Held {
  state: TransactionLegState;
  seq: number;
  /** When this process stored it (undefined once read back from the stream: nothing left to check). */
  storedAt?: number;
}

export interface TransactionLedgerOptions {
  /** States held in memory (a cache: the stream is the truth). */
  cacheSize?: number;
  /**
   * How long after storing a state the transaction list's next sight of it reads it back from the stream
   * (once). On a cluster a failover can lose a message it acknowledged (seen on nats-server 2.9, R3): the
   * list then stores it again rather than calling it a duplicate from memory.
   */
  verifyAfterMs?: number;
  now?: () => number;
}

const MAX_ROUNDS = 4;
const VERIFY_AFTER_MS = 30_000;

export class TransactionLedger implements TransactionIntake {
  private readonly mailbox = new KeyedMailbox();
  private readonly held = new Map<string, Held>();
  private readonly cacheSize: number;
  private readonly verifyAfterMs: number;
  private readonly now: () => number;
  private triggers: SyncTriggers | undefined;
  private readonly listeners: Array<(event: TransactionStateChanged) => void> = [];
  private storeFailing = false;
  private lastFailure: string | undefined;

  constructor(
    private readonly store: TransactionStore,
    private readonly subjects: TransactionSubjects,
    private readonly metrics: TransactionMetrics,
    private readonly logger: JsonLogger,
    options: TransactionLedgerOptions = {},
  ) {
    this.cacheSize = options.cacheSize ?? 100_000;
    this.verifyAfterMs = options.verifyAfterMs ?? VERIFY_AFTER_MS;
    this.now = options.now ?? Date.now;
  }

  /** After a webhook stored a change, the REST sync reads what it touched again (balances, the trade). */
  useSyncTriggers(triggers: SyncTriggers): void {
    this.triggers = triggers;
  }

  /** Called after each state stored (a WITHDRAWAL leg makes the withdrawals read the venue's lists at once). */
  onStored(listener: (event: TransactionStateChanged) => void): void {
    this.listeners.push(listener);
  }

  /**
   * Down while the last attempt to store failed and the stream still cannot be read (a probe, so a store that
   * recovered reads as up even when no transaction arrived since).
   */
  async health(): Promise<{ up: boolean; detail?: string }> {
    if (!this.storeFailing) return { up: true };
    try {
      await this.store.last(this.subjects.changed('health-probe'));
      this.storeFailing = false;
      return { up: true };
    } catch {
      return { up: false, detail: `cannot store transactions: ${this.lastFailure}` };
    }
  }

  ingest(record: TransactionRecord, source: TransactionSource): Promise<IngestResult> {
    const started = this.now();
    return this.mailbox
      .run(record.uuid, () => this.settle(record, source))
      .then(
        (result) => {
          this.metrics.ingested.inc({ source, result: result.kind });
          this.metrics.storeSeconds.observe({ source }, (this.now() - started) / 1_000);
          return result;
        },
        (error: unknown) => {
          this.metrics.ingested.inc({ source, result: 'store_failed' });
          this.storeFailing = true;
          this.lastFailure = error instanceof Error ? error.message : String(error);
          throw error;
        },
      );
  }

  /** The current state of a transaction, from the stream. */
  async current(uuid: string): Promise<TransactionStateChanged | undefined> {
    const entry = await this.store.last<TransactionStateChanged>(this.subjects.changed(uuid));
    return entry?.value;
  }

  /** Resolves once every record accepted so far is settled (shutdown). */
  drained(): Promise<void> {
    return this.mailbox.drained();
  }

  private async settle(record: TransactionRecord, source: TransactionSource): Promise<IngestResult> {
    const subject = this.subjects.changed(record.uuid);
    const incoming = record.transactionState;
    let held = this.held.get(record.uuid);
    if (held?.storedAt !== undefined && source === 'list' && this.now() - held.storedAt >= this.verifyAfterMs) {
      held = await this.readBack(record.uuid, subject, held);
    }
    let msgIdSuffix = '';
    for (let round = 0; round < MAX_ROUNDS; round += 1) {
      const decision = decideTransaction(held?.state, incoming);
      if (decision.kind === 'duplicate') return { kind: 'duplicate' };
      if (decision.kind === 'stale') {
        this.logger.info('older transaction state ignored', {
          uuid: record.uuid,
          incoming,
          held: decision.held,
          source,
        });
        return { kind: 'stale' };
      }
      const event: TransactionStateChanged = {
        v: 1,
        uuid: record.uuid,
        state: incoming,
        previousState: decision.previousState,
        outcome: transactionOutcomeOf(incoming),
        failed: transactionOutcomeOf(incoming) === 'failed',
        source,
        storedAt: this.now(),
        leg: legOf(record),
      };
      const appended = await this.store.append(
        subject,
        JSON.stringify(event),
        transactionEventMsgId(record.uuid, incoming) + msgIdSuffix,
        held?.seq ?? 0,
      );
      this.storeFailing = false;
      if (appended.kind === 'stored') {
        this.remember(record.uuid, { state: incoming, seq: appended.seq, storedAt: this.now() });
        this.metrics.states.inc({ state: incoming });
        if (event.failed) {
          this.logger.warn('transaction did not complete', { uuid: record.uuid, state: incoming, source });
        }
        if (source === 'webhook') this.triggers?.refreshAfter({ kind: 'transaction', record });
        for (const listener of this.listeners) listener(event);
        return { kind: 'stored' };
      }
      if (appended.kind === 'duplicate') {
        // Trust, but verify: on a cluster, a leader lost in the middle of an append can leave its msgId in the
        // duplicate window without the message (seen on nats-server 2.9, R3). Only the stream proves it is held.
        const last = await this.store.last<TransactionStateChanged>(subject);
        if (last !== undefined && decideTransaction(last.value.state, incoming).kind !== 'store') {
          this.remember(record.uuid, { state: last.value.state, seq: last.seq });
          return { kind: 'duplicate' };
        }
        this.logger.warn('a duplicate answer for a transaction state the stream does not hold; storing it again', {
          uuid: record.uuid,
          state: incoming,
        });
        held = last && { state: last.value.state, seq: last.seq };
        msgIdSuffix = `:again${round + 1}`;
        continue;
      }
      // The subject moved on (another writer, or a state this process no longer holds): read it and decide again.
      const last = await this.store.last<TransactionStateChanged>(subject);
      held = last && { state: last.value.state, seq: last.seq };
      if (held) this.remember(record.uuid, held);
    }
    throw new Error(`transaction ${record.uuid.slice(0, 64)}: the stream kept moving; not stored`);
  }

  /** The stream's word on a state this process stored a while ago: kept if there, forgotten if lost. */
  private async readBack(uuid: string, subject: string, held: Held): Promise<Held | undefined> {
    const last = await this.store.last<TransactionStateChanged>(subject);
    if (last === undefined || last.seq < held.seq) {
      this.logger.warn('a transaction state stored earlier is not on the stream; storing it again', {
        uuid: uuid.slice(0, 64),
        state: held.state,
      });
      this.metrics.lost.inc();
      const kept = last && { state: last.value.state, seq: last.seq };
      if (kept) this.remember(uuid, kept);
      else this.held.delete(uuid);
      return kept;
    }
    const checked = { state: last.value.state, seq: last.seq };
    this.remember(uuid, checked);
    return checked;
  }

  private remember(uuid: string, held: Held): void {
    this.held.delete(uuid);
    this.held.set(uuid, held);
    if (this.held.size > this.cacheSize) {
      const oldest = this.held.keys().next();
      if (!oldest.done) this.held.delete(oldest.value);
    }
  }
}
