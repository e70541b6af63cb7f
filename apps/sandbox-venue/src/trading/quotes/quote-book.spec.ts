import { describe, it, expect } from '@jest/globals';
import { Decimal } from '../../money.js';
import { instrumentInfo } from '../../reference/instruments.js';
import { QuoteBook } from './quote-book.js';
import { twoWayPrice } from './quote-pricing.js';

function issue(book: QuoteBook, now: number) {
  const info = instrumentInfo('BTC.USD');
  if (info === undefined) throw new Error('BTC.USD');
  return book.issue(now, {
    userUuid: 'alice',
    accountGroupUuid: 'g',
    instrument: 'BTC.USD',
    currency: 'BTC',
    tenor: 'T',
    settleDate: '20260107',
    price: twoWayPrice(info, new Decimal('64000'), 'BTC', new Decimal('1')),
  });
}

describe('quote book (§2.2 rule 4, W4)', () => {
  it('issues unique opaque ids', () => {
    const book = new QuoteBook(600_000);
    const ids = new Set(Array.from({ length: 100 }, () => issue(book, 0).quoteId));
    expect(ids.size).toBe(100);
  });

  it('refuses an expired quote with RFS100019 (ten minutes after issue) and an unknown one alike', () => {
    const book = new QuoteBook(600_000);
    const q = issue(book, 1_000);
    expect(book.take(601_000, q.quoteId, 'alice', 'BUY')).toEqual({ ok: false, code: 'RFS100019' });
    expect(book.take(1_000, 'nope', 'alice', 'BUY')).toEqual({ ok: false, code: 'RFS100019' });
    expect(book.take(600_999, q.quoteId, 'alice', 'BUY').ok).toBe(true);
  });

  it('refuses a quote of another user with RFS100020', () => {
    const book = new QuoteBook(600_000);
    const q = issue(book, 0);
    expect(book.take(1, q.quoteId, 'bob', 'SELL')).toEqual({ ok: false, code: 'RFS100020' });
  });

  it('refuses once the quoted quantity is used up (RFS600021) and frees it again on release', () => {
    const book = new QuoteBook(600_000);
    const q = issue(book, 0);
    const first = book.take(1, q.quoteId, 'alice', 'BUY');
    expect(first.ok).toBe(true);
    expect(book.take(2, q.quoteId, 'alice', 'BUY')).toEqual({ ok: false, code: 'RFS600021' });
    expect(book.take(2, q.quoteId, 'alice', 'SELL')).toEqual({ ok: false, code: 'RFS600021' });
    if (first.ok) book.release(first.quote, first.quantity);
    expect(book.take(3, q.quoteId, 'alice', 'SELL').ok).toBe(true);
  });
});
