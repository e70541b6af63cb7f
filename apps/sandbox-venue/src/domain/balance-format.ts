/** spec-gaps R20: the balance detail object of §2.6. */
import { Decimal } from '../money.js';
import type { WireValue } from '../http/json.js';
import { currencyInfo } from '../reference/currencies.js';

export function balanceDetail(amount: Decimal, ccy: string): WireValue {
  const precision = currencyInfo(ccy)?.precision ?? 8;
  const value = amount.toFixed(precision, Decimal.ROUND_DOWN);
  return {
    displayShort: `${amount.toFixed(2, Decimal.ROUND_HALF_EVEN)} ${ccy}`,
    valueInt: new Decimal(value).times(new Decimal(10).pow(precision)).toFixed(0),
    currency: ccy,
    display: `${value} ${ccy}`,
    value,
  };
}
