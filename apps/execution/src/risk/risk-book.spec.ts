import { describe, expect, it } from '@jest/globals';
import { Decimal } from '#venue-api';
import { RiskBook, type BookOrder } from './risk-book.js';
import { T0 } from './testing/risk-fixtures.js';

function bookOrder(id: string, overrides: Partial<BookOrder> = {}): BookOrder {
  return {
    orderId: id,
    strategyId: 'alpha',
    accountGroup: 'g1',
    side: 'BUY',
    instrument: 'BTC.USD',
    base: 'BTC',
    quote: 'USD',
    quoteId: `q-${id}`,
    quantity: new Decimal('0.5'),
    quoteAmount: new Decimal('25000.25'),
    admittedAt: T0,
    quoteExpiresAt: T0 + 600_000,
    ...overrides,
  };
}

const fill = (orderId: string, base: string, quote: string) =>
  ({ kind: 'filled', orderId, baseAmount: new Decimal(base), quoteAmount: new Decimal(quote) }) as const;

describe('the risk book', () => {
  it('BUY BASE.QUOTE adds base and takes quote; SELL the reverse; in the global, strategy and group scopes', () => {
    const book = new RiskBook();
    book.admit(bookOrder('b'), T0);
    book.admit(bookOrder('s', { side: 'SELL', strategyId: 'beta' }), T0);
    book.record(fill('b', '0.5', '25000.25'));
    book.record(fill('s', '0.2', '10000.1'));
    expect(book.positionOf('strategy:alpha', 'BTC').toFixed()).toBe('0.5');
    expect(book.positionOf('strategy:alpha', 'USD').toFixed()).toBe('-25000.25');
    expect(book.positionOf('strategy:beta', 'BTC').toFixed()).toBe('-0.2');
    expect(book.positionOf('strategy:beta', 'USD').toFixed()).toBe('10000.1');
    expect(book.positionOf('accountGroup:g1', 'BTC').toFixed()).toBe('0.3');
    expect(book.positionOf('global', 'USD').toFixed()).toBe('-15000.15');
    expect(book.open.size).toBe(0);
    // nothing left in flight: the worst case is the filled position
    const btc = book.worstExposure('global', 'BTC');
    expect([btc.long.toFixed(), btc.short.toFixed()]).toEqual(['0.3', '0.3']);
  });

  it('records are idempotent: a repeated fill, or one after the order settled, changes nothing', () => {
    const book = new RiskBook();
    book.admit(bookOrder('b'), T0);
    expect(book.record(fill('b', '0.5', '25000.25'))).toBe(true);
    expect(book.record(fill('b', '0.5', '25000.25'))).toBe(false);
    expect(book.record({ kind: 'not-executed', orderId: 'b' })).toBe(false);
    expect(book.record({ kind: 'unknown', orderId: 'b' })).toBe(false);
    expect(book.positionOf('global', 'BTC').toFixed()).toBe('0.5');
    book.admit(bookOrder('u'), T0);
    book.record({ kind: 'unknown', orderId: 'u' });
    book.record({ kind: 'unknown', orderId: 'u' });
    book.admit(bookOrder('f'), T0);
    expect(book.openCounts).toEqual({ inFlight: 1, unknown: 1 });
    book.record(fill('u', '0.5', '25000.25'));
    expect(book.openCounts).toEqual({ inFlight: 1, unknown: 0 });
  });

  it('worst-case exposure takes orders that add and orders that take separately; the projection nets them', () => {
    const book = new RiskBook();
    book.admit(bookOrder('b'), T0);
    book.admit(bookOrder('s', { side: 'SELL', quantity: new Decimal('2') }), T0);
    const btc = book.worstExposure('strategy:alpha', 'BTC');
    expect([btc.long.toFixed(), btc.short.toFixed()]).toEqual(['0.5', '-2']);
    expect(book.projectedPosition('strategy:alpha', 'BTC').toFixed()).toBe('-1.5');
    book.record({ kind: 'not-executed', orderId: 's' });
    expect(book.projectedPosition('strategy:alpha', 'BTC').toFixed()).toBe('0.5');
  });

  it('rolling windows: counts and notionals per scope leave the window after a minute; not executed stops counting notional', () => {
    const book = new RiskBook();
    book.admit(bookOrder('a'), T0);
    book.admit(bookOrder('b', { admittedAt: T0 + 30_000, strategyId: 'beta' }), T0 + 30_000);
    expect(book.ordersWithin('global', T0 + 30_000, 60_000)).toBe(2);
    expect(book.ordersWithin('global', T0 + 30_000, 1_000)).toBe(1);
    expect(book.notionalWithinMinute('global', 'USD').toFixed()).toBe('50000.5');
    book.record({ kind: 'not-executed', orderId: 'b' });
    expect(book.notionalWithinMinute('global', 'USD').toFixed()).toBe('25000.25');
    expect(book.ordersWithin('strategy:beta', T0 + 30_000, 60_000)).toBe(1);
    book.prune(T0 + 60_000);
    expect(book.ordersWithin('global', T0 + 60_000, 60_000)).toBe(1);
    expect(book.notionalWithinMinute('strategy:alpha', 'USD').toFixed()).toBe('0');
    expect(book.recentOrderIds).toEqual(['b']);
  });

  it('a quote’s used quantity is tracked until the quote expires, and given back when an order is not executed', () => {
    const book = new RiskBook();
    book.admit(bookOrder('b', { quoteId: 'q' }), T0);
    expect(book.quoteUsed('q').toFixed()).toBe('0.5');
    book.prune(T0 + 600_000);
    expect(book.quoteUsed('q').toFixed()).toBe('0');
    book.admit(
      bookOrder('c', { quoteId: 'r', admittedAt: T0 + 600_000, quoteExpiresAt: T0 + 1_200_000 }),
      T0 + 600_000,
    );
    book.record({ kind: 'not-executed', orderId: 'c' });
    expect(book.quoteUsed('r').toFixed()).toBe('0');
  });

  it('restores from the journal in admission order, dropping what left the windows; a restored fill is not counted again', () => {
    const book = new RiskBook();
    book.replacePositions(new Map([['global', new Map([['BTC', new Decimal('0.5')]])]]));
    book.restore(
      [
        { order: bookOrder('late', { admittedAt: T0 + 70_000 }) },
        { order: bookOrder('early'), event: fill('early', '0.5', '25000.25') },
        { order: bookOrder('gone', { admittedAt: T0 + 1 }), event: { kind: 'not-executed', orderId: 'gone' } },
      ],
      T0 + 70_000,
    );
    expect([...book.open.keys()]).toEqual(['late']);
    expect(book.positionOf('global', 'BTC').toFixed()).toBe('0.5');
    expect(book.recentOrderIds).toEqual(['late']);
  });

  it('restore adds to the book: an order it already holds is not counted twice; an older one is kept in time order', () => {
    const book = new RiskBook();
    book.admit(bookOrder('a', { admittedAt: T0 + 10 }), T0 + 10);
    book.restore(
      [{ order: bookOrder('a', { admittedAt: T0 + 10 }) }, { order: bookOrder('b', { admittedAt: T0 + 5 }) }],
      T0 + 20,
    );
    expect([...book.open.keys()].sort()).toEqual(['a', 'b']);
    expect(book.quoteUsed('q-a').toFixed()).toBe('0.5');
    expect(book.recentOrderIds).toEqual(['b', 'a']);
    expect(book.ordersWithin('global', T0 + 20, 60_000)).toBe(2);
  });
});
