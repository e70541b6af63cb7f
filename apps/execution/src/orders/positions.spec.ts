import { describe, expect, it } from '@jest/globals';
import { applyFill, undoFill } from './positions.js';

describe('positions from fills', () => {
  it('a BUY adds base and pays quote, a SELL the reverse, exactly in decimals', () => {
    const empty = { strategyId: 's1', positions: {}, fills: 0, updatedAt: 0, applied: [] };
    const fill = {
      price: '0.1',
      baseCurrency: 'BTC',
      quoteCurrency: 'USD',
      baseAmount: '0.3',
      quoteAmount: '0.03',
      source: 'outcome' as const,
    };
    const bought = applyFill(empty, 'BUY', fill, 1);
    expect(bought.positions).toEqual({ BTC: '0.3', USD: '-0.03' });
    const sold = applyFill({ ...bought, applied: [] }, 'SELL', { ...fill, baseAmount: '0.1', quoteAmount: '0.01' }, 2);
    expect(sold.positions).toEqual({ BTC: '0.2', USD: '-0.02' });
    expect(sold.fills).toBe(2);
  });

  it('a fill the venue undid is taken back: the position moves back, the fill stays counted as undone', () => {
    const fill = {
      price: '50000.5',
      baseCurrency: 'BTC',
      quoteCurrency: 'USD',
      baseAmount: '0.5',
      quoteAmount: '25000.25',
      source: 'outcome' as const,
    };
    const empty = { strategyId: 's1', positions: {}, fills: 0, updatedAt: 0, applied: [] };
    const sold = applyFill(empty, 'SELL', fill, 1);
    expect(sold.positions).toEqual({ BTC: '-0.5', USD: '25000.25' });
    const undone = undoFill(sold, 'SELL', fill, 2);
    expect(undone.positions).toEqual({ BTC: '0', USD: '0' });
    expect(undone).toMatchObject({ fills: 1, undoneFills: 1, updatedAt: 2 });
  });
});
