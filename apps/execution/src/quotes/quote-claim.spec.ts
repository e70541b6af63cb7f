import { describe, expect, it } from '@jest/globals';
import { decideClaim, giveBack, takenOf } from './quote-claim.js';

describe('quote claim', () => {
  it('takes an unclaimed quote and refuses a second order that would exceed its size', () => {
    const first = decideClaim(undefined, 'o1', '0.001', '0.001');
    expect(first).toEqual({ ok: true, next: { v: 1, orders: { o1: '0.001' } } });
    if (!first.ok) return;
    expect(decideClaim(first.next, 'o2', '0.001', '0.001')).toEqual({ ok: false, taken: '0.001' });
  });

  it('lets orders share a quote up to its size, and the order holding it keep it', () => {
    const first = decideClaim(undefined, 'o1', '0.4', '1');
    if (!first.ok) throw new Error('first claim refused');
    const second = decideClaim(first.next, 'o2', '0.6', '1');
    if (!second.ok) throw new Error('second claim refused');
    expect(takenOf(second.next).toString()).toBe('1');
    expect(decideClaim(second.next, 'o3', '0.00000001', '1')).toEqual({ ok: false, taken: '1' });
    expect(decideClaim(second.next, 'o1', '0.4', '1')).toEqual({ ok: true, next: second.next });
  });

  it('gives a not-executed order its share back once, making room for the next', () => {
    const first = decideClaim(undefined, 'o1', '0.001', '0.001');
    if (!first.ok) throw new Error('first claim refused');
    const given = giveBack(first.next, 'o1');
    expect(given).toEqual({ v: 1, orders: {} });
    expect(giveBack(given, 'o1')).toBeUndefined();
    expect(giveBack(undefined, 'o1')).toBeUndefined();
    expect(decideClaim(given, 'o2', '0.001', '0.001').ok).toBe(true);
  });

  it('refuses an order larger than the quote even when nothing is claimed', () => {
    expect(decideClaim(undefined, 'o1', '2', '1')).toEqual({ ok: false, taken: '0' });
  });
});
