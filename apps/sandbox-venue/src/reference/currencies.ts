/** Currencies the sandbox venue knows, with the precision amounts of each are rounded to (§2.2 quoteAmount). */
export interface CurrencyInfo {
  readonly code: string;
  readonly precision: number;
  readonly kind: 'fiat' | 'crypto';
}

export const CURRENCIES: ReadonlyMap<string, CurrencyInfo> = new Map(
  (
    [
      { code: 'USD', precision: 2, kind: 'fiat' },
      { code: 'EUR', precision: 2, kind: 'fiat' },
      { code: 'GBP', precision: 2, kind: 'fiat' },
      { code: 'JPY', precision: 0, kind: 'fiat' },
      { code: 'BTC', precision: 8, kind: 'crypto' },
      { code: 'ETH', precision: 8, kind: 'crypto' },
      { code: 'SHIB', precision: 0, kind: 'crypto' },
    ] as const
  ).map((c) => [c.code, c]),
);

export function currencyInfo(code: string): CurrencyInfo | undefined {
  return CURRENCIES.get(code);
}
