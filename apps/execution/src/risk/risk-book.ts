/**
 * The risk book: what pre-trade risk knows of the orders it admitted — orders in flight (and of unknown
 * outcome), positions per scope and currency derived from fills, the recent orders of the rolling windows and
 * the quantity used on each quote.
 *
 * Owned by the risk actor and updated in place by its transition (never shared, never read elsewhere), with
 * running aggregates so an admit costs the same with 10 or 10,000 orders open: in-flight sums per scope and
 * currency, window counts and notionals per scope. The reads the checks use are pure and take no clock: the
 * windows are as of the last `prune(now)`, which the transition calls before every decision.
 *
 * Positions: a BUY of BASE.QUOTE adds the base amount and subtracts the quote amount; a SELL the reverse.
 * Each order counts in three scopes: global, its strategy and its account group.
 */
import { BoundedMap } from '#actors';
import { Decimal } from '#venue-api';
import type { Side } from './risk-gate.js';
import { scopeKey, type ScopeKey } from './limits.js';

export const MINUTE_MS = 60_000;
export const SECOND_MS = 1_000;
/** Expired quotes are dropped at most this often (a quote past its expiry is refused before its size is read). */
const QUOTE_SWEEP_MS = 1_000;

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
  /** Whether its quantity is counted on its quote's used quantity (given back if it does not execute). */
  readonly holdsQuote: boolean;
}

export type BookEvent =
  | { kind: 'filled'; orderId: string; baseAmount: Decimal; quoteAmount: Decimal }
  | { kind: 'not-executed'; orderId: string }
  | { kind: 'unknown'; orderId: string }
  | { kind: 'undone'; orderId: string; baseAmount: Decimal; quoteAmount: Decimal; order: FillOwner }
  | { kind: 'late-fill'; orderId: string; baseAmount: Decimal; quoteAmount: Decimal; order: FillOwner };

/** Whose fill: what a position change needs of its order. */
export type FillOwner = Pick<BookOrder, 'strategyId' | 'accountGroup' | 'side' | 'base' | 'quote'>;

/** Undone fills remembered, so a repeated undo (redelivered, or heard from a peer too) is taken back once. */
const UNDONE_REMEMBERED = 10_000;

export interface RestoredOrder {
  order: BookOrder;
  /** Absent: still in flight. */
  event?: BookEvent;
  /**
   * A restored fill: the scopes whose durable positions do not hold it yet (the crash came before it was
   * stored), where it is added now. Absent: none (the durable positions already hold it).
   */
  fillScopes?: readonly ScopeKey[];
}

/** An order of the last minute as the stream of admissions gives it back: known not executed, or not. */
export interface WindowOrder {
  order: BookOrder;
  traded: boolean;
}

interface RecentOrder {
  readonly order: BookOrder;
  /** `order.admittedAt` and `scopesOf(order)`, read on every decision. */
  readonly at: number;
  readonly scopes: readonly ScopeKey[];
  /** false once the order is known not executed: it still counts for the order rate, no longer for notional. */
  traded: boolean;
  /** Read back from the admissions (`restoreWindow`) and never open here: its later events reach only the windows. */
  windowOnly: boolean;
}

interface InFlight {
  /** Sums of the open orders' deltas that add to / take from the position, and their net. */
  long: Decimal;
  short: Decimal;
  net: Decimal;
}

const ZERO = new Decimal(0);

export function scopesOf(order: Pick<BookOrder, 'strategyId' | 'accountGroup'>): ScopeKey[] {
  return ['global', scopeKey('strategy', order.strategyId), scopeKey('accountGroup', order.accountGroup)];
}

/** Signed change of each currency's position if the order fills with these amounts. */
export function deltasOf(
  order: Pick<BookOrder, 'side' | 'base' | 'quote'>,
  base: Decimal,
  quote: Decimal,
): Map<string, Decimal> {
  const sign = order.side === 'BUY' ? 1 : -1;
  const deltas = new Map<string, Decimal>();
  deltas.set(order.base, base.abs().times(sign));
  deltas.set(order.quote, (deltas.get(order.quote) ?? ZERO).plus(quote.abs().times(-sign)));
  return deltas;
}

