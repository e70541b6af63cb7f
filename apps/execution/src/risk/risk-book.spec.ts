import { describe, expect, it } from '@jest/globals';
import { Decimal } from '#venue-api';
import {
  admitToBook,
  emptyBook,
  positionOf,
  prune,
  quoteUsed,
  recordInBook,
  restoreBook,
  worstExposure,
  type BookOrder,
} from './risk-book.js';
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
    let book = admitToBook(emptyBook, bookOrder('b'), T0);
    book = admitToBook(book, bookOrder('s', { side: 'SELL', strategyId: 'beta' }), T0);
    book = recordInBook(book, fill('b', '0.5', '25000.25'));
    book = recordInBook(book, fill('s', '0.2', '10000.1'));
    expect(positionOf(book, 'strategy:alpha', 'BTC').toFixed()).toBe('0.5');
    expect(positionOf(book, 'strategy:alpha', 'USD').toFixed()).toBe('-25000.25');
    expect(positionOf(book, 'strategy:beta', 'BTC').toFixed()).toBe('-0.2');
    expect(positionOf(book, 'strategy:beta', 'USD').toFixed()).toBe('10000.1');
    expect(positionOf(book, 'accountGroup:g1', 'BTC').toFixed()).toBe('0.3');
    expect(positionOf(book, 'global', 'USD').toFixed()).toBe('-15000.15');
    expect(book.open.size).toBe(0);
  });

  it('records are idempotent: a repeated fill, or one after the order settled, changes nothing', () => {
    let book = admitToBook(emptyBook, bookOrder('b'), T0);
    book = recordInBook(book, fill('b', '0.5', '25000.25'));
    const settled = book;
    expect(recordInBook(settled, fill('b', '0.5', '25000.25'))).toBe(settled);
    expect(recordInBook(settled, { kind: 'not-executed', orderId: 'b' })).toBe(settled);
    expect(recordInBook(settled, { kind: 'unknown', orderId: 'b' })).toBe(settled);
  });

  it('worst-case exposure takes orders that add and orders that take separately', () => {
    let book = admitToBook(emptyBook, bookOrder('b'), T0);
    book = admitToBook(book, bookOrder('s', { side: 'SELL', quantity: new Decimal('2') }), T0);
    const btc = worstExposure(book, 'strategy:alpha', 'BTC');
    expect([btc.long.toFixed(), btc.short.toFixed()]).toEqual(['0.5', '-2']);
  });

  it('a quote’s used quantity is tracked until the quote expires', () => {
    let book = admitToBook(emptyBook, bookOrder('b', { quoteId: 'q' }), T0);
    expect(quoteUsed(book, 'q').toFixed()).toBe('0.5');
    book = prune(book, T0 + 600_000);
    expect(quoteUsed(book, 'q').toFixed()).toBe('0');
  });

  it('restores from the journal in admission order, dropping what left the windows', () => {
    const book = restoreBook(
      emptyBook,
      [
        { order: bookOrder('late', { admittedAt: T0 + 70_000 }) },
        { order: bookOrder('early'), event: fill('early', '0.5', '25000.25') },
        { order: bookOrder('gone', { admittedAt: T0 + 1 }), event: { kind: 'not-executed', orderId: 'gone' } },
      ],
      T0 + 70_000,
    );
    expect([...book.open.keys()]).toEqual(['late']);
    expect(positionOf(book, 'global', 'BTC').toFixed()).toBe('0.5');
    expect(book.recent.map((r) => r.orderId)).toEqual(['late']);
  });

  it('restore adds to the book: an order it already holds is not counted twice', () => {
    const held = admitToBook(emptyBook, bookOrder('a'), T0);
    const book = restoreBook(
      held,
      [{ order: bookOrder('a') }, { order: bookOrder('b', { admittedAt: T0 + 5 }) }],
      T0 + 10,
    );
    expect([...book.open.keys()].sort()).toEqual(['a', 'b']);
    expect(quoteUsed(book, 'q-a').toFixed()).toBe('0.5');
    expect(book.recent.map((r) => r.orderId)).toEqual(['a', 'b']);
  });
});
