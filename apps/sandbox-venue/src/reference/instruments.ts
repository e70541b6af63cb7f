/**
 * Streaming instruments of the sandbox venue. Prices and sizes are decimal strings (parse with decimal.js).
 * `spreadBps` is applied outward from the mid (§2.2 rule 1): offer = mid × (1 + s/2), bid = mid × (1 − s/2).
 * `minQuantity`/`maxQuantity` are in the base currency (spec-gaps R19); a subscription above max → RFS100011.
 */
export interface InstrumentInfo {
  readonly instrument: string;
  readonly base: string;
  readonly quote: string;
  /** Seed mid price, quote currency per base unit. */
  readonly initialMid: string;
  /** Significant digits prices are quoted with (tiny prices come out in scientific notation). */
  readonly priceSignificantDigits: number;
  readonly spreadBps: number;
  /** Random-walk step, as a fraction of the mid per cadence tick (e.g. "0.0002"). */
  readonly volatility: string;
  readonly minQuantity: string;
  readonly maxQuantity: string;
}

export const INSTRUMENTS: readonly InstrumentInfo[] = [
  {
    instrument: 'BTC.USD',
    base: 'BTC',
    quote: 'USD',
    initialMid: '64250.5',
    priceSignificantDigits: 8,
    spreadBps: 10,
    volatility: '0.0003',
    minQuantity: '0.0001',
    maxQuantity: '100',
  },
  {
    instrument: 'ETH.USD',
    base: 'ETH',
    quote: 'USD',
    initialMid: '3150.25',
    priceSignificantDigits: 7,
    spreadBps: 12,
    volatility: '0.0004',
    minQuantity: '0.001',
    maxQuantity: '2000',
  },
  {
    instrument: 'EUR.USD',
    base: 'EUR',
    quote: 'USD',
    initialMid: '1.08525',
    priceSignificantDigits: 6,
    spreadBps: 2,
    volatility: '0.00005',
    minQuantity: '1',
    maxQuantity: '50000000',
  },
  {
    instrument: 'GBP.USD',
    base: 'GBP',
    quote: 'USD',
    initialMid: '1.27140',
    priceSignificantDigits: 6,
    spreadBps: 3,
    volatility: '0.00005',
    minQuantity: '1',
    maxQuantity: '50000000',
  },
  {
    instrument: 'USD.JPY',
    base: 'USD',
    quote: 'JPY',
    initialMid: '151.432',
    priceSignificantDigits: 6,
    spreadBps: 3,
    volatility: '0.00005',
    minQuantity: '1',
    maxQuantity: '50000000',
  },
  {
    instrument: 'SHIB.USD',
    base: 'SHIB',
    quote: 'USD',
    initialMid: '0.00002451',
    priceSignificantDigits: 6,
    spreadBps: 40,
    volatility: '0.0008',
    minQuantity: '1000',
    maxQuantity: '100000000000',
  },
];

export function instrumentInfo(instrument: string): InstrumentInfo | undefined {
  return INSTRUMENTS.find((i) => i.instrument === instrument);
}
