/**
 * The pre-trade checks, each a pure function of (book, limits, trading states, order, now) that refuses with a
 * code and the values that caused it, or passes. `decide` runs them in a fixed order and returns the first
 * refusal: trading states, then the quote, then the limits of each scope (global, strategy, account group).
 * The order is documented in docs/execution-risk.md.
 */
import { RiskCode, type RiskScopeKind } from '#contracts';
import { toPlain } from '#venue-api';
import type { RiskDecision, RiskRefusal } from './risk-gate.js';
import { resolveLimits, scopeKey, type Limits, type LimitsConfig, type ScopeKey } from './limits.js';
import { deltasOf, MINUTE_MS, SECOND_MS, type RiskBook } from './risk-book.js';
import { factsOf, type OrderFacts } from './order-facts.js';
import { refusal } from './refusal.js';
import { restrictionsFor, type TradingStates } from './trading-states.js';
import type { RiskOrder } from './risk-gate.js';

export interface ScopedLimits {
  readonly key: ScopeKey;
  readonly scope: RiskScopeKind;
  readonly id?: string;
  readonly limits: Limits;
}

export interface CheckInput {
  readonly facts: OrderFacts;
  readonly book: RiskBook;
  readonly limits: readonly ScopedLimits[];
  readonly states: TradingStates;
  readonly now: number;
}

export type Check = (input: CheckInput) => RiskRefusal | undefined;

/** Trading states: refused while they cannot be read (fail closed) or while any scope of the order is HALTED. */
export function tradingStateRefusal(
  states: TradingStates,
  order: Pick<RiskOrder, 'strategyId' | 'accountGroup'>,
): RiskRefusal | undefined {
  if (!states.readable) {
    return refusal(
      RiskCode.TradingStateUnavailable,
      'trading states cannot be read from NATS; orders are refused until they can',
      {},
    );
  }
  const halted = restrictionsFor(states, order).find((entry) => entry.state === 'HALTED');
  if (halted === undefined) return undefined;
  return refusal(RiskCode.TradingHalted, `trading is halted (${halted.scope})`, {
    ...scopeValues(halted.scope, halted.id),
    reason: halted.reason,
    by: halted.by,
    at: halted.at,
  });
}

/**
 * The quote's stream must be live (checked before anything that needs the quote's amounts); a quote the app saw
 * that is past its life is refused as expired, whatever its stream says now.
 */
export function quoteStatusRefusal(order: RiskOrder, now: number): RiskRefusal | undefined {
  const { quote } = order;
  switch (quote.status) {
    case 'live':
      return undefined;
    case 'stale':
      return refusal(RiskCode.QuoteStale, 'the quote stream is stale', {
        quoteId: quote.quoteId,
        status: quote.status,
      });
    case 'expired':
      return expiredRefusal(quote.quoteId, quote.quoteExpiresAt ?? now, now);
    case 'unknown':
      return refusal(RiskCode.QuoteUnknown, 'the quote is not on any price the gateway watches', {
        quoteId: quote.quoteId,
      });
    default:
      return refusal(RiskCode.QuoteNotLive, 'the quote stream is not live', {
        quoteId: quote.quoteId,
        status: quote.status,
      });
  }
}

export const quoteNotExpired: Check = ({ facts, now }) =>
  now < facts.quoteExpiresAt ? undefined : expiredRefusal(facts.order.quote.quoteId, facts.quoteExpiresAt, now);

function expiredRefusal(quoteId: string, quoteExpiresAt: number, now: number): RiskRefusal {
  return refusal(RiskCode.QuoteExpired, 'the quote has expired', {
    quoteId,
    quoteExpiresAt: new Date(quoteExpiresAt).toISOString(),
    now: new Date(now).toISOString(),
  });
}

export const quoteFresh: Check = ({ facts, limits, now }) => {
  const { venueTimestamp, quoteId } = facts.order.quote;
  if (venueTimestamp === undefined) return undefined;
  for (const scoped of limits) {
    const max = scoped.limits.maxQuoteAgeMs;
    if (max === undefined || now - venueTimestamp <= max) continue;
    return refusal(RiskCode.QuoteStale, 'the quote is older than the scope allows', {
      quoteId,
      ageMs: String(now - venueTimestamp),
      limitMs: String(max),
      ...scopeValues(scoped.scope, scoped.id),
    });
  }
  return undefined;
};

