import { describe, expect, it } from '@jest/globals';
import { fileURLToPath } from 'node:url';
import { parseInTimeZone } from '#testing';
import { parseVenueDateTime } from './venue-date-time.js';

const MODULE = fileURLToPath(new URL('./venue-date-time.ts', import.meta.url));
const MIDNIGHT_UTC = Date.UTC(2026, 0, 1);

describe('parseVenueDateTime (§2 "ISO 8601"; spec-gaps C9: no zone designator reads as UTC)', () => {
  it('reads a date-time without Z or offset as UTC on a host west of UTC (where Date.parse reads local time)', () => {
    const { parsed, local } = parseInTimeZone('America/New_York', MODULE, 'parseVenueDateTime', '2026-01-01T00:00:00');
    expect(local).toBe(MIDNIGHT_UTC + 5 * 3_600_000); // the zone took effect: local parsing would be 5 h off
    expect(parsed).toBe(MIDNIGHT_UTC);
  });

  it.each([
    ['2026-01-01T00:00:00', MIDNIGHT_UTC],
    ['2026-01-01T00:00', MIDNIGHT_UTC],
    ['2026-01-01T00:00:00.250', MIDNIGHT_UTC + 250],
    ['2026-01-01T00:00:00.250123', MIDNIGHT_UTC + 250],
    ['2026-01-01T00:00:00Z', MIDNIGHT_UTC],
    ['2026-01-01T01:00:00+01:00', MIDNIGHT_UTC],
    ['2025-12-31T19:00:00-05:00', MIDNIGHT_UTC],
    ['2026-01-01', MIDNIGHT_UTC],
  ])('%s', (text, at) => {
    expect(parseVenueDateTime(text)).toBe(at);
  });

  it('NaN for what is no date-time', () => {
    expect(parseVenueDateTime('yesterday')).toBeNaN();
    expect(parseVenueDateTime('')).toBeNaN();
  });
});
