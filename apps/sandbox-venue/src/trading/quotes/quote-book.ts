import { randomBytes } from 'node:crypto';
import { Decimal } from '../../money.js';
import type { Side } from '#venue-api';
import type { TwoWayPrice } from './quote-pricing.js';

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
  readonly issuedAt: number;
  readonly expiresAt: number;
  readonly beneficiaryUuid?: string;
  readonly senderUuid?: string;
  readonly networkId?: string;
  /** W4: base quantity already executed on this quote. */
  consumed: Decimal;
}

export type QuoteIssue = Omit<Quote, 'quoteId' | 'issuedAt' | 'expiresAt' | 'consumed'>;

export type QuoteTake =
  | { ok: true; quote: Quote; price: Decimal; quantity: Decimal; quoteAmount: string }
  | { ok: false; code: 'RFS100019' | 'RFS100020' | 'RFS600021' };

/**
 * Issued quotes and the consumed-quantity ledger of W4. A quote unknown to the book (never issued, or
 * purged after expiry) is refused as expired: the venue cannot tell the two apart (spec-gaps W20).
 */
export class QuoteBook {
  private readonly quotes = new Map<string, Quote>();
  private issuedSincePurge = 0;

  constructor(private readonly ttlMs: number) {}

  issue(now: number, fields: QuoteIssue): Quote {
    this.purgeNowAndThen(now);
    const quote: Quote = {
      ...fields,
      quoteId: randomBytes(18).toString('base64url'),
      issuedAt: now,
      expiresAt: now + this.ttlMs,
      consumed: new Decimal(0),
    };
    this.quotes.set(quote.quoteId, quote);
    return quote;
  }

  /**
   * Checks the quote for this user and side and, when it passes, records the side's quantity as consumed
   * (the order executes the quoted quantity, W4). Checked in the order: expired/unknown, other user, used up.
   */
  take(now: number, quoteId: string, userUuid: string, side: Side): QuoteTake {
    const quote = this.quotes.get(quoteId);
    if (quote === undefined || now >= quote.expiresAt) return { ok: false, code: 'RFS100019' };
    if (quote.userUuid !== userUuid) return { ok: false, code: 'RFS100020' };
    const buy = side === 'BUY';
    const quantity = buy ? quote.price.offerQuantity : quote.price.bidQuantity;
    const limit = quantity;
    if (quantity.lte(0) || quote.consumed.plus(quantity).gt(limit)) return { ok: false, code: 'RFS600021' };
    quote.consumed = quote.consumed.plus(quantity);
    return {
      ok: true,
      quote,
      price: buy ? quote.price.offerPrice : quote.price.bidPrice,
      quantity,
      quoteAmount: buy ? quote.price.offer.quoteAmount : quote.price.bid.quoteAmount,
    };
  }

  /** Gives back a quantity whose execution failed, so the quote can be used again. */
  release(quote: Quote, quantity: Decimal): void {
    quote.consumed = Decimal.max(0, quote.consumed.minus(quantity));
  }

  size(): number {
    return this.quotes.size;
  }

  private purgeNowAndThen(now: number): void {
    this.issuedSincePurge += 1;
    if (this.issuedSincePurge < 1000) return;
    this.issuedSincePurge = 0;
    for (const [id, quote] of this.quotes) if (now >= quote.expiresAt) this.quotes.delete(id);
  }
}