export class RiskBook {
  private readonly openOrders = new Map<string, OpenOrder>();
  private readonly filled = new Map<ScopeKey, Map<string, Decimal>>();
  private readonly inFlight = new Map<ScopeKey, Map<string, InFlight>>();
  /** Admitted orders of the last minute, oldest first (from `head`). */
  private recent: RecentOrder[] = [];
  private head = 0;
  private readonly recentById = new Map<string, RecentOrder>();
  private readonly windowCount = new Map<ScopeKey, number>();
  private readonly windowNotional = new Map<ScopeKey, Map<string, Decimal>>();
  private readonly quotes = new Map<string, { used: Decimal; expiresAt: number }>();
  private lastQuoteSweep = Number.NEGATIVE_INFINITY;
  private unknownCount = 0;
  private readonly undone = new BoundedMap<string, true>(UNDONE_REMEMBERED);
  private readonly lateFilled = new BoundedMap<string, true>(UNDONE_REMEMBERED);

  /** Whether the scope has orders here: a position (durable, read at start), in flight, or in the last minute. */
  knows(key: ScopeKey): boolean {
    return this.filled.has(key) || this.inFlight.has(key) || this.windowCount.has(key);
  }

  /** Orders in flight or of unknown outcome. */
  get open(): ReadonlyMap<string, OpenOrder> {
    return this.openOrders;
  }

  /** How many open orders are in flight and how many of unknown outcome. */
  get openCounts(): { inFlight: number; unknown: number } {
    return { inFlight: this.openOrders.size - this.unknownCount, unknown: this.unknownCount };
  }

  /** Filled positions per scope and currency. */
  get positions(): ReadonlyMap<ScopeKey, ReadonlyMap<string, Decimal>> {
    return this.filled;
  }

  /** An order admitted within the last minute, open or not. */
  recentOrder(orderId: string): BookOrder | undefined {
    return this.recentById.get(orderId)?.order;
  }

  /** Ids of the orders in the rolling minute, oldest first. */
  get recentOrderIds(): string[] {
    return this.recent.slice(this.head).map((r) => r.order.orderId);
  }

  // ---- updates (the risk actor's transition only)

  /** Counts an admitted order: in flight, in the rolling windows, on its quote's used quantity. */
  admit(order: BookOrder, now: number): void {
    if (this.openOrders.has(order.orderId)) return;
    this.prune(now);
    // already in the windows (restored from the admissions of the last minute): counted there and on its quote once
    const windowed = this.recentById.get(order.orderId);
    const holdsQuote = windowed === undefined || windowed.traded;
    this.openOrders.set(order.orderId, { ...order, status: 'in-flight', holdsQuote });
    this.addInFlight(order, 1);
    if (windowed !== undefined) {
      windowed.windowOnly = false;
      return;
    }
    this.addRecent(order, true);
    this.useQuote(order);
  }

  /**
   * `admit` of an order another instance admitted, unless this book counted it already (it is heard of live and
   * read from the stream): one still open, or one admitted here within the minute (perhaps settled since).
   */
  admitOnce(order: BookOrder, now: number): void {
    const windowed = this.recentById.get(order.orderId);
    if (this.openOrders.has(order.orderId) || (windowed !== undefined && !windowed.windowOnly)) return;
    this.admit(order, now);
  }

