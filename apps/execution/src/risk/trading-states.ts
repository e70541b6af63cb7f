/**
 * Trading states ACTIVE / REDUCING / HALTED per scope (global, account group, strategy) as this instance
 * knows them from the store (a NATS KV bucket every instance watches). Pure. A scope never set is ACTIVE.
 * While the store cannot be read the view is not `readable` and every order is refused (fail closed): a halt
 * written by another instance might be missed otherwise.
 */
import type { RiskScopeKind, TradingState, TradingStateEntry } from '#contracts';
import { scopeKey, type ScopeKey } from './limits.js';

export interface TradingStates {
  readonly readable: boolean;
  readonly entries: ReadonlyMap<ScopeKey, TradingStateEntry>;
}

export const unreadableStates: TradingStates = { readable: false, entries: new Map() };

const SEVERITY: Record<TradingState, number> = { ACTIVE: 0, REDUCING: 1, HALTED: 2 };

export function activeEntry(scope: RiskScopeKind, id?: string): TradingStateEntry {
  return { scope, ...(id !== undefined ? { id } : {}), state: 'ACTIVE', by: '', reason: '', at: '', revision: 0 };
}

export function stateOf(states: TradingStates, scope: RiskScopeKind, id?: string): TradingStateEntry {
  return states.entries.get(scopeKey(scope, id)) ?? activeEntry(scope, id);
}

/**
 * Applies a stored entry. An entry older (by KV revision) than the one held is ignored, so the watch's copy of
 * a change this instance already applied after writing it cannot take the view back.
 */
export function withEntry(states: TradingStates, entry: TradingStateEntry): TradingStates {
  const key = scopeKey(entry.scope, entry.id);
  const held = states.entries.get(key);
  if (held !== undefined && held.revision >= entry.revision) return states;
  return { ...states, entries: new Map(states.entries).set(key, entry) };
}

/** A scope's entry removed from the store (purged): ACTIVE again. */
export function withoutEntry(states: TradingStates, scope: RiskScopeKind, id?: string): TradingStates {
  const key = scopeKey(scope, id);
  if (!states.entries.has(key)) return states;
  const entries = new Map(states.entries);
  entries.delete(key);
  return { ...states, entries };
}

export function withReadable(states: TradingStates, readable: boolean): TradingStates {
  return states.readable === readable ? states : { ...states, readable };
}

/** The scopes of an order that are not ACTIVE, most severe first (HALTED before REDUCING; global first). */
export function restrictionsFor(
  states: TradingStates,
  order: { strategyId: string; accountGroup: string },
): TradingStateEntry[] {
  const scopes = [
    stateOf(states, 'global'),
    stateOf(states, 'accountGroup', order.accountGroup),
    stateOf(states, 'strategy', order.strategyId),
  ];
  return scopes.filter((entry) => entry.state !== 'ACTIVE').sort((a, b) => SEVERITY[b.state] - SEVERITY[a.state]);
}
