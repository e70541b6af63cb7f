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
 * Sources: the webhook receiver and the REST transaction-list sync (missed webhooks are filled from the list). The
 * list is the venue's signed word: a final state it keeps showing against a webhook's is a correction (WH12).
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
import { decideTransaction, type HeldLeg } from './transaction-decision.js';
import type { IngestResult, TransactionIntake, TransactionSource } from './transaction-intake.js';
import { legOf } from './transaction-leg.js';
import type { TransactionMetrics } from './transaction-metrics.js';
import { KeyedMailbox } from '#actors';

/** The ledger's store: appends with compare-and-set on a subject, and reads a subject's last entry. */
export interface TransactionStore {
  append(subject: string, json: string, msgId: string, expectedLastSeq: number): Promise<LedgerAppend>;
  last<T>(subject: string): Promise<LedgerEntry<T> | undefined>;
}

interface Held extends HeldLeg {
  seq: number;
  /** When this process stored it (undefined once read back from the stream: nothing left to check). */
  storedAt?: number;
}

/** A leg as the stream holds it (its last event). */
function heldOf(entry: LedgerEntry<TransactionStateChanged>): Held {
  const { state, source, corrected } = entry.value;
  return { state, seq: entry.seq, source, listed: source === 'list', corrected: corrected === true };
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
  /**
   * TRANSACTION_CORRECTION_AFTER_MS: how long the list must keep showing another final state than a webhook's before
   * the leg is corrected to it (a list read just before a genuine webhook shows the state before it).
   */
  correctionAfterMs?: number;
  /**
   * TRANSACTION_UNCONFIRMED_AFTER_MS: a leg a webhook gave first that no list read started this long after it has
   * shown is flagged unconfirmed (WH13).
   */
  unconfirmedAfterMs?: number;
  now?: () => number;
}

const MAX_ROUNDS = 4;
const VERIFY_AFTER_MS = 30_000;
const CORRECTION_AFTER_MS = 60_000;
/** Disputed legs remembered (a bound: a flood of disputes forgets the oldest, which start again). */
const MAX_DISPUTES = 10_000;
const UNCONFIRMED_AFTER_MS = 600_000;
/** Webhook-only legs awaiting the list's sight (a bound: a flood forgets the oldest, never flagged). */
const MAX_AWAITING_LIST = 10_000;
/** How far back a start looks for webhook-only legs still awaiting the list (WH13). */
export const AWAITING_LOOKBACK_MS = 24 * 3_600_000;

/** Reads the ledger's events stored since an instant (epoch ms), in order. */
export type LedgerHistory = (
  since: number,
  each: (event: TransactionStateChanged | undefined) => void,
) => Promise<void>;

export class TransactionLedger implements TransactionIntake {
  private readonly mailbox = new KeyedMailbox();
  private readonly held = new Map<string, Held>();
  private readonly cacheSize: number;
  private readonly verifyAfterMs: number;
  private readonly correctionAfterMs: number;
  /** uuid → the final state the list showed against a webhook's, and since when. */
  private readonly disputes = new Map<string, { state: TransactionLegState; since: number }>();
  private readonly unconfirmedAfterMs: number;
  /** uuid → a leg a webhook gave first (the stream had nothing of it), not yet shown by the list: since when. */
  private readonly awaitingList = new Map<string, { since: number; state: TransactionLegState }>();
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
    this.correctionAfterMs = options.correctionAfterMs ?? CORRECTION_AFTER_MS;
    this.unconfirmedAfterMs = options.unconfirmedAfterMs ?? UNCONFIRMED_AFTER_MS;
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

  /**
   * Legs a webhook gave first that a list read started `unconfirmedAfterMs` or more after them did not show: counted
   * and warned once each (WH13). The list is the venue's signed word; an allowed sender's notification alone is not.
   * Held in memory; a restart rebuilds them from the ledger (`restoreAwaitingList`).
   */
  listRead(startedAt: number): void {
    for (const [uuid, awaiting] of this.awaitingList) {
      if (awaiting.since + this.unconfirmedAfterMs > startedAt) break; // in order of arrival: the rest are younger
      this.awaitingList.delete(uuid);
      this.metrics.unconfirmed.inc();
      this.logger.warn("a transaction only a webhook gave is not in the venue's list", {
        uuid: uuid.slice(0, 64),
        state: awaiting.state,
        sinceMs: startedAt - awaiting.since,
      });
    }
  }