  /**
   * A later change of an admitted order. Only orders still open are affected, so a repeated event (or one
   * arriving after the order settled) changes nothing: idempotent per (orderId, kind). Returns whether it did.
   */
  record(event: BookEvent, options: { fillScopes?: readonly ScopeKey[] } = {}): boolean {
    if (event.kind === 'undone') return this.undo(event);
    if (event.kind === 'late-fill') return this.lateFill(event);
    const order = this.openOrders.get(event.orderId);
    if (order === undefined) return event.kind === 'not-executed' && this.notExecutedInWindow(event.orderId);
    switch (event.kind) {
      case 'unknown':
        if (order.status === 'unknown') return false;
        this.openOrders.set(order.orderId, { ...order, status: 'unknown' });
        this.unknownCount += 1;
        return true;
      case 'filled':
        this.close(order);
        this.addInFlight(order, -1);
        this.addFill(order, event.baseAmount, event.quoteAmount, options.fillScopes ?? scopesOf(order));
        return true;
      case 'not-executed': {
        this.close(order);
        this.addInFlight(order, -1);
        const recent = this.recentById.get(order.orderId);
        if (recent !== undefined && recent.traded) {
          recent.traded = false;
          this.addNotional(recent, -1);
        }
        const use = this.quotes.get(order.quoteId);
        if (use !== undefined && order.holdsQuote)
          this.quotes.set(order.quoteId, { ...use, used: Decimal.max(0, use.used.minus(order.quantity)) });
        return true;
      }
    }
  }

  /**
   * The journal's orders added to the book (after a restart, or when this instance takes over another's
   * orders), as if each had been admitted and recorded. Orders the book already holds open are left as they are.
   * A restored fill settles its order and is added to the positions only in its `fillScopes`: the durable
   * positions (`replacePositions`) already hold every fill that was stored.
   */
  restore(orders: readonly RestoredOrder[], now: number): void {
    const byAdmission = [...orders].sort((a, b) => a.order.admittedAt - b.order.admittedAt);
    for (const { order, event, fillScopes } of byAdmission) {
      if (this.openOrders.has(order.orderId)) continue;
      this.admit(order, order.admittedAt);
      if (event) this.record(event, { fillScopes: fillScopes ?? [] });
    }
    this.prune(now);
  }

  /**
   * The orders of the last minute the book does not hold yet (after a restart, from the stream of admissions):
   * counted in the rolling windows and, unless known not executed, on their quote's used quantity — never as
   * open orders: the journal says which orders are still open. An order known not executed counts for the
   * order rate only.
   */
  restoreWindow(orders: readonly WindowOrder[], now: number): void {
    for (const { order, traded } of orders) {
      if (this.recentById.has(order.orderId) || order.admittedAt <= now - MINUTE_MS) continue;
      this.addRecent(order, traded, true);
      if (traded) this.useQuote(order);
    }
    this.prune(now);
  }

  /**
   * The durable positions read at start replace the filled positions held; `undoneOrders`: the orders whose
   * undone fills they already hold (not taken back again when their undo comes once more).
   */
  replacePositions(
    positions: ReadonlyMap<ScopeKey, ReadonlyMap<string, Decimal>>,
    undoneOrders: Iterable<string> = [],
    lateFilledOrders: Iterable<string> = [],
  ): void {
    this.filled.clear();
    for (const [scope, byCurrency] of positions) this.filled.set(scope, new Map(byCurrency));
    for (const orderId of undoneOrders) this.undone.set(orderId, true);
    for (const orderId of lateFilledOrders) this.lateFilled.set(orderId, true);
  }

  /** Whether the book has taken this order's fill back already. */
  isUndone(orderId: string): boolean {
    return this.undone.has(orderId);
  }

  /**
   * A fill the venue undid, once per order. An order this book still holds open never had its fill added here
   * (its `filled` event did not reach this instance): it is settled as not executed instead.
   */
  private undo(event: Extract<BookEvent, { kind: 'undone' }>): boolean {
    if (this.undone.has(event.orderId)) return false;
    this.undone.set(event.orderId, true);
    if (this.openOrders.has(event.orderId)) return this.record({ kind: 'not-executed', orderId: event.orderId });
    const deltas = deltasOf(event.order, event.baseAmount, event.quoteAmount);
    this.addDeltas(deltas, scopesOf(event.order), -1);
    return true;
  }

  /**
   * A fill found after its order settled not executed (K7), once per order. An order this book still holds open
   * (its `not-executed` did not reach this instance) is settled filled instead.
   */
  private lateFill(event: Extract<BookEvent, { kind: 'late-fill' }>): boolean {
    if (this.lateFilled.has(event.orderId)) return false;
    this.lateFilled.set(event.orderId, true);
    const { orderId, baseAmount, quoteAmount } = event;
    if (this.openOrders.has(orderId)) return this.record({ kind: 'filled', orderId, baseAmount, quoteAmount });
    this.addDeltas(deltasOf(event.order, baseAmount, quoteAmount), scopesOf(event.order), 1);
    return true;
  }

