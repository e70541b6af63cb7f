import { describe, it, expect } from '@jest/globals';
import { Decimal } from '../../money.js';
import { instrumentInfo, type InstrumentInfo } from '../../reference/instruments.js';
import { sidePrices, twoWayPrice } from './quote-pricing.js';

function info(name: string): InstrumentInfo {
  const found = instrumentInfo(name);
  if (found === undefined) throw new Error(name);
  return found;
}

describe('quote pricing (§2.2)', () => {
  it('applies the spread outward: offer above bid, mid between (rule 1)', () => {
    const { offer, bid } = sidePrices(info('EUR.USD'), new Decimal('1.08525'));
    expect(offer.gt('1.08525')).toBe(true);
    expect(bid.lt('1.08525')).toBe(true);
  });

  it('keeps offer strictly above bid even when the spread is below one price unit', () => {
    const narrow = { ...info('EUR.USD'), spreadBps: 0 };
    const { offer, bid } = sidePrices(narrow, new Decimal('1.08525'));
    expect(offer.gt(bid)).toBe(true);
  });

  it('base-currency subscription: same quantity both sides, quoteAmount = quantity × price at quote precision', () => {
    const p = twoWayPrice(info('BTC.USD'), new Decimal('64250.5'), 'BTC', new Decimal('0.5'));
    expect(p.offer.quantity).toBe('0.5');
    expect(p.bid.quantity).toBe('0.5');
    expect(p.offer.quoteAmount).toBe(new Decimal(p.offer.price).times('0.5').toFixed(2, Decimal.ROUND_HALF_EVEN));
    expect(p.bid.quoteAmount).toBe(new Decimal(p.bid.price).times('0.5').toFixed(2, Decimal.ROUND_HALF_EVEN));
    expect(p.offer.quoteAmount).not.toBe(p.bid.quoteAmount);
  });

  it('quote-currency subscription: same quoteAmount both sides, quantity = amount / price rounded down', () => {
    const p = twoWayPrice(info('BTC.USD'), new Decimal('64250.5'), 'USD', new Decimal('1000'));
    expect(p.offer.quoteAmount).toBe('1000.00');
    expect(p.bid.quoteAmount).toBe('1000.00');
    expect(p.offer.quantity).toBe(
      new Decimal(1000).div(p.offer.price).toDecimalPlaces(8, Decimal.ROUND_DOWN).toFixed(),
    );
    expect(p.bid.quantity).toBe(new Decimal(1000).div(p.bid.price).toDecimalPlaces(8, Decimal.ROUND_DOWN).toFixed());
    expect(p.offer.quantity).not.toBe(p.bid.quantity);
  });

  it('uses the quote currency precision (JPY has none)', () => {
    const p = twoWayPrice(info('USD.JPY'), new Decimal('151.432'), 'USD', new Decimal('1000'));
    expect(p.offer.quoteAmount).toMatch(/^\d+$/);
  });

  it('writes tiny prices in scientific notation and their quoteAmount in plain notation', () => {
    const p = twoWayPrice(info('SHIB.USD'), new Decimal('0.00002451'), 'SHIB', new Decimal('10000000'));
    expect(p.offer.price).toMatch(/^\d(\.\d+)?e-5$/);
    expect(p.bid.price).toMatch(/^\d(\.\d+)?e-5$/);
    expect(p.offer.quoteAmount).toMatch(/^\d+\.\d{2}$/);
    expect(new Decimal(p.offer.price).gt(p.bid.price)).toBe(true);
  });

  it('rounds quantity down to the base precision when the base has none (SHIB)', () => {
    const p = twoWayPrice(info('SHIB.USD'), new Decimal('0.00002451'), 'USD', new Decimal('100'));
    expect(p.offer.quantity).toMatch(/^\d+$/);
    expect(new Decimal(p.offer.quantity).times(p.offer.price).lte(100)).toBe(true);
  });
});