  /**
   * At start, before any list read: legs whose first event (within `AWAITING_LOOKBACK_MS`) came from a webhook and
   * that no list event has shown await the list again, from when they were stored — so a restart does not forget
   * them (WH13). A leg whose first event is older is left alone (it may have been listed before the window).
   * Returns how many.
   */
  async restoreAwaitingList(history: LedgerHistory): Promise<number> {
    const legs = new Map<string, { since: number; state: TransactionLegState; awaiting: boolean }>();
    await history(this.now() - AWAITING_LOOKBACK_MS, (event) => {
      if (event === undefined || typeof event.uuid !== 'string') return;
      const leg = legs.get(event.uuid);
      if (leg === undefined) {
        const firstFromWebhook = event.previousState === null && event.source === 'webhook';
        legs.set(event.uuid, { since: event.storedAt, state: event.state, awaiting: firstFromWebhook });
        return;
      }
      leg.state = event.state;
      if (event.source === 'list') leg.awaiting = false;
    });
    let restored = 0;
    for (const [uuid, leg] of legs) {
      if (!leg.awaiting || this.awaitingList.has(uuid)) continue;
      this.awaitList(uuid, leg.state, leg.since);
      restored += 1;
    }
    return restored;
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
    if (source === 'list') this.awaitingList.delete(record.uuid);
    let held = this.held.get(record.uuid);
    if (held?.storedAt !== undefined && source === 'list' && this.now() - held.storedAt >= this.verifyAfterMs) {
      held = await this.readBack(record.uuid, subject, held);
    }
    let msgIdSuffix = '';
    for (let round = 0; round < MAX_ROUNDS; round += 1) {
      const decision = decideTransaction(held, incoming, source);
      if (decision.kind === 'duplicate') {
        if (source === 'list' && held !== undefined && !held.listed)
          this.remember(record.uuid, { ...held, listed: true });
        this.disputes.delete(record.uuid);
        return { kind: 'duplicate' };
      }
      if (decision.kind === 'stale') {
        this.logger.info('older transaction state ignored', {
          uuid: record.uuid.slice(0, 64),
          incoming,
          held: decision.held,
          source,
        });
        return { kind: 'stale' };
      }
      const correction = decision.kind === 'disputed';
      if (correction && !this.disputeConfirmed(record.uuid, incoming, decision.held)) return { kind: 'disputed' };
      if (correction) msgIdSuffix = `:corrected${msgIdSuffix}`;
      const event: TransactionStateChanged = {
        v: 1,
        uuid: record.uuid,
        state: incoming,
        previousState: correction ? decision.held : decision.previousState,
        ...(correction ? { corrected: true as const } : {}),
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
        this.remember(record.uuid, {
          state: incoming,
          seq: appended.seq,
          storedAt: this.now(),
          source,
          listed: source === 'list',
          corrected: correction || (held?.corrected ?? false),
        });
        this.metrics.states.inc({ state: incoming });
        if (correction) {
          this.logger.warn("transaction corrected to the venue's list: a webhook's final state was not the venue's", {
            uuid: record.uuid.slice(0, 64),
            webhook: event.previousState,
            list: incoming,
          });
          return { kind: 'corrected' };
        }
        if (event.failed) {
          this.logger.warn('transaction did not complete', { uuid: record.uuid, state: incoming, source });
        }
        if (source === 'webhook' && (held?.seq ?? 0) === 0) this.awaitList(record.uuid, incoming);
        if (source === 'webhook') this.triggers?.refreshAfter({ kind: 'transaction', record });
        for (const listener of this.listeners) listener(event);
        return { kind: 'stored' };
      }
      if (appended.kind === 'duplicate') {
        // Trust, but verify: on a cluster, a leader lost in the middle of an append can leave its msgId in the
        // duplicate window without the message (seen on nats-server 2.9, R3). Only the stream proves it is held.
        const last = await this.store.last<TransactionStateChanged>(subject);
        const again = last && decideTransaction(heldOf(last), incoming, source);
        if (last !== undefined && again !== undefined && again.kind !== 'store') {
          this.remember(record.uuid, heldOf(last));
          return { kind: again.kind === 'stale' ? 'stale' : 'duplicate' };
        }
        this.logger.warn('a duplicate answer for a transaction state the stream does not hold; storing it again', {
          uuid: record.uuid,
          state: incoming,
        });
        held = last && heldOf(last);
        msgIdSuffix = `:again${round + 1}`;
        continue;
      }
      // The subject moved on (another writer, or a state this process no longer holds): read it and decide again.
      const last = await this.store.last<TransactionStateChanged>(subject);
      held = last && heldOf(last);
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
      const kept = last && heldOf(last);
      if (kept) this.remember(uuid, kept);
      else this.held.delete(uuid);
      return kept;
    }
    const checked = { ...heldOf(last), listed: held.listed || last.value.source === 'list' };
    this.remember(uuid, checked);
    return checked;
  }

  /**
   * The list shows `listed` against the webhook's `held`: true once it has shown it for `correctionAfterMs` (a list
   * read a moment old lags behind a genuine webhook); until then counted and said, once per leg.
   */
  private disputeConfirmed(uuid: string, listed: TransactionLegState, held: TransactionLegState): boolean {
    const now = this.now();
    const dispute = this.disputes.get(uuid);
    if (dispute !== undefined && dispute.state === listed) {
      if (now - dispute.since < this.correctionAfterMs) return false;
      this.disputes.delete(uuid);
      return true;
    }
    if (this.disputes.size >= MAX_DISPUTES) this.disputes.delete(this.disputes.keys().next().value as string);
    this.disputes.set(uuid, { state: listed, since: now });
    this.logger.warn(
      "the venue's list shows another final state than a webhook gave; corrected if it keeps saying so",
      {
        uuid: uuid.slice(0, 64),
        webhook: held,
        list: listed,
        correctionAfterMs: this.correctionAfterMs,
      },
    );
    return false;
  }

  /** The first state of a leg the stream held nothing of came from a webhook: the list is to show it. */
  private awaitList(uuid: string, state: TransactionLegState, since = this.now()): void {
    if (this.awaitingList.size >= MAX_AWAITING_LIST)
      this.awaitingList.delete(this.awaitingList.keys().next().value as string);
    this.awaitingList.set(uuid, { since, state });
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