  /** An order only read back into the windows, known not executed now: its notional and quote use freed. */
  private notExecutedInWindow(orderId: string): boolean {
    const recent = this.recentById.get(orderId);
    if (recent === undefined || !recent.windowOnly || !recent.traded) return false;
    recent.traded = false;
    this.addNotional(recent, -1);
    const use = this.quotes.get(recent.order.quoteId);
    if (use !== undefined) {
      this.quotes.set(recent.order.quoteId, { ...use, used: Decimal.max(0, use.used.minus(recent.order.quantity)) });
    }
    return true;
  }

  /** Drops window entries older than a minute, and (now and then) quotes past their expiry. */
  prune(now: number): void {
    const oldest = now - MINUTE_MS;
    while (this.head < this.recent.length) {
      const entry = this.recent[this.head];
      if (entry === undefined || entry.at > oldest) break;
      this.head += 1;
      this.recentById.delete(entry.order.orderId);
      for (const scope of entry.scopes) this.windowCount.set(scope, (this.windowCount.get(scope) ?? 1) - 1);
      if (entry.traded) this.addNotional(entry, -1);
    }
    if (this.head > 1024 && this.head * 2 > this.recent.length) {
      this.recent = this.recent.slice(this.head);
      this.head = 0;
    }
    if (now - this.lastQuoteSweep >= QUOTE_SWEEP_MS) {
      this.lastQuoteSweep = now;
      for (const [quoteId, use] of this.quotes) if (use.expiresAt <= now) this.quotes.delete(quoteId);
    }
  }

  // ---- reads (pure; the windows as of the last prune)

  /** Filled position of a scope in a currency (0 when none). */
  positionOf(scope: ScopeKey, currency: string): Decimal {
    return this.filled.get(scope)?.get(currency) ?? ZERO;
  }

  /**
   * Worst-case open exposure of a scope in a currency: the filled position plus every open order counted as
   * filled — those that add to it and those that take from it taken separately, so whichever of them fill,
   * the absolute position cannot exceed the result.
   */
  worstExposure(scope: ScopeKey, currency: string): { long: Decimal; short: Decimal } {
    const position = this.positionOf(scope, currency);
    const open = this.inFlight.get(scope)?.get(currency);
    return { long: position.plus(open?.long ?? ZERO), short: position.plus(open?.short ?? ZERO) };
  }

  /** Position of a scope in a currency if every open order filled (what REDUCING judges an order against). */
  projectedPosition(scope: ScopeKey, currency: string): Decimal {
    return this.positionOf(scope, currency).plus(this.inFlight.get(scope)?.get(currency)?.net ?? ZERO);
  }

  /** Orders of a scope admitted within the last `windowMs` up to `now` (a minute: the running count). */
  ordersWithin(scope: ScopeKey, now: number, windowMs: number): number {
    if (windowMs >= MINUTE_MS) return this.windowCount.get(scope) ?? 0;
    let count = 0;
    for (let i = this.recent.length - 1; i >= this.head; i -= 1) {
      const entry = this.recent[i];
      if (entry === undefined || entry.at <= now - windowMs) break;
      if (entry.at <= now && entry.scopes.includes(scope)) count += 1;
    }
    return count;
  }

  /** Notional of a scope's orders in a quote currency admitted within the last minute (orders not executed excluded). */
  notionalWithinMinute(scope: ScopeKey, currency: string): Decimal {
    return this.windowNotional.get(scope)?.get(currency) ?? ZERO;
  }

