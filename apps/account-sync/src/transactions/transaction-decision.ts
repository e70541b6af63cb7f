/**
 * The transaction ledger's transition table, pure: given the state held for a uuid (if any) and a
 * notification's state, what to do. States only move forward (`canFollowTransactionState`), whatever order
 * notifications arrive in; the same (uuid, state) twice is a duplicate.
 */
import { canFollowTransactionState, type TransactionLegState } from '#contracts';

export type TransactionDecision =
  | { kind: 'store'; previousState: TransactionLegState | null }
  | { kind: 'duplicate' }
  /** Older than (or a different final state of the same rank as) the one held: counted, never published. */
  | { kind: 'stale'; held: TransactionLegState };

export function decideTransaction(
  held: TransactionLegState | undefined,
  incoming: TransactionLegState,
): TransactionDecision {
  if (held === incoming) return { kind: 'duplicate' };
  if (canFollowTransactionState(held, incoming)) return { kind: 'store', previousState: held ?? null };
  return { kind: 'stale', held: held as TransactionLegState };
}
