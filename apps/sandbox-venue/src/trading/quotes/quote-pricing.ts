import { Decimal } from '../../money.js';
import type { PriceSide } from '#venue-api';
import { currencyInfo } from '../../reference/currencies.js';
import type { InstrumentInfo } from '../../reference/instruments.js';
import { formatPrice } from '../market/price-format.js';

/** Division needs more digits than decimal.js's default 20 before the rounding down (§2.2). */
const Exact = Decimal.clone({ precision: 60 });

export interface TwoWayPrice {
  offer: PriceSide;
  bid: PriceSide;
  /** Exact values kept for execution (the strings above are what the client saw). */
  offerPrice: Decimal;
  bidPrice: Decimal;
  offerQuantity: Decimal;
  bidQuantity: Decimal;
}

/** The side prices: spread applied outward from the mid (§2.2 rule 1), offer strictly above bid. */
export function sidePrices(info: InstrumentInfo, mid: Decimal): { offer: Decimal; bid: Decimal } {
  const halfSpread = new Decimal(info.spreadBps).div(20_000);
  const digits = info.priceSignificantDigits;
  const offer = mid.times(new Decimal(1).plus(halfSpread)).toSignificantDigits(digits, Decimal.ROUND_UP);
  let bid = mid.times(new Decimal(1).minus(halfSpread)).toSignificantDigits(digits, Decimal.ROUND_DOWN);
  if (!offer.gt(bid)) {
    // A spread narrower than one unit in the last significant digit: widen the bid by one unit.
    const unit = new Decimal(10).pow(bid.e - digits + 1);
    bid = bid.minus(unit);
  }
  return { offer, bid };
}

function precisionOf(code: string): number {
  const info = currencyInfo(code);
  if (info === undefined) throw new Error(`No precision known for currency ${code}`);
  return info.precision;
}

/**
 * §2.2 side objects. Base-currency subscription: quantity = the subscribed quantity on both sides,
 * quoteAmount = quantity × side price rounded to the quote currency's precision (differs by side).
 * Quote-currency subscription: quoteAmount = the subscribed amount on both sides, quantity = quoteAmount /
 * side price rounded down to the base currency's precision (differs by side). quoteAmount is always
 * written in plain notation with the quote currency's number of decimals.
 */
export function twoWayPrice(
  info: InstrumentInfo,
  mid: Decimal,
  currency: string,
  subscribedQuantity: Decimal,
): TwoWayPrice {
  const { offer, bid } = sidePrices(info, mid);
  const quotePrecision = precisionOf(info.quote);
  if (currency === info.base) {
    const quantity = subscribedQuantity;
    const side = (price: Decimal): PriceSide => ({
      price: formatPrice(price),
      quantity: quantity.toFixed(),
      quoteAmount: new Exact(quantity.toFixed())
        .times(price.toFixed())
        .toFixed(quotePrecision, Decimal.ROUND_HALF_EVEN),
    });
    return {
      offer: side(offer),
      bid: side(bid),
      offerPrice: offer,
      bidPrice: bid,
      offerQuantity: quantity,
      bidQuantity: quantity,
    };
  }
  const basePrecision = precisionOf(info.base);
  const quoteAmount = subscribedQuantity.toDecimalPlaces(quotePrecision, Decimal.ROUND_HALF_EVEN);
  const quantityAt = (price: Decimal): Decimal =>
    new Decimal(
      new Exact(quoteAmount.toFixed())
        .div(price.toFixed())
        .toDecimalPlaces(basePrecision, Decimal.ROUND_DOWN)
        .toFixed(),
    );
  const offerQuantity = quantityAt(offer);
  const bidQuantity = quantityAt(bid);
  const side = (price: Decimal, quantity: Decimal): PriceSide => ({
    price: formatPrice(price),
    quantity: quantity.toFixed(),
    quoteAmount: quoteAmount.toFixed(quotePrecision),
  });
  return {
    offer: side(offer, offerQuantity),
    bid: side(bid, bidQuantity),
    offerPrice: offer,
    bidPrice: bid,
    offerQuantity,
    bidQuantity,
  };
}