  /**
   * A scope's orders and traded notional (by quote currency) admitted within the minute before `now`, counted from
   * the entries without pruning them: what a scrape between two decisions reads (the windows above are as of the
   * last decision, and an hour without orders would still show that minute's use). Equal to them after `prune(now)`.
   */
  windowAsOf(scope: ScopeKey, now: number): { orders: number; notional: Map<string, Decimal> } {
    let orders = 0;
    const notional = new Map<string, Decimal>();
    for (let i = this.head; i < this.recent.length; i += 1) {
      const entry = this.recent[i];
      if (entry === undefined || entry.at <= now - MINUTE_MS || !entry.scopes.includes(scope)) continue;
      orders += 1;
      if (entry.traded) {
        const { quote, quoteAmount } = entry.order;
        notional.set(quote, (notional.get(quote) ?? ZERO).plus(quoteAmount));
      }
    }
    return { orders, notional };
  }

  /** Base quantity already taken on a quote by orders in flight, unknown or filled. */
  quoteUsed(quoteId: string): Decimal {
    return this.quotes.get(quoteId)?.used ?? ZERO;
  }

  // ---- aggregates

  private close(order: OpenOrder): void {
    this.openOrders.delete(order.orderId);
    if (order.status === 'unknown') this.unknownCount -= 1;
  }

  private addInFlight(order: BookOrder, sign: 1 | -1): void {
    const deltas = deltasOf(order, order.quantity, order.quoteAmount);
    for (const scope of scopesOf(order)) {
      let byCurrency = this.inFlight.get(scope);
      if (byCurrency === undefined) this.inFlight.set(scope, (byCurrency = new Map()));
      for (const [currency, delta] of deltas) {
        const held = byCurrency.get(currency) ?? { long: ZERO, short: ZERO, net: ZERO };
        const signed = delta.times(sign);
        byCurrency.set(currency, {
          long: delta.isPositive() ? held.long.plus(signed) : held.long,
          short: delta.isNegative() ? held.short.plus(signed) : held.short,
          net: held.net.plus(signed),
        });
      }
    }
  }

  private addFill(order: BookOrder, baseAmount: Decimal, quoteAmount: Decimal, scopes: readonly ScopeKey[]): void {
    this.addDeltas(deltasOf(order, baseAmount, quoteAmount), scopes, 1);
  }

  private addDeltas(deltas: ReadonlyMap<string, Decimal>, scopes: readonly ScopeKey[], sign: 1 | -1): void {
    for (const scope of scopes) {
      let byCurrency = this.filled.get(scope);
      if (byCurrency === undefined) this.filled.set(scope, (byCurrency = new Map()));
      for (const [currency, delta] of deltas)
        byCurrency.set(currency, (byCurrency.get(currency) ?? ZERO).plus(delta.times(sign)));
    }
  }

  private useQuote(order: BookOrder): void {
    const use = this.quotes.get(order.quoteId);
    this.quotes.set(order.quoteId, {
      used: (use?.used ?? ZERO).plus(order.quantity),
      expiresAt: Math.max(use?.expiresAt ?? 0, order.quoteExpiresAt),
    });
  }

  private addRecent(order: BookOrder, traded: boolean, windowOnly = false): void {
    const entry: RecentOrder = {
      order,
      at: order.admittedAt,
      scopes: scopesOf(order),
      traded,
      windowOnly,
    };
    // kept in admission order (an order restored or heard from a peer may be older than the newest)
    let at = this.recent.length;
    while (at > this.head && (this.recent[at - 1]?.at ?? 0) > entry.at) at -= 1;
    this.recent.splice(at, 0, entry);
    this.recentById.set(entry.order.orderId, entry);
    for (const scope of entry.scopes) this.windowCount.set(scope, (this.windowCount.get(scope) ?? 0) + 1);
    if (traded) this.addNotional(entry, 1);
  }

  private addNotional(entry: RecentOrder, sign: 1 | -1): void {
    for (const scope of entry.scopes) {
      let byCurrency = this.windowNotional.get(scope);
      if (byCurrency === undefined) this.windowNotional.set(scope, (byCurrency = new Map()));
      const held = byCurrency.get(entry.order.quote) ?? ZERO;
      byCurrency.set(entry.order.quote, held.plus(entry.order.quoteAmount.times(sign)));
    }
  }
}
