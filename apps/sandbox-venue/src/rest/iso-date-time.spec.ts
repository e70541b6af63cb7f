import { describe, expect, it } from '@jest/globals';
import { fileURLToPath } from 'node:url';
import { parseInTimeZone } from '#testing';
import { parseVenueDateTime } from '#venue-api';
import { isoDateTime } from './iso-date-time.js';

const MODULE = fileURLToPath(new URL('./iso-date-time.ts', import.meta.url));

describe('ISO 8601 date-time filter values (§4.5 from/to)', () => {
  it.each(['2025-01-15T09:30:00Z', '2025-01-15T09:30:00.123+01:00', '2025-01-15T09:30'])('accepts %s', (t) => {
    expect(isoDateTime(t)).toEqual(expect.any(Number));
  });
  it.each(['2025-01-15', '15/01/2025', '2025-13-45T00:00:00Z', 'yesterday', '1736933400000'])('refuses %s', (t) => {
    expect(isoDateTime(t)).toBeUndefined();
  });

  it('reads a value without Z or offset as UTC on a host west of UTC (spec-gaps C9), as the client does', () => {
    const { parsed, local } = parseInTimeZone('America/New_York', MODULE, 'isoDateTime', '2025-01-15T09:30:00');
    expect(local).not.toBe(Date.UTC(2025, 0, 15, 9, 30)); // the zone took effect
    expect(parsed).toBe(Date.UTC(2025, 0, 15, 9, 30));
  });

  it.each([
    '2025-01-15T09:30:00',
    '2025-01-15T09:30',
    '2025-01-15T09:30:00.5',
    '2025-01-15T09:30:00.123456789',
    '2025-01-15T09:30:00Z',
    '2025-01-15T10:30:00+01:00',
    '2025-01-15T04:30:00-05:00',
  ])('agrees with the client (parseVenueDateTime) on %s', (text) => {
    expect(isoDateTime(text)).toBe(parseVenueDateTime(text));
  });
});
