/**
 * How much of its limits a scope uses (0 = none, 1 = all), for the utilisation metric: the largest ratio over
 * the currencies a limit lists. Pure; computed for the scopes that traded at each scrape, as of `now` (the minute's
 * windows counted up to it, so a quiet hour reads 0, not the last order's use).
 */
import { Decimal } from '#venue-api';
import type { ScopedLimits } from './checks.js';
import type { RiskBook } from './risk-book.js';

export type UtilisedLimit = 'open_exposure' | 'notional_per_minute' | 'orders_per_minute';

export function utilisationOf(book: RiskBook, scoped: ScopedLimits, now: number): Map<UtilisedLimit, number> {
  const result = new Map<UtilisedLimit, number>();
  const { limits, key } = scoped;
  if (limits.maxOpenExposure) {
    result.set(
      'open_exposure',
      largestRatio(limits.maxOpenExposure, (currency) => {
        const { long, short } = book.worstExposure(key, currency);
        return Decimal.max(long.abs(), short.abs());
      }),
    );
  }
  const window = book.windowAsOf(key, now);
  if (limits.maxNotionalPerMinute) {
    result.set(
      'notional_per_minute',
      largestRatio(limits.maxNotionalPerMinute, (currency) => window.notional.get(currency) ?? new Decimal(0)),
    );
  }
  if (limits.maxOrdersPerMinute !== undefined) {
    const used = window.orders;
    result.set(
      'orders_per_minute',
      limits.maxOrdersPerMinute === 0 ? (used > 0 ? 1 : 0) : used / limits.maxOrdersPerMinute,
    );
  }
  return result;
}

function largestRatio(limits: ReadonlyMap<string, Decimal>, usedOf: (currency: string) => Decimal): number {
  let largest = 0;
  for (const [currency, limit] of limits) {
    const used = usedOf(currency);
    // a ratio for a gauge, not money: the one place a Decimal becomes a number
    const ratio = limit.isZero() ? (used.isZero() ? 0 : 1) : used.div(limit).toNumber();
    largest = Math.max(largest, ratio);
  }
  return largest;
}
