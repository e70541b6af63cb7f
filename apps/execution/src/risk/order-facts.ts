/**
 * An order as the checks read it: the instrument split into its currencies and the quote's decimals parsed
 * once from their strings. An order whose quote lacks what the checks need is refused here.
 */
import { RiskCode } from '#contracts';
import { isParsableDecimal, parseDecimal, type Decimal } from '#venue-api';
import type { RiskOrder, RiskRefusal } from './risk-gate.js';
import type { BookOrder } from './risk-book.js';
import { refusal } from './refusal.js';

/** A quote lives ten minutes after issue (§2.2 rule 4, §8): its expiry when the order side does not say. */
export const QUOTE_LIFE_MS = 600_000;

export interface OrderFacts {
  readonly order: RiskOrder;
  readonly base: string;
  readonly quote: string;
  readonly price: Decimal;
  readonly quantity: Decimal;
  readonly quoteAmount: Decimal;
  readonly worstPrice?: Decimal;
  readonly quoteExpiresAt: number;
}

/** `BASE.QUOTE` of two different currencies, split; undefined otherwise. */
export function currenciesOf(instrument: string): { base: string; quote: string } | undefined {
  const parts = instrument.split('.');
  const [base, quote] = parts;
  return parts.length === 2 && base && quote && base !== quote ? { base, quote } : undefined;
}

export function factsOf(order: RiskOrder): OrderFacts | RiskRefusal {
  const currencies = currenciesOf(order.instrument);
  if (currencies === undefined) {
    return refusal(RiskCode.InstrumentInvalid, 'the instrument must be BASE.QUOTE of two currencies', {
      instrument: order.instrument,
    });
  }
  const q = order.quote;
  const missing = (['price', 'quantity', 'quoteAmount'] as const).filter((field) => !isParsableDecimal(q[field]));
  const expiresAt = q.quoteExpiresAt ?? (q.venueTimestamp !== undefined ? q.venueTimestamp + QUOTE_LIFE_MS : undefined);
  if (missing.length > 0 || expiresAt === undefined) {
    return refusal(RiskCode.QuoteIncomplete, 'the quote lacks what the risk checks need', {
      quoteId: q.quoteId,
      missing: [...missing, ...(expiresAt === undefined ? ['quoteExpiresAt'] : [])].join(','),
    });
  }
  if (order.worstPrice !== undefined && !isParsableDecimal(order.worstPrice)) {
    return refusal(RiskCode.PriceWorseThanLimit, 'worstPrice is not a decimal', { worstPrice: order.worstPrice });
  }
  return {
    order,
    ...currencies,
    price: parseDecimal(q.price as string, 'quote.price'),
    quantity: parseDecimal(q.quantity as string, 'quote.quantity').abs(),
    quoteAmount: parseDecimal(q.quoteAmount as string, 'quote.quoteAmount').abs(),
    ...(order.worstPrice !== undefined ? { worstPrice: parseDecimal(order.worstPrice, 'worstPrice') } : {}),
    quoteExpiresAt: expiresAt,
  };
}

export function bookOrderOf(facts: OrderFacts, admittedAt: number): BookOrder {
  const { order } = facts;
  return {
    orderId: order.orderId,
    strategyId: order.strategyId,
    accountGroup: order.accountGroup,
    side: order.side,
    instrument: order.instrument,
    base: facts.base,
    quote: facts.quote,
    quoteId: order.quote.quoteId,
    quantity: facts.quantity,
    quoteAmount: facts.quoteAmount,
    admittedAt,
    quoteExpiresAt: facts.quoteExpiresAt,
  };
}
