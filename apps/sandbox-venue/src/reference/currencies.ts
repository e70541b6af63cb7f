import type { Decimal } from '../money.js';

/** Currencies the sandbox venue knows, with the precision amounts of each are rounded to (§2.2 quoteAmount). */
export interface CurrencyInfo {
  readonly code: string;
  readonly precision: number;
  readonly kind: 'fiat' | 'crypto';
}

/** The currencies the sandbox trades and seeds balances in. */
const TRADED: readonly CurrencyInfo[] = [
  { code: 'USD', precision: 2, kind: 'fiat' },
  { code: 'EUR', precision: 2, kind: 'fiat' },
  { code: 'GBP', precision: 2, kind: 'fiat' },
  { code: 'JPY', precision: 0, kind: 'fiat' },
  { code: 'BTC', precision: 8, kind: 'crypto' },
  { code: 'ETH', precision: 8, kind: 'crypto' },
  { code: 'SHIB', precision: 0, kind: 'crypto' },
];

/**
 * Further supported currencies with no pair and (until a deposit) no balance: §4.4 says balances without
 * filterZeroBalanceAccounts list "all supported currencies (100+)", so clients meet a response that size.
 * ISO 4217 minor units: 0 and 3 decimals listed explicitly, everything else 2.
 */
const ZERO_DECIMALS = 'BIF CLP DJF GNF ISK KMF KRW PYG RWF UGX VND VUV XAF XOF XPF';
const THREE_DECIMALS = 'BHD IQD JOD KWD LYD OMR TND';
const TWO_DECIMALS =
  'AED AFN ALL AMD ANG AOA ARS AUD AWG AZN BAM BBD BDT BGN BMD BND BOB BRL BSD BTN BWP BYN BZD CAD CDF ' +
  'CHF CNY COP CRC CUP CVE CZK DKK DOP DZD EGP ERN ETB FJD GEL GHS GIP GMD GTQ GYD HKD HNL HTG HUF IDR ' +
  'ILS INR IRR JMD KES KGS KHR KYD KZT LAK LBP LKR LRD LSL MAD MDL MGA MKD MMK MNT MOP MUR MVR MWK MXN ' +
  'MYR MZN NAD NGN NIO NOK NPR NZD PAB PEN PGK PHP PKR PLN QAR RON RSD RUB SAR SBD SCR SEK SGD SLE SOS ' +
  'SRD SZL THB TJS TMT TOP TRY TTD TWD TZS UAH UYU UZS XCD YER ZAR ZMW';
const CRYPTO_ASSETS: readonly CurrencyInfo[] = [
  { code: 'USDT', precision: 6, kind: 'crypto' },
  { code: 'USDC', precision: 6, kind: 'crypto' },
  { code: 'SOL', precision: 8, kind: 'crypto' },
  { code: 'XRP', precision: 6, kind: 'crypto' },
  { code: 'LTC', precision: 8, kind: 'crypto' },
];

function fiat(codes: string, precision: number): CurrencyInfo[] {
  return codes.split(' ').map((code) => ({ code, precision, kind: 'fiat' }));
}

export const CURRENCIES: ReadonlyMap<string, CurrencyInfo> = new Map(
  [...TRADED, ...fiat(TWO_DECIMALS, 2), ...fiat(ZERO_DECIMALS, 0), ...fiat(THREE_DECIMALS, 3), ...CRYPTO_ASSETS].map(
    (c) => [c.code, c],
  ),
);

export function currencyInfo(code: string): CurrencyInfo | undefined {
  return CURRENCIES.get(code);
}

/**
 * Whether `amount` is a whole number of the currency's smallest unit (a balance can hold it): the one rule for what
 * a subscription, a withdrawal, a trade or a ledger entry may carry (spec-gaps W38). A currency the sandbox does not
 * know has no precision to hold it to.
 */
export function fitsPrecision(code: string, amount: Decimal): boolean {
  const info = currencyInfo(code);
  return info === undefined || amount.decimalPlaces() <= info.precision;
}
