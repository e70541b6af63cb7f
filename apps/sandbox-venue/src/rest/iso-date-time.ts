/**
 * ISO 8601 date-time filter values (trades and transactions, §4.5 `from`/`to`): date, `T`, time, optional
 * fraction and zone. A value without a zone is UTC (spec-gaps C9), whatever the host's zone: Date.parse alone
 * would read it as local time. The client reads the venue's date-times the same way (`parseVenueDateTime`,
 * #venue-api); the sandbox keeps its own reading (it takes only types and constants from there), and its spec
 * proves the two agree. Self-contained (no imports): the spec runs it under another TZ.
 */
const ISO_DATE_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:?\d{2})?$/;

export function isoDateTime(text: string): number | undefined {
  const match = ISO_DATE_TIME.exec(text);
  if (match === null) return undefined;
  const ms = Date.parse(match[3] === undefined ? `${text}Z` : text);
  return Number.isNaN(ms) ? undefined : ms;
}
