/**
 * An order's fill from the best evidence at hand: the venue's order reply (via the connector's outcome),
 * else the trade list (§2.4: `executedPrice` is `[BASE/QUOTE] <price>`, amounts per currency), else the quote
 * it executed on (a quote carries price and size, §2.2 rule 4). Decimals stay strings end to end.
 */
import type { OrderFill, OrderOutcome } from '#contracts';
import { isParsableDecimal, parseDecimal, toPlain } from '#venue-api';
import type { Trade } from '#venue-api';
import type { OrderRecord } from './order-record.js';

const EXECUTED_PRICE = /^\s*\[([^/\]\s]+)\/([^\]\s]+)\]\s*(\S+)\s*$/;

/** `[BTC/USD] 42010.5` → { base: 'BTC', quote: 'USD', price: '42010.5' }; undefined when not of that form. */
export function parseExecutedPrice(
  text: string | undefined,
): { base: string; quote: string; price: string } | undefined {
  if (text === undefined) return undefined;
  const match = EXECUTED_PRICE.exec(text);
  if (!match) return undefined;
  const [, base = '', quote = '', price = ''] = match;
  if (!isParsableDecimal(price)) return undefined;
  return { base, quote, price: toPlain(parseDecimal(price)) };
}

function currencies(record: OrderRecord, outcomeInstrument?: string): { base: string; quote: string } | undefined {
  const instrument = record.instrument ?? outcomeInstrument;
  if (instrument === undefined) return undefined;
  const [base, quote] = instrument.split('.');
  return base && quote ? { base, quote } : undefined;
}

/**
 * From the connector's outcome, when the venue's reply carried the execution fields. The reply's fields are
 * not shown (§4.2): its `quantity` is taken as the base amount only when nothing says otherwise — a `currency`
 * other than the pair's base (the subscribe ack echoes the size "in the currency submitted", §2.1) or a
 * quantity other than the quote side's recorded at admission (an order takes the quoted size, §2.2 rule 4)
 * leaves the figures to the trade list, which names the currency of each amount (undefined here).
 */
export function fillFromOutcome(record: OrderRecord, outcome: OrderOutcome): OrderFill | undefined {
  const pair = currencies(record, outcome.instrument);
  const { price, quantity, quoteAmount } = outcome;
  if (pair === undefined || !isParsableDecimal(price) || !isParsableDecimal(quantity)) return undefined;
  if (outcome.currency !== undefined && outcome.currency !== pair.base) return undefined;
  const quoted = record.quote.quantity;
  if (quoted !== undefined && isParsableDecimal(quoted) && !parseDecimal(quoted).eq(parseDecimal(quantity))) {
    return undefined;
  }
  const quote = isParsableDecimal(quoteAmount) ? toPlain(parseDecimal(quoteAmount)) : quotedAmount(record, price);
  if (quote === undefined) return undefined;
  return {
    price: toPlain(parseDecimal(price)),
    baseCurrency: pair.base,
    quoteCurrency: pair.quote,
    baseAmount: toPlain(parseDecimal(quantity)),
    quoteAmount: quote,
    ...(outcome.tradeRef !== undefined ? { tradeRef: outcome.tradeRef } : {}),
    source: 'outcome',
  };
}

/**
 * The quote amount of a reply that carries none: the quote's own, when the reply's price is the quote's (its size
 * was checked by the caller). Never `quantity × price`: the venue rounds the amount it settles to the quote
 * currency's precision (W33), which the product would not be (642.72592 booked against 642.73 settled).
 * Undefined otherwise: the trade list names the settled amount.
 */
function quotedAmount(record: OrderRecord, price: string): string | undefined {
  const quote = record.quote;
  if (!isParsableDecimal(quote.price) || !isParsableDecimal(quote.quoteAmount)) return undefined;
  if (!parseDecimal(quote.price).eq(parseDecimal(price))) return undefined;
  return toPlain(parseDecimal(quote.quoteAmount));
}

/** From the trade list: the price from `executedPrice`, each amount matched to its currency. */
export function fillFromTrade(record: OrderRecord, trade: Trade): OrderFill | undefined {
  const executed = parseExecutedPrice(trade.executedPrice);
  const pair = executed ?? currencies(record);
  if (pair === undefined) return undefined;
  const amounts = [trade.tradedAmount, trade.settlementAmount].filter((a) => a !== undefined);
  const baseAmount = amounts.find((a) => a.currency === pair.base)?.amount;
  const quoteAmount = amounts.find((a) => a.currency === pair.quote)?.amount;
  let price = executed?.price;
  if (price === undefined && isParsableDecimal(baseAmount) && isParsableDecimal(quoteAmount)) {
    const base = parseDecimal(baseAmount);
    if (!base.isZero()) price = toPlain(parseDecimal(quoteAmount).dividedBy(base));
  }
  if (price === undefined || !isParsableDecimal(baseAmount) || !isParsableDecimal(quoteAmount)) return undefined;
  return {
    price,
    baseCurrency: pair.base,
    quoteCurrency: pair.quote,
    baseAmount: toPlain(parseDecimal(baseAmount)),
    quoteAmount: toPlain(parseDecimal(quoteAmount)),
    ...(trade.tradedAmount !== undefined ? { tradedAmount: trade.tradedAmount } : {}),
    ...(trade.settlementAmount !== undefined ? { settlementAmount: trade.settlementAmount } : {}),
    ...(trade.tradeRef !== undefined ? { tradeRef: trade.tradeRef } : {}),
    source: 'trade-list',
  };
}

/** From the quote the order executed on (its side's price, base quantity and quote amount). */
export function fillFromQuote(record: OrderRecord): OrderFill | undefined {
  const pair = currencies(record);
  const { price, quantity, quoteAmount } = record.quote;
  if (
    pair === undefined ||
    !isParsableDecimal(price) ||
    !isParsableDecimal(quantity) ||
    !isParsableDecimal(quoteAmount)
  ) {
    return undefined;
  }
  // written plain like every other fill (the venue may spell the quote's figures with an exponent)
  return {
    price: toPlain(parseDecimal(price)),
    baseCurrency: pair.base,
    quoteCurrency: pair.quote,
    baseAmount: toPlain(parseDecimal(quantity)),
    quoteAmount: toPlain(parseDecimal(quoteAmount)),
    source: 'quote',
  };
}
