/**
 * What execution writes back when its trading-state store (the NATS KV bucket of trading states and limit
 * overrides) is found declared afresh: NATS lost it — a server restarted on an empty store, a lost disk — and an
 * empty bucket reads as "every scope ACTIVE, no override". A kill switch must not be lifted by a lost disk, so an
 * instance that knew the controls before writes them back before it takes an order again. Pure.
 *
 * - Every scope it knew HALTED or REDUCING, and every limit override it knew, is written back, attributed to the
 *   gateway, its reason naming who set it, when and why. A scope it knew ACTIVE is not: absent reads ACTIVE.
 * - Each is written only where the new bucket holds nothing for the key (compare-and-set on "no value"): what is
 *   there was written after the loss — another instance's restore, or an operator's decision — and is newer.
 *   So with several instances the first to notice restores, the others find it done; an operator who lifts a halt
 *   after the loss is never overridden by an instance that notices later.
 * - A process that knew nothing (started while the store was gone) cannot tell a lost store from a first start:
 *   it restores nothing and the scopes read ACTIVE, as at a first start (`TRADING_KILL_SWITCH=true` halts every
 *   start where that is not acceptable). docs/execution-risk.md, "NATS lost the store".
 */
import type { RiskLimitOverride, TradingState, TradingStateEntry } from '#contracts';
import type { StoredLimits, StoredState } from './risk-store.js';

/** Who a restored control is attributed to. */
export const RESTORED_BY = 'gateway';
/** `via` of a restore's audit record. */
export const RESTORED_VIA = 'store-loss';

/** The controls an instance held when it found the store declared afresh. */
export interface KnownControls {
  states: readonly TradingStateEntry[];
  overrides: readonly RiskLimitOverride[];
}

export interface Restoration {
  /** Most severe first (HALTED before REDUCING), global before account groups before strategies. */
  states: StoredState[];
  limits: StoredLimits[];
}

/** The contract's bound on a reason (TradingStateChange, RiskLimitsChange). */
const REASON_MAX = 1024;
const SEVERITY: Record<TradingState, number> = { ACTIVE: 0, REDUCING: 1, HALTED: 2 };
const SCOPE_ORDER = { global: 0, accountGroup: 1, strategy: 2 } as const;

/** What to write back, at `at` (ISO), of what was known. */
export function restorationAfterLoss(known: KnownControls, at: string): Restoration {
  const states = known.states
    .filter((entry) => entry.state !== 'ACTIVE')
    .sort((a, b) => SEVERITY[b.state] - SEVERITY[a.state] || SCOPE_ORDER[a.scope] - SCOPE_ORDER[b.scope])
    .map((entry) => ({ ...scopeOf(entry), state: entry.state, by: RESTORED_BY, reason: restoredReason(entry), at }));
  const limits = known.overrides.map((override) => ({
    ...scopeOf(override),
    limits: override.limits,
    by: RESTORED_BY,
    reason: restoredReason(override),
    at,
  }));
  return { states, limits };
}

/** Says it was restored, and who had set it, when and why (cut to the contract's bound). */
export function restoredReason(was: { by: string; at: string; reason: string }): string {
  const reason = `restored after the NATS store was lost; set by ${was.by || 'unknown'} at ${was.at || 'unknown'}: ${was.reason}`;
  return reason.length <= REASON_MAX ? reason : `${reason.slice(0, REASON_MAX - 1)}…`;
}

function scopeOf(entry: { scope: TradingStateEntry['scope']; id?: string }) {
  return { scope: entry.scope, ...(entry.id !== undefined ? { id: entry.id } : {}) };
}
