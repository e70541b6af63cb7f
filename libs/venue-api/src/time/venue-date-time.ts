/**
 * Venue date-times (§2 "Timestamps are ISO 8601"; §2.4 `createdAt`, §4.5 `from`/`to`). The spec does not require
 * a zone designator, and ECMAScript reads a date-time without one as host-local time: the same text would be
 * another instant on a host outside UTC. A venue date-time without `Z` or an offset is read as UTC (spec-gaps C9).
 * Self-contained (no imports): its spec runs it in a child process under another TZ.
 */
const DATE_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}/;
const ZONE = /(?:Z|[+-]\d{2}(?::?\d{2})?)$/i;

/** Epoch ms of a venue ISO 8601 text, UTC when it names no zone; NaN when unreadable. */
export function parseVenueDateTime(text: string): number {
  return Date.parse(DATE_TIME.test(text) && !ZONE.test(text) ? `${text}Z` : text);
}
