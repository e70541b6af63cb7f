/**
 * The seam between the order side of the execution app (order API, order actors, journal) and pre-trade risk
 * (limits, trading states, kill switch, exposure). The order side calls `admit` before it accepts an order and
 * tells risk every later change of the order with `record`; risk never sends anything to the venue.
 * Amounts and prices are decimal strings (never numbers). Provided in Nest under the token `RISK_GATE`.
 */
import type { TradingStateEntry } from '#contracts';
import { scopeKey } from './limits.js';
import { scopesOf } from './risk-book.js';

export const RISK_GATE = Symbol('RISK_GATE');

/** Whether a trading state (or limit) of this scope applies to an order of this strategy and account group. */
export function appliesTo(
  entry: Pick<TradingStateEntry, 'scope' | 'id'>,
  order: { strategyId: string; accountGroup: string },
): boolean {
  return scopesOf(order).includes(scopeKey(entry.scope, entry.id));
}

export type Side = 'BUY' | 'SELL';

/** The quote an order would execute on, as the execution app knows it from the connector's prices. */
export interface RiskQuote {
  quoteId: string;
  /**
   * `unknown`: a quoteId the algo passed that the app has not seen on any price it watches; `expired`: one it saw,
   * now past its life (`quoteExpiresAt` says when).
   */
  status: 'live' | 'stale' | 'stopped' | 'unknown' | 'expired';
  /** Epoch ms of the venue's price update and the quote's expiry (venueTimestamp + 10 min). */
  venueTimestamp?: number;
  quoteExpiresAt?: number;
  /** The side the order executes on (offer for BUY, bid for SELL): price, base quantity, quote amount. */
  price?: string;
  quantity?: string;
  quoteAmount?: string;
}

/** An order the order side is about to accept. */
export interface RiskOrder {
  orderId: string;
  strategyId: string;
  accountGroup: string;
  side: Side;
  /** `BASE.QUOTE`. */
  instrument: string;
  quote: RiskQuote;
  /** Worst acceptable price from the request: BUY refuses a price above it, SELL below it. */
  worstPrice?: string;
}

/** A refusal names its code (`CATEGORY_CONDITION`, e.g. `RISK_NOTIONAL_EXCEEDS_MAX_PER_ORDER`) and the values. */
export interface RiskRefusal {
  ok: false;
  code: string;
  message: string;
  /** The values that caused it, e.g. `{ notional: "120000", limit: "100000", currency: "USD" }`. */
  values: Record<string, string>;
}

export type RiskDecision = { ok: true } | RiskRefusal;

/**
 * What happened to an admitted order since. An order is "in flight" from `admit` until `filled` or
 * `not-executed`; `unknown` keeps it counted as filled for exposure (it may have filled) until evidence settles it.
 */
export type RiskOrderEvent =
  | {
      kind: 'filled';
      orderId: string;
      baseAmount: string;
      quoteAmount: string;
      price: string;
      /** Whose fill, from the order's record: stored even when the book no longer holds the order. */
      order?: FilledOrder;
    }
  | { kind: 'not-executed'; orderId: string }
  | { kind: 'unknown'; orderId: string }
  | UndoneFill
  | LateFill;

/**
 * A fill the venue undid after executing it (its trade moved to CANCELLED or FAILED, §3.2): the amounts risk
 * counted for the order (its `filled` event's), taken back from the positions of its scopes. Once per order.
 */
export interface UndoneFill {
  kind: 'undone';
  orderId: string;
  baseAmount: string;
  quoteAmount: string;
  order: FilledOrder;
}

/**
 * A fill found after its order was settled not executed: the venue contradicted the order's FAILED and its trade
 * list holds the trade (spec-gaps K7). Added to the positions of its scopes (the book's order is long closed).
 * Once per order.
 */
export interface LateFill {
  kind: 'late-fill';
  orderId: string;
  baseAmount: string;
  quoteAmount: string;
  order: FilledOrder;
}

/** What a fill's durable position write needs of its order when the book no longer holds it. */
export type FilledOrder = Pick<RiskOrder, 'strategyId' | 'accountGroup' | 'side' | 'instrument'>;

export interface RiskGate {
  /**
   * Checks trading states (global, account group, strategy; the kill switch), quote checks (live, not stale, not
   * expired, remaining quoted size counting orders in flight on it), limits (notional per order and per rolling
   * minute, order rate, instrument allow-list, open exposure per currency counting in-flight and unknown orders as
   * filled, worst price). If every check passes the order is counted as in flight at once, so two concurrent
   * admits cannot both use the same headroom.
   */
  admit(order: RiskOrder, now: number): Promise<RiskDecision>;
  /**
   * The trading-state check alone (the first of `admit`'s), for an order by quote request before its quote is
   * sought: a halted strategy is told TRADING_HALTED, not that no quote could be had (the connector down, say).
   */
  haltRefusal(order: Pick<RiskOrder, 'strategyId' | 'accountGroup'>): RiskRefusal | undefined;
  /** Later changes of an admitted order. Idempotent per (orderId, kind). */
  record(event: RiskOrderEvent): void;
  /**
   * A fill the venue undid: taken back from every instance's book and from the durable positions. Resolves once
   * the durable positions hold it (idempotent: a second call for the order changes nothing).
   */
  undo(event: UndoneFill): Promise<void>;
  /** A late fill (`LateFill`): added to every instance's book and to the durable positions, once; resolves then. */
  lateFill(event: LateFill): Promise<void>;
  /**
   * After a restart, before taking new orders: the orders the journal holds, with what is known of them
   * (`in-flight` for non-final ones, `filled` with amounts, `unknown`), so exposure and rolling windows are rebuilt.
   */
  restore(orders: ReadonlyArray<{ order: RiskOrder; admittedAt: number; event?: RiskOrderEvent }>): void;
  /** Every trading state risk learns (a change, or each one of a store read afresh): the order side recalls on a halt. */
  onTradingState(listener: (entry: TradingStateEntry) => void): void;
}