export const priceWithinWorst: Check = ({ facts }) => {
  const { worstPrice, price } = facts;
  if (worstPrice === undefined) return undefined;
  const worse = facts.order.side === 'BUY' ? price.gt(worstPrice) : price.lt(worstPrice);
  if (!worse) return undefined;
  return refusal(RiskCode.PriceWorseThanLimit, `the quote's price is worse than the order's worst price`, {
    side: facts.order.side,
    price: toPlain(price),
    worstPrice: toPlain(worstPrice),
  });
};

export const instrumentAllowed: Check = ({ facts, limits }) => {
  for (const scoped of limits) {
    const allowed = scoped.limits.allowedInstruments;
    if (allowed === undefined || allowed.has(facts.order.instrument)) continue;
    return refusal(RiskCode.InstrumentNotAllowed, 'the instrument is not on the allow-list', {
      instrument: facts.order.instrument,
      ...scopeValues(scoped.scope, scoped.id),
    });
  }
  return undefined;
};

/** §2.2 rule 4: orders on one quote may together take at most its quoted quantity (in flight ones count). */
export const quoteSizeRemaining: Check = ({ facts, book }) => {
  const used = book.quoteUsed(facts.order.quote.quoteId);
  if (used.plus(facts.quantity).lte(facts.quantity)) return undefined;
  return refusal(RiskCode.QuoteSizeExhausted, 'the quoted quantity is already taken by other orders on this quote', {
    quoteId: facts.order.quote.quoteId,
    quoted: toPlain(facts.quantity),
    used: toPlain(used),
    requested: toPlain(facts.quantity),
  });
};

/** REDUCING: only an order that brings its base currency's position towards zero (without crossing it). */
export const reducingOnly: Check = ({ facts, book, states }) => {
  for (const entry of restrictionsFor(states, facts.order)) {
    if (entry.state !== 'REDUCING') continue;
    const key = scopeKey(entry.scope, entry.id);
    const before = book.projectedPosition(key, facts.base);
    const delta = facts.order.side === 'BUY' ? facts.quantity : facts.quantity.negated();
    const after = before.plus(delta);
    const reduces =
      !before.isZero() && after.abs().lt(before.abs()) && (after.isZero() || after.isNeg() === before.isNeg());
    if (reduces) continue;
    return refusal(
      RiskCode.TradingReducingOnly,
      `only orders that reduce the position are taken (${entry.scope} is REDUCING)`,
      {
        ...scopeValues(entry.scope, entry.id),
        currency: facts.base,
        position: toPlain(before),
        positionAfter: toPlain(after),
        reason: entry.reason,
      },
    );
  }
  return undefined;
};

export const notionalPerOrder: Check = ({ facts, limits }) => {
  for (const scoped of limits) {
    const max = scoped.limits.maxNotionalPerOrder?.get(facts.quote);
    if (max === undefined || facts.quoteAmount.lte(max)) continue;
    return refusal(
      RiskCode.NotionalExceedsMaxPerOrder,
      'the order is larger than the largest notional allowed per order',
      {
        notional: toPlain(facts.quoteAmount),
        limit: toPlain(max),
        currency: facts.quote,
        ...scopeValues(scoped.scope, scoped.id),
      },
    );
  }
  return undefined;
};

export const orderRate: Check = ({ limits, book, now }) => {
  for (const scoped of limits) {
    const windows = [
      [scoped.limits.maxOrdersPerSecond, SECOND_MS, RiskCode.OrderRateExceedsMaxPerSecond, 'second'],
      [scoped.limits.maxOrdersPerMinute, MINUTE_MS, RiskCode.OrderRateExceedsMaxPerMinute, 'minute'],
    ] as const;
    for (const [max, windowMs, code, per] of windows) {
      if (max === undefined) continue;
      const recent = book.ordersWithin(scoped.key, now, windowMs);
      if (recent + 1 <= max) continue;
      return refusal(code, `more orders than allowed per ${per}`, {
        orders: String(recent),
        limit: String(max),
        ...scopeValues(scoped.scope, scoped.id),
      });
    }
  }
  return undefined;
};

export const notionalPerMinute: Check = ({ facts, limits, book }) => {
  for (const scoped of limits) {
    const max = scoped.limits.maxNotionalPerMinute?.get(facts.quote);
    if (max === undefined) continue;
    const recent = book.notionalWithinMinute(scoped.key, facts.quote);
    const total = recent.plus(facts.quoteAmount);
    if (total.lte(max)) continue;
    return refusal(RiskCode.NotionalExceedsMaxPerMinute, 'the notional of the last minute would exceed the limit', {
      notional: toPlain(facts.quoteAmount),
      lastMinute: toPlain(recent),
      limit: toPlain(max),
      currency: facts.quote,
      ...scopeValues(scoped.scope, scoped.id),
    });
  }
  return undefined;
};

