import { describe, expect, it } from '@jest/globals';
import { Decimal } from '../../money.js';
import { formatPrice } from './price-format.js';

describe('formatPrice (spec-gaps W23)', () => {
  it('writes a price below 1e-4 in scientific notation, with a lower-case e', () => {
    expect(formatPrice(new Decimal('0.00002451'))).toBe('2.451e-5');
    expect(formatPrice(new Decimal('0.0001'))).toBe('0.0001');
  });

  it('writes every other price plain, however large (never "1.0001e+41")', () => {
    expect(formatPrice(new Decimal('64250.5'))).toBe('64250.5');
    expect(formatPrice(new Decimal('100010000000000000000000000000000000000000'))).toBe(
      '100010000000000000000000000000000000000000',
    );
  });
});
