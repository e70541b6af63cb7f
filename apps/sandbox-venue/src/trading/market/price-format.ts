import { Decimal } from '../../money.js';

/**
 * Prices are arbitrary-precision and "very small values may use scientific notation" (§2.2). The sandbox
 * writes a price in scientific notation when its exponent is below -4 (e.g. SHIB.USD "2.451e-5"), as
 * decimal.js does with `toExpNeg: -5`, so clients meet the notation on every run (spec-gaps W23).
 */
/** decimal.js's largest exponent: a large price is never written as `1.0001e+41` (W23: plain, no `+`). */
const PLAIN_ABOVE = 9e15;
const PriceDecimal = Decimal.clone({ precision: 40, toExpNeg: -5, toExpPos: PLAIN_ABOVE });

export function formatPrice(price: Decimal): string {
  return new PriceDecimal(price.toFixed()).toString();
}

/** Rounds to `digits` significant digits in the given direction. */
export function toSignificant(value: Decimal, digits: number, rounding: Decimal.Rounding): Decimal {
  return value.toSignificantDigits(digits, rounding);
}
