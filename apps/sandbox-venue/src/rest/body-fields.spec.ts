import { describe, expect, it } from '@jest/globals';
import { isoDateTime, scaleOf } from './body-fields.js';

describe('scale of a JSON number as sent (§4.9)', () => {
  it.each([
    ['100', 0],
    ['100.5', 1],
    ['100.50', 2],
    ['100.500', 3],
    ['1.5e1', 0],
    ['1.234e1', 2],
    ['12e-2', 2],
    ['1E+2', -2],
  ])('%s → %i', (text, scale) => {
    expect(scaleOf(text)).toBe(scale);
  });
});

describe('ISO 8601 date-time filter values', () => {
  it.each(['2025-01-15T09:30:00Z', '2025-01-15T09:30:00.123+01:00', '2025-01-15T09:30'])('accepts %s', (t) => {
    expect(isoDateTime(t)).toEqual(expect.any(Number));
  });
  it.each(['2025-01-15', '15/01/2025', '2025-13-45T00:00:00Z', 'yesterday', '1736933400000'])('refuses %s', (t) => {
    expect(isoDateTime(t)).toBeUndefined();
  });
});
