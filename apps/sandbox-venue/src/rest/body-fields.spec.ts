import { describe, expect, it } from '@jest/globals';
import { scaleOf } from './body-fields.js';

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
