/**
 * Whether the withdrawal records' restoration from the venue's lists (WD9) is pending, since when and why — what
 * operators are told: `account_sync_withdrawals_restoring_seconds` (0 when done) and, once it has failed beyond a
 * grace period, the `withdrawals` check of /health, down with the reason. Pure: the desk keeps the value.
 */
import { WithdrawalErrorCode } from '#contracts';

export interface Restoring {
  /** When the first attempt of this episode failed (epoch ms). */
  since: number;
  failures: number;
  /** The last failure's message (the REST client's: no secret). */
  lastError: string;
}

/** Undefined: nothing pending (the ledger mark held, or written). */
export type RestoringState = Restoring | undefined;

/** The health detail's bound (a reason may be a long venue message). */
const MAX_DETAIL = 500;

export function restoreFailed(state: RestoringState, now: number, error: string): Restoring {
  return { since: state?.since ?? now, failures: (state?.failures ?? 0) + 1, lastError: error };
}

/** Whole seconds since the episode began; 0 when nothing is pending (or a clock stepped back). */
export function restoringSeconds(state: RestoringState, now: number): number {
  return state === undefined ? 0 : Math.max(0, Math.floor((now - state.since) / 1000));
}

/** The `withdrawals` check's finding once restoration has failed for `graceMs` or longer; else undefined. */
export function restoringHealth(
  state: RestoringState,
  now: number,
  graceMs: number,
): { up: false; detail: string } | undefined {
  if (state === undefined || now - state.since < graceMs) return undefined;
  const detail =
    `withdrawal records not restored for ${restoringSeconds(state, now)} s (NATS lost them; ${state.failures} ` +
    `attempts): submits of keys not held are refused ${WithdrawalErrorCode.Restoring}; last error: ${state.lastError}`;
  return { up: false, detail: detail.slice(0, MAX_DETAIL) };
}
