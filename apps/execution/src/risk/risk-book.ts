/**
 * The risk book: what pre-trade risk knows of the orders it admitted — orders in flight (and of unknown
 * outcome), positions per scope and currency derived from fills, the recent orders of the rolling windows and
 * the quantity used on each quote. Pure: every update returns a new book; nothing here reads a clock.
 *
 * Positions: a BUY of BASE.QUOTE adds the base amount and subtracts the quote amount; a SELL the reverse.
 * Each order counts in three scopes: global, its strategy and its account group.
 */
import { Decimal } from '#venue-api';
import type { Side } from './risk-gate.js';
import { scopeKey, type ScopeKey } from './limits.js';

export const MINUTE_MS = 60_000;
export const SECOND_MS = 1_000;

/** An admitted order as the book keeps it: decimals parsed, currencies split. */
export interface BookOrder {
  readonly orderId: string;
  readonly strategyId: string;
  readonly accountGroup: string;
  readonly side: Side;
  readonly instrument: string;
  readonly base: string;
  readonly quote: string;
  readonly quoteId: string;
  /** Base quantity and quote amount of the quote's side it executes on. */
  readonly quantity: Decimal;
  readonly quoteAmount: Decimal;
  readonly admittedAt: number;
  /** When the quote stops being usable: its quantity is no longer tracked after this. */
  readonly quoteExpiresAt: number;
}

export interface OpenOrder extends BookOrder {
  /** `unknown`: may have filled; still counted as filled for exposure until evidence settles it. */
  readonly status: 'in-flight' | 'unknown';
}

export interface RecentOrder {
  readonly orderId: string;
  readonly at: number;
  readonly scopes: readonly ScopeKey[];
  readonly quoteCurrency: string;
  readonly notional: Decimal;
  /** false once the order is known not executed: it still counts for the order rate, no longer for notional. */
  readonly traded: boolean;
}

export interface QuoteUse {
  readonly used: Decimal;
  readonly expiresAt: number;
}

export interface RiskBook {
  readonly open: ReadonlyMap<string, OpenOrder>;
  readonly positions: ReadonlyMap<ScopeKey, ReadonlyMap<string, Decimal>>;
  readonly recent: readonly RecentOrder[];
  readonly quotes: ReadonlyMap<string, QuoteUse>;
}

export const emptyBook: RiskBook = { open: new Map(), positions: new Map(), recent: [], quotes: new Map() };

export function scopesOf(order: Pick<BookOrder, 'strategyId' | 'accountGroup'>): ScopeKey[] {
  return ['global', scopeKey('strategy', order.strategyId), scopeKey('accountGroup', order.accountGroup)];
}

/** Signed change of each currency's position if the order fills at its quote. */
export function deltasOf(
  order: Pick<BookOrder, 'side' | 'base' | 'quote'>,
  base: Decimal,
  quote: Decimal,
): Map<string, Decimal> {
  const sign = order.side === 'BUY' ? 1 : -1;
  const deltas = new Map<string, Decimal>();
  deltas.set(order.base, base.abs().times(sign));
  // a pair of one currency with itself is refused earlier; add rather than overwrite to stay exact anyway
  deltas.set(order.quote, (deltas.get(order.quote) ?? new Decimal(0)).plus(quote.abs().times(-sign)));
  return deltas;
}

/** Counts an admitted order: in flight, in the rolling windows, on its quote's used quantity. */
export function admitToBook(book: RiskBook, order: BookOrder, now: number): RiskBook {
  const pruned = prune(book, now);
  const open = new Map(pruned.open).set(order.orderId, { ...order, status: 'in-flight' });
  const recent = [
    ...pruned.recent,
    {
      orderId: order.orderId,
      at: order.admittedAt,
      scopes: scopesOf(order),
      quoteCurrency: order.quote,
      notional: order.quoteAmount,
      traded: true,
    },
  ];
  return { ...pruned, open, recent, quotes: useQuote(pruned.quotes, order) };
}

export type BookEvent =
  | { kind: 'filled'; orderId: string; baseAmount: Decimal; quoteAmount: Decimal }
  | { kind: 'not-executed'; orderId: string }
  | { kind: 'unknown'; orderId: string };

/**
 * A later change of an admitted order. Only orders still open are affected, so a repeated event (or one
 * arriving after the order settled) changes nothing: idempotent per (orderId, kind).
 */
export function recordInBook(book: RiskBook, event: BookEvent): RiskBook {
  const order = book.open.get(event.orderId);
  if (order === undefined) return book;
  switch (event.kind) {
    case 'unknown': {
      if (order.status === 'unknown') return book;
      return { ...book, open: new Map(book.open).set(order.orderId, { ...order, status: 'unknown' }) };
    }
    case 'filled': {
      const open = new Map(book.open);
      open.delete(order.orderId);
      return { ...book, open, positions: addFill(book.positions, order, event.baseAmount, event.quoteAmount) };
    }
    case 'not-executed': {
      const open = new Map(book.open);
      open.delete(order.orderId);
      const recent = book.recent.map((r) => (r.orderId === order.orderId ? { ...r, traded: false } : r));
      return { ...book, open, recent, quotes: releaseQuote(book.quotes, order) };
    }
  }
}

export interface RestoredOrder {
  order: BookOrder;
  /** Absent: still in flight. */
  event?: BookEvent;
}

/**
 * The journal's orders added to the book (after a restart, or when this instance takes over another's orders),
 * as if each had been admitted and recorded. Orders the book already holds open are left as they are, so a
 * repeated restore counts nothing twice.
 */
