import { CURRENCIES } from '../../reference/currencies.js';
import type { InstrumentInfo } from '../../reference/instruments.js';

/**
 * Settlement dates per tenor (W18). `T` = first business day on or after today whose cut-off has not
 * passed; `T1` = the business day after `T`; `TOD` = today (the next business day on a weekend); `TOM` =
 * the business day after `TOD`; `SP` = spot, 2 business days (1 for USD/CAD and crypto pairs).
 * Weekends are skipped; there is no holiday calendar. Any other tenor has no price (RFS100011).
 */
export const KNOWN_TENORS = ['T', 'T1', 'TOD', 'TOM', 'SP'] as const;

const DAY_MS = 24 * 60 * 60 * 1000;

function isBusinessDay(day: Date): boolean {
  const weekday = day.getUTCDay();
  return weekday !== 0 && weekday !== 6;
}

function startOfUtcDay(epochMs: number): Date {
  const d = new Date(epochMs);
  return new Date(Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate()));
}

function onOrAfter(day: Date): Date {
  let d = day;
  while (!isBusinessDay(d)) d = new Date(d.getTime() + DAY_MS);
  return d;
}

function nextBusinessDay(day: Date): Date {
  return onOrAfter(new Date(day.getTime() + DAY_MS));
}

function isSpotOneDay(info: InstrumentInfo): boolean {
  const crypto = CURRENCIES.get(info.base)?.kind === 'crypto' || CURRENCIES.get(info.quote)?.kind === 'crypto';
  const usdCad = info.instrument === 'USD.CAD' || info.instrument === 'CAD.USD';
  return crypto || usdCad;
}

export function formatYyyymmdd(day: Date): string {
  const y = day.getUTCFullYear().toString().padStart(4, '0');
  const m = (day.getUTCMonth() + 1).toString().padStart(2, '0');
  const d = day.getUTCDate().toString().padStart(2, '0');
  return `${y}${m}${d}`;
}

/** The settlement date (YYYYMMDD) of `tenor` at `nowMs`; undefined for a tenor with no price. */
export function settleDateFor(
  tenor: string,
  info: InstrumentInfo,
  nowMs: number,
  cutoffHourUtc: number,
): string | undefined {
  const today = startOfUtcDay(nowMs);
  const afterCutoff = new Date(nowMs).getUTCHours() >= cutoffHourUtc;
  const tod = onOrAfter(today);
  const t = afterCutoff && isBusinessDay(today) ? nextBusinessDay(today) : tod;
  switch (tenor) {
    case 'T':
      return formatYyyymmdd(t);
    case 'T1':
      return formatYyyymmdd(nextBusinessDay(t));
    case 'TOD':
      return formatYyyymmdd(tod);
    case 'TOM':
      return formatYyyymmdd(nextBusinessDay(tod));
    case 'SP': {
      let d = nextBusinessDay(today);
      if (!isSpotOneDay(info)) d = nextBusinessDay(d);
      return formatYyyymmdd(d);
    }
    default:
      return undefined;
  }
}
