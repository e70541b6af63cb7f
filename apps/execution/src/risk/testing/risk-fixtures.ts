/** Builders for the risk unit specs: an order on a live quote, limits from a file value, trading states. */
import type { RiskLimitsFile, RiskScopeKind, TradingState, TradingStateEntry } from '#contracts';
import { limitsConfigFrom, type LimitsConfig } from '../limits.js';
import type { RiskOrder, RiskQuote } from '../risk-gate.js';
import { withEntry, type TradingStates } from '../trading-states.js';

export const T0 = 1_700_000_000_000;

let next = 0;

/** BUY 1 BTC at 50000 USD (quoteAmount 50000) on a live quote issued at T0, expiring 10 minutes later. */
export function order(overrides: Partial<RiskOrder> = {}, quote: Partial<RiskQuote> = {}): RiskOrder {
  next += 1;
  return {
    orderId: `o-${next}`,
    strategyId: 'alpha',
    accountGroup: 'g1',
    side: 'BUY',
    instrument: 'BTC.USD',
    ...overrides,
    quote: {
      quoteId: `q-${next}`,
      status: 'live',
      venueTimestamp: T0,
      quoteExpiresAt: T0 + 600_000,
      price: '50000',
      quantity: '1',
      quoteAmount: '50000',
      ...(overrides.quote ?? {}),
      ...quote,
    },
  };
}

export function limits(file: RiskLimitsFile = {}): LimitsConfig {
  return limitsConfigFrom(file);
}

export function entry(scope: RiskScopeKind, state: TradingState, id?: string, revision = 1): TradingStateEntry {
  return {
    scope,
    ...(id !== undefined ? { id } : {}),
    state,
    by: 'ops',
    reason: 'test',
    at: new Date(T0).toISOString(),
    revision,
  };
}

export function states(...entries: TradingStateEntry[]): TradingStates {
  return entries.reduce(withEntry, { readable: true, entries: new Map() } as TradingStates);
}