export function restoreBook(book: RiskBook, orders: readonly RestoredOrder[], now: number): RiskBook {
  let next = book;
  const byAdmission = [...orders].sort((a, b) => a.order.admittedAt - b.order.admittedAt);
  for (const { order, event } of byAdmission) {
    if (next.open.has(order.orderId)) continue;
    next = admitToBook(next, order, order.admittedAt);
    if (event) next = recordInBook(next, event);
  }
  if (next === book) return book;
  return prune({ ...next, recent: [...next.recent].sort((a, b) => a.at - b.at) }, now);
}

/** Drops window entries older than a minute and quotes past their expiry (their quantity can no longer be used). */
export function prune(book: RiskBook, now: number): RiskBook {
  const oldest = now - MINUTE_MS;
  // kept in admission order, so the oldest entry says whether any has left the window
  const first = book.recent[0];
  const recent = first !== undefined && first.at <= oldest ? book.recent.filter((r) => r.at > oldest) : book.recent;
  let quotes = book.quotes;
  for (const [quoteId, use] of book.quotes) {
    if (use.expiresAt > now) continue;
    if (quotes === book.quotes) quotes = new Map(book.quotes);
    (quotes as Map<string, QuoteUse>).delete(quoteId);
  }
  return recent === book.recent && quotes === book.quotes ? book : { ...book, recent, quotes };
}

// ---- views used by the checks

/** Filled position of a scope in a currency (0 when none). */
export function positionOf(book: RiskBook, scope: ScopeKey, currency: string): Decimal {
  return book.positions.get(scope)?.get(currency) ?? new Decimal(0);
}

/**
 * Worst-case open exposure of a scope in a currency: the filled position plus every open order counted as
 * filled — those that add to it and those that take from it taken separately, so whichever of them fill, the
 * absolute position cannot exceed the result.
 */
export function worstExposure(book: RiskBook, scope: ScopeKey, currency: string): { long: Decimal; short: Decimal } {
  let long = positionOf(book, scope, currency);
  let short = long;
  for (const order of book.open.values()) {
    if (!scopesOf(order).includes(scope)) continue;
    const delta = deltasOf(order, order.quantity, order.quoteAmount).get(currency);
    if (delta === undefined) continue;
    if (delta.isPositive()) long = long.plus(delta);
    else short = short.plus(delta);
  }
  return { long, short };
}

/** Position of a scope in a currency if every open order filled (what REDUCING judges an order against). */
export function projectedPosition(book: RiskBook, scope: ScopeKey, currency: string): Decimal {
  let position = positionOf(book, scope, currency);
  for (const order of book.open.values()) {
    if (!scopesOf(order).includes(scope)) continue;
    const delta = deltasOf(order, order.quantity, order.quoteAmount).get(currency);
    if (delta !== undefined) position = position.plus(delta);
  }
  return position;
}

/** Orders of a scope admitted within the last `windowMs` before `now` (inclusive of now). */
export function ordersWithin(book: RiskBook, scope: ScopeKey, now: number, windowMs: number): number {
  let count = 0;
  for (const r of book.recent) if (r.at > now - windowMs && r.at <= now && r.scopes.includes(scope)) count += 1;
  return count;
}

/** Notional of a scope's orders in a quote currency admitted within the last minute (not counting orders not executed). */
export function notionalWithinMinute(book: RiskBook, scope: ScopeKey, currency: string, now: number): Decimal {
  let sum = new Decimal(0);
  for (const r of book.recent) {
    if (r.traded && r.quoteCurrency === currency && r.at > now - MINUTE_MS && r.at <= now && r.scopes.includes(scope)) {
      sum = sum.plus(r.notional);
    }
  }
  return sum;
}

/** Base quantity already taken on a quote by orders in flight, unknown or filled. */
export function quoteUsed(book: RiskBook, quoteId: string): Decimal {
  return book.quotes.get(quoteId)?.used ?? new Decimal(0);
}

function useQuote(quotes: ReadonlyMap<string, QuoteUse>, order: BookOrder): Map<string, QuoteUse> {
  const current = quotes.get(order.quoteId);
  return new Map(quotes).set(order.quoteId, {
    used: (current?.used ?? new Decimal(0)).plus(order.quantity),
    expiresAt: Math.max(current?.expiresAt ?? 0, order.quoteExpiresAt),
  });
}

function releaseQuote(quotes: ReadonlyMap<string, QuoteUse>, order: BookOrder): ReadonlyMap<string, QuoteUse> {
  const current = quotes.get(order.quoteId);
  if (current === undefined) return quotes;
  return new Map(quotes).set(order.quoteId, { ...current, used: Decimal.max(0, current.used.minus(order.quantity)) });
}

function addFill(
  positions: ReadonlyMap<ScopeKey, ReadonlyMap<string, Decimal>>,
  order: BookOrder,
  baseAmount: Decimal,
  quoteAmount: Decimal,
): ReadonlyMap<ScopeKey, ReadonlyMap<string, Decimal>> {
  const next = new Map(positions);
  const deltas = deltasOf(order, baseAmount, quoteAmount);
  for (const scope of scopesOf(order)) {
    const byCurrency = new Map(positions.get(scope) ?? []);
    for (const [currency, delta] of deltas) {
      byCurrency.set(currency, (byCurrency.get(currency) ?? new Decimal(0)).plus(delta));
    }
    next.set(scope, byCurrency);
  }
  return next;
}
