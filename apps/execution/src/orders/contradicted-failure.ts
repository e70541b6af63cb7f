/**
 * What execution does when the venue contradicts a published final outcome (`OrderContradiction`, spec-gaps K7),
 * as pure decisions — the shell (`contradicted-failures.ts`) reads and writes. The order's final state never
 * changes (one final outcome per order); only a FAILED the venue contradicts with evidence of execution is
 * repaired: the trade list by `clientRef` decides, as for an order of unknown outcome.
 */
import type { OrderContradiction, OrderCorrection } from '#contracts';
import { doublingDelay } from '#actors';
import type { Trade } from '#venue-api';
import { fillFromQuote, fillFromTrade } from './fill.js';
import { isFinalState, type OrderRecord } from './order-record.js';

export const CONTRADICTED_FAILURE_RESULTS = [
  'executed-after-failed',
  'failed-stands',
  'success-kept',
  'not-ours',
  'unreadable',
] as const;
export type ContradictedFailureResult = (typeof CONTRADICTED_FAILURE_RESULTS)[number];

export type ContradictionStep =
  /** No order of this app has the clientRequestId. */
  | { kind: 'not-ours' }
  /** The order is not settled and closed here yet (its actor may still be finishing): asked about again later. */
  | { kind: 'wait' }
  /** Nothing to repair: a SUCCESS stands (counted and logged only), or the venue's later word is not an execution. */
  | { kind: 'nothing'; result: ContradictedFailureResult }
  /** Concluded before (a redelivery after a crash): its order event is stored again if it was not. */
  | { kind: 'announce' }
  | { kind: 'read-trades' };

/** The first decision: whose order, and whether the trade list is needed. */
export function contradictionStep(
  record: OrderRecord | undefined,
  open: boolean,
  contradiction: OrderContradiction,
): ContradictionStep {
  if (record === undefined) return { kind: 'not-ours' };
  if (!isFinalState(record.state) || open) return { kind: 'wait' };
  if (record.state !== 'FAILED') return { kind: 'nothing', result: 'success-kept' };
  if (record.correction !== undefined) return { kind: 'announce' };
  // a FAILED contradicted by a FAILED is no contradiction; only SUCCESS says the order may have executed
  if (contradiction.status !== 'SUCCESS') return { kind: 'nothing', result: 'failed-stands' };
  return { kind: 'read-trades' };
}

export interface ReviewEnv {
  now: number;
  /** How often the contradiction was delivered (1 the first time): the backoff of the next look. */
  deliveries: number;
  /** After this long since the contradiction without a trade found, the FAILED stands (the venue's retention). */
  horizonMs: number;
  initialMs: number;
  maxMs: number;
}

export type ReviewVerdict = { kind: 'corrected'; correction: OrderCorrection } | { kind: 'ask-again'; delayMs: number };

/** Trades the venue undid (§3.2) are no execution that stands: nothing was booked in the end. */
const UNDONE_TRADE_STATES: readonly string[] = ['CANCELLED', 'FAILED'];

/**
 * The trade list's answer: the order's trade there (and not undone) → EXECUTED_AFTER_FAILED with its fill (the
 * quote's figures when the trade's cannot be read); none → asked again with a doubling backoff until the horizon,
 * then FAILED_STANDS; the list unreadable → asked again (never a conclusion from no answer).
 */
export function reviewVerdict(
  record: OrderRecord,
  contradiction: OrderContradiction,
  trades: Trade[] | 'unreachable' | undefined,
  env: ReviewEnv,
): ReviewVerdict {
  const mine = Array.isArray(trades) ? trades.filter((t) => t.clientRef === record.clientRequestId) : [];
  const standing = mine.find((t) => t.state === undefined || !UNDONE_TRADE_STATES.includes(t.state));
  const base = { source: contradiction.source, at: env.now };
  if (standing !== undefined) {
    const fill = fillFromTrade(record, standing) ?? fillFromQuote(record);
    return {
      kind: 'corrected',
      correction: {
        verdict: 'EXECUTED_AFTER_FAILED',
        ...base,
        ...(fill !== undefined ? { fill } : {}),
        tradeUuid: standing.uuid,
      },
    };
  }
  const since = contradiction.at > 0 ? contradiction.at : env.now;
  const undoneOnly = Array.isArray(trades) && mine.length > 0;
  if (undoneOnly || (Array.isArray(trades) && env.now - since >= env.horizonMs)) {
    return { kind: 'corrected', correction: { verdict: 'FAILED_STANDS', ...base } };
  }
  const delayMs = doublingDelay(Math.max(0, env.deliveries - 1), { initialMs: env.initialMs, maxMs: env.maxMs });
  return { kind: 'ask-again', delayMs };
}
