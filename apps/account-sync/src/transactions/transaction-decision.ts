/**
 * The transaction ledger's transition table, pure: given the leg held for a uuid (if any), a notification's state
 * and where it came from, what to do. States only move forward (`canFollowTransactionState`), whatever order
 * notifications arrive in; the same (uuid, state) twice is a duplicate.
 *
 * The two sources are not equal (spec-gaps WH12): a webhook is authenticated by its sender's address alone, the
 * transaction list is the venue's answer to our signed request. When the list shows another final state than the
 * one a webhook gave (and the list never showed), the leg is *disputed*; the ledger corrects it to the list's state
 * once the list keeps saying so (a list read a moment old can lag behind a genuine webhook). A leg the list
 * corrected is not moved by webhooks any more.
 */
import { canFollowTransactionState, type TransactionLegState } from '#contracts';
import type { TransactionSource } from './transaction-intake.js';

export interface HeldLeg {
  readonly state: TransactionLegState;
  /** Where the held state was learnt. */
  readonly source: TransactionSource;
  /** The venue's list has shown the held state (its own, signed word). */
  readonly listed: boolean;
  /** The list corrected a webhook's state of this leg. */
  readonly corrected: boolean;
}

export type TransactionDecision =
  | { kind: 'store'; previousState: TransactionLegState | null }
  | { kind: 'duplicate' }
  /** Older than (or a different final state of the same rank as) the one held: counted, never published. */
  | { kind: 'stale'; held: TransactionLegState }
  /** The list shows another final state than a webhook's, which the list never showed: corrected once confirmed. */
  | { kind: 'disputed'; held: TransactionLegState };

export function decideTransaction(
  held: HeldLeg | undefined,
  incoming: TransactionLegState,
  source: TransactionSource,
): TransactionDecision {
  if (held === undefined) return { kind: 'store', previousState: null };
  if (held.state === incoming) return { kind: 'duplicate' };
  if (canFollowTransactionState(held.state, incoming)) {
    // a webhook proved wrong about this leg does not move it again: the list does
    return source === 'webhook' && held.corrected
      ? { kind: 'stale', held: held.state }
      : { kind: 'store', previousState: held.state };
  }
  if (
    source === 'list' &&
    held.source === 'webhook' &&
    !held.listed &&
    held.state !== 'PENDING' &&
    incoming !== 'PENDING'
  ) {
    return { kind: 'disputed', held: held.state };
  }
  return { kind: 'stale', held: held.state };
}
