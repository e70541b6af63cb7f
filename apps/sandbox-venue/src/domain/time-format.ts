/** Timestamp formats of the venue's records. */

/** ISO 8601 with milliseconds and a zone offset (§2.7: `2025-01-15T09:30:00.000+00:00`). */
export function isoWithOffset(ms: number): string {
  return new Date(ms).toISOString().replace('Z', '+00:00');
}

export function isoUtc(ms: number): string {
  return new Date(ms).toISOString();
}

/** YYYYMMDD (price updates) → YYYY-MM-DD (trades, transactions). */
export function dashedDate(yyyymmdd: string): string {
  return /^\d{8}$/.test(yyyymmdd)
    ? `${yyyymmdd.slice(0, 4)}-${yyyymmdd.slice(4, 6)}-${yyyymmdd.slice(6, 8)}`
    : yyyymmdd;
}
