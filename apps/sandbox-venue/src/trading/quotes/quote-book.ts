import { randomBytes } from 'node:crypto';
import { Decimal } from '../../money.js';
import type { Side } from '#venue-api';
import type { InstrumentInfo } from '../../reference/instruments.js';
import { twoWayPrice, type TwoWayPrice } from './quote-pricing.js';

/**
 * What every quote of one price stream shares: made once per subscription and referenced by each of its
 * quotes, so a quote costs the book only its id, its mid and its expiry.
 */
export interface QuoteTerms {
  readonly userUuid: string;
  readonly accountGroupUuid: string;
  readonly info: InstrumentInfo;
  readonly currency: string;
  /** The subscribed quantity, in `currency`. */
  readonly quantity: Decimal;
  readonly tenor: string;
  readonly beneficiaryUuid?: string;
  readonly senderUuid?: string;
  readonly networkId?: string;
}

/** What a quoteId carries (§2.2 rule 4): price, size, tenor and settlement date, bound to one user. */
export interface Quote {
  readonly quoteId: string;
  readonly userUuid: string;
  readonly accountGroupUuid: string;
  readonly instrument: string;
  readonly currency: string;
  readonly tenor: string;
  readonly settleDate: string;
  readonly price: TwoWayPrice;
  readonly expiresAt: number;
  readonly beneficiaryUuid?: string;
  readonly senderUuid?: string;
  readonly networkId?: string;
}

export type QuoteTake =
  | { ok: true; quote: Quote; price: Decimal; quantity: Decimal; quoteAmount: string }
  | { ok: false; code: 'RFS100019' | 'RFS100020' | 'RFS600021' };

/**
 * One issued quote as the book keeps it. The price is not kept: it is a pure function of the terms and the
 * mid (`twoWayPrice`), worked out again on the rare take. The mid is the market's own object, shared by every
 * quote issued between two steps of the walk; `settleDate` is interned.
 */
interface HeldQuote {
  readonly terms: QuoteTerms;
  readonly mid: Decimal;
  readonly settleDate: string;
  readonly expiresAt: number;
  /** W4: base quantity already executed on this quote; absent until an order takes it. */
  consumed?: Decimal;
}

/**
 * Most quotes held at once (spec-gaps W36). Every price update issues a quote that must stay usable for ten
 * minutes, so the book holds updates/s × 600; past this the oldest quote is forgotten early (an order on it is
 * refused as expired) rather than the venue running out of memory.
 */
export const DEFAULT_QUOTE_LIMIT = 500_000;

/**
 * Issued quotes and the consumed-quantity ledger of W4. A quote unknown to the book (never issued, or
 * purged after expiry) is refused as expired: the venue cannot tell the two apart (spec-gaps W20).
 *
 * Quotes are kept in issue order, so the expired ones are the oldest: each issue and each `sweep` drops them
 * from the front, work in proportion to what expired, never to what the book holds.
 */
export class QuoteBook {
  private readonly quotes = new Map<string, HeldQuote>();
  private readonly settleDates = new Map<string, string>();

  constructor(
    private readonly ttlMs: number,
    private readonly limit: number = DEFAULT_QUOTE_LIMIT,
    private readonly onForgottenEarly: () => void = () => undefined,
  ) {}

  /** A new quote of a stream at `mid`; returns its id and the price its update shows. */
  issue(now: number, terms: QuoteTerms, mid: Decimal, settleDate: string): { quoteId: string; price: TwoWayPrice } {
    this.sweep(now);
    const quoteId = randomBytes(18).toString('base64url');
    this.quotes.set(quoteId, { terms, mid, settleDate: this.intern(settleDate), expiresAt: now + this.ttlMs });
    this.forgetOverLimit();
    return { quoteId, price: priceOf(terms, mid) };
  }

  /**
   * Checks the quote for this user and side and, when it passes, records the side's quantity as consumed
   * (the order executes the quoted quantity, W4). Checked in the order: expired/unknown, other user, used up.
   */
  take(now: number, quoteId: string, userUuid: string, side: Side): QuoteTake {
    this.sweep(now);
    const held = this.quotes.get(quoteId);
    if (held === undefined || now >= held.expiresAt) return { ok: false, code: 'RFS100019' };
    const { terms } = held;
    if (terms.userUuid !== userUuid) return { ok: false, code: 'RFS100020' };
    const price = priceOf(terms, held.mid);
    const buy = side === 'BUY';
    const quantity = buy ? price.offerQuantity : price.bidQuantity;
    const consumed = held.consumed ?? new Decimal(0);
    if (quantity.lte(0) || consumed.plus(quantity).gt(quantity)) return { ok: false, code: 'RFS600021' };
    held.consumed = consumed.plus(quantity);
    const quote: Quote = {
      quoteId,
      userUuid: terms.userUuid,
      accountGroupUuid: terms.accountGroupUuid,
      instrument: terms.info.instrument,
      currency: terms.currency,
      tenor: terms.tenor,
      settleDate: held.settleDate,
      price,
      expiresAt: held.expiresAt,
      ...(terms.beneficiaryUuid !== undefined && { beneficiaryUuid: terms.beneficiaryUuid }),
      ...(terms.senderUuid !== undefined && { senderUuid: terms.senderUuid }),
      ...(terms.networkId !== undefined && { networkId: terms.networkId }),
    };
    return {
      ok: true,
      quote,
      price: buy ? price.offerPrice : price.bidPrice,
      quantity,
      quoteAmount: buy ? price.offer.quoteAmount : price.bid.quoteAmount,
    };
  }

  /** Gives back a quantity whose execution failed, so the quote can be used again (if it is still held). */
  release(quote: Quote, quantity: Decimal): void {
    const held = this.quotes.get(quote.quoteId);
    if (held?.consumed === undefined) return;
    held.consumed = Decimal.max(0, held.consumed.minus(quantity));
  }

  /** Drops the quotes expired at `now`, oldest first; the venue runs it on a timer too, so an idle book empties. */
  sweep(now: number): void {
    for (const [quoteId, held] of this.quotes) {
      // An operator's clock step back can leave a later expiry in front; what follows waits for it (≤ one life).
      if (now < held.expiresAt) break;
      this.quotes.delete(quoteId);
    }
    if (this.quotes.size === 0) this.settleDates.clear();
  }

  size(): number {
    return this.quotes.size;
  }

  private forgetOverLimit(): void {
    for (const quoteId of this.quotes.keys()) {
      if (this.quotes.size <= this.limit) return;
      this.quotes.delete(quoteId);
      this.onForgottenEarly();
    }
  }

  /** One string per settlement date in use (a handful), not one per quote. */
  private intern(settleDate: string): string {
    const known = this.settleDates.get(settleDate);
    if (known !== undefined) return known;
    if (this.settleDates.size >= 64) this.settleDates.clear();
    this.settleDates.set(settleDate, settleDate);
    return settleDate;
  }
}

function priceOf(terms: QuoteTerms, mid: Decimal): TwoWayPrice {
  return twoWayPrice(terms.info, mid, terms.currency, terms.quantity);
}
