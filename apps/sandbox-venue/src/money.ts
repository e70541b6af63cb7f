/**
 * The sandbox's one Decimal for venue money (§2: amounts are decimals; balances, legs and withdrawals add
 * them). decimal.js as imported rounds every result to 20 significant digits: a 1e20 USD deposit lost its
 * cents and a later 1000.01 leg moved the balance by 1000 (outside tester) — so the legs no longer added up to
 * the balance. A private clone with room for any amount the sandbox is given; its notation settings are the
 * library's own, so what the sandbox writes does not change.
 */
// eslint-disable-next-line @typescript-eslint/no-restricted-imports -- the one place the sandbox takes decimal.js
import { Decimal as DecimalJs } from 'decimal.js';

/** Significant digits kept by arithmetic: far beyond any amount (a 60-digit deposit adds exactly). */
const MONEY_PRECISION = 200;

export const Decimal: DecimalJs.Constructor = DecimalJs.clone({ precision: MONEY_PRECISION });
export type Decimal = DecimalJs;
// eslint-disable-next-line @typescript-eslint/no-namespace -- decimal.js's own type names, under the same name
export declare namespace Decimal {
  type Rounding = DecimalJs.Rounding;
  type Value = DecimalJs.Value;
}
