/**
 * The seam between the sources of transaction records (the webhook receiver, the REST transaction-list sync)
 * and the transaction ledger that owns each transaction's state (per uuid; PENDING → PROCESSED / REVERSED /
 * CANCELLED, monotonic), stores it durably and publishes every change exactly once on NATS.
 * Provided in Nest under the token `TRANSACTION_INTAKE`.
 */
import type { TransactionRecord } from '#venue-api';

export const TRANSACTION_INTAKE = Symbol('TRANSACTION_INTAKE');

export type TransactionSource = 'webhook' | 'list';

export type IngestResult =
  /** A new (uuid, state) was stored and its event published. */
  | { kind: 'stored' }
  /** This (uuid, state) was stored before: nothing new (still a success for the sender). */
  | { kind: 'duplicate' }
  /** An older state than the one held (e.g. PENDING after PROCESSED): kept out of the current state, counted. */
  | { kind: 'stale' }
  /** The list shows another final state than a webhook gave: not stored yet (corrected if it keeps saying so). */
  | { kind: 'disputed' }
  /** The list's final state replaced a webhook's (stored and published with `corrected: true`). */
  | { kind: 'corrected' };

export interface TransactionIntake {
  /**
   * Resolves once the record is durably stored (or known to be); rejects when it cannot be stored (NATS down),
   * so the webhook receiver answers 5xx and the venue retries.
   */
  ingest(record: TransactionRecord, source: TransactionSource): Promise<IngestResult>;
  /**
   * A read of the venue's transaction list that started at `startedAt` (epoch ms) was handed over whole: a leg only
   * a webhook gave, stored long enough before it, that the read did not show is flagged unconfirmed (spec-gaps WH13).
   */
  listRead?(startedAt: number): void;
}