/**
 * Open exposure per currency, orders in flight and of unknown outcome counted as filled: refused when the
 * worst case of the side this order moves (long for a buy of the currency, short for a sale) exceeds the limit
 * and this order makes that side worse (an order that reduces an exposure already above a lowered limit passes).
 */
export const openExposure: Check = ({ facts, limits, book }) => {
  const deltas = deltasOf(
    { side: facts.order.side, base: facts.base, quote: facts.quote },
    facts.quantity,
    facts.quoteAmount,
  );
  for (const scoped of limits) {
    const maxima = scoped.limits.maxOpenExposure;
    if (maxima === undefined) continue;
    for (const [currency, delta] of deltas) {
      const max = maxima.get(currency);
      if (max === undefined) continue;
      const { long, short } = book.worstExposure(scoped.key, currency);
      // The side this order moves, on its own: growing the other side must not pass on this side's size.
      const side = delta.isPositive() ? long : short;
      const before = side.abs();
      const after = side.plus(delta).abs();
      if (after.lte(max) || after.lte(before)) continue;
      return refusal(RiskCode.ExposureExceedsMax, 'the open exposure would exceed the limit', {
        currency,
        exposure: toPlain(before),
        exposureAfter: toPlain(after),
        limit: toPlain(max),
        ...scopeValues(scoped.scope, scoped.id),
      });
    }
  }
  return undefined;
};

/** In the order they run, after the trading states, the quote's status and its amounts: the first refusal wins. */
export const CHECKS: readonly Check[] = [
  quoteNotExpired,
  quoteFresh,
  priceWithinWorst,
  instrumentAllowed,
  quoteSizeRemaining,
  reducingOnly,
  notionalPerOrder,
  orderRate,
  notionalPerMinute,
  openExposure,
];

/** The limits of the order's three scopes, or the refusal when a scope has none it may trade under. */
export function limitsFor(
  config: LimitsConfig,
  order: Pick<RiskOrder, 'strategyId' | 'accountGroup'>,
): ScopedLimits[] | RiskRefusal {
  const scopes: [RiskScopeKind, string | undefined][] = [
    ['global', undefined],
    ['strategy', order.strategyId],
    ['accountGroup', order.accountGroup],
  ];
  const result: ScopedLimits[] = [];
  for (const [scope, id] of scopes) {
    const resolved = resolveLimits(config, scope, id);
    if (resolved.kind === 'invalid') {
      return refusal(
        RiskCode.LimitsInvalid,
        'the run-time limits stored for this scope do not validate',
        scopeValues(scope, id),
      );
    }
    if (resolved.kind === 'unlisted') {
      const code = scope === 'strategy' ? RiskCode.StrategyNotConfigured : RiskCode.AccountGroupNotConfigured;
      return refusal(code, `no limits are configured for this ${scope}`, scopeValues(scope, id));
    }
    if (resolved.limits !== undefined) {
      result.push({ key: scopeKey(scope, id), scope, ...(id !== undefined ? { id } : {}), limits: resolved.limits });
    }
  }
  return result;
}

/**
 * The whole decision for one order: pure (reads the book as of its last prune). On `ok` the caller counts the
 * order in the book.
 */
export function decide(
  order: RiskOrder,
  context: { book: RiskBook; limits: LimitsConfig; states: TradingStates; now: number },
): { decision: RiskDecision; facts?: OrderFacts } {
  // trading states first: a halt refuses even an order the rest would refuse for another reason
  const early = tradingStateRefusal(context.states, order) ?? quoteStatusRefusal(order, context.now);
  if (early) return { decision: early };
  const facts = factsOf(order);
  if ('ok' in facts) return { decision: facts };
  const limits = limitsFor(context.limits, order);
  if (!Array.isArray(limits)) return { decision: limits };
  const input: CheckInput = { facts, book: context.book, limits, states: context.states, now: context.now };
  for (const check of CHECKS) {
    const refused = check(input);
    if (refused) return { decision: refused, facts };
  }
  return { decision: { ok: true }, facts };
}

function scopeValues(scope: RiskScopeKind, id?: string): Record<string, string> {
  return scope === 'global' ? { scope } : { scope, scopeId: id ?? '' };
}
