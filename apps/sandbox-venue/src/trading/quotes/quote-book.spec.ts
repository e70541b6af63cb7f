import { describe, it, expect } from '@jest/globals';
import { Decimal } from '../../money.js';
import { instrumentInfo, type InstrumentInfo } from '../../reference/instruments.js';
import { QuoteBook, type QuoteTerms } from './quote-book.js';
import { twoWayPrice } from './quote-pricing.js';

const TEN_MINUTES = 600_000;

function btc(): InstrumentInfo {
  const info = instrumentInfo('BTC.USD');
  if (info === undefined) throw new Error('BTC.USD');
  return info;
}

function terms(fields: Partial<QuoteTerms> = {}): QuoteTerms {
  return {
    userUuid: 'alice',
    accountGroupUuid: 'g',
    info: btc(),
    currency: 'BTC',
    quantity: new Decimal('1'),
    tenor: 'T',
    ...fields,
  };
}

function issue(book: QuoteBook, now: number, mid = '64000', quoteTerms: QuoteTerms = terms()) {
  return book.issue(now, quoteTerms, new Decimal(mid), '20260107');
}

describe('quote book (§2.2 rule 4, W4)', () => {
  it('issues unique opaque ids', () => {
    const book = new QuoteBook(TEN_MINUTES);
    const ids = new Set(Array.from({ length: 100 }, () => issue(book, 0).quoteId));
    expect(ids.size).toBe(100);
  });

  it('refuses an expired quote with RFS100019 (ten minutes after issue) and an unknown one alike', () => {
    const book = new QuoteBook(TEN_MINUTES);
    const q = issue(book, 1_000);
    expect(book.take(1_000, 'nope', 'alice', 'BUY')).toEqual({ ok: false, code: 'RFS100019' });
    expect(book.take(600_999, q.quoteId, 'alice', 'BUY').ok).toBe(true);
    expect(book.take(601_000, q.quoteId, 'alice', 'SELL')).toEqual({ ok: false, code: 'RFS100019' });
  });

  it('refuses a quote of another user with RFS100020', () => {
    const book = new QuoteBook(TEN_MINUTES);
    const q = issue(book, 0);
    expect(book.take(1, q.quoteId, 'bob', 'SELL')).toEqual({ ok: false, code: 'RFS100020' });
  });

  it('refuses once the quoted quantity is used up (RFS600021) and frees it again on release', () => {
    const book = new QuoteBook(TEN_MINUTES);
    const q = issue(book, 0);
    const first = book.take(1, q.quoteId, 'alice', 'BUY');
    expect(first.ok).toBe(true);
    expect(book.take(2, q.quoteId, 'alice', 'BUY')).toEqual({ ok: false, code: 'RFS600021' });
    expect(book.take(2, q.quoteId, 'alice', 'SELL')).toEqual({ ok: false, code: 'RFS600021' });
    if (first.ok) book.release(first.quote, first.quantity);
    expect(book.take(3, q.quoteId, 'alice', 'SELL').ok).toBe(true);
  });

  it('executes at the price its update showed, though the book keeps only the mid', () => {
    const book = new QuoteBook(TEN_MINUTES);
    const quoteCurrency = terms({ currency: 'USD', quantity: new Decimal('1234.5'), networkId: 'ETH' });
    const issued = issue(book, 0, '64123.45', quoteCurrency);
    expect(issued.price).toEqual(twoWayPrice(btc(), new Decimal('64123.45'), 'USD', new Decimal('1234.5')));
    const taken = book.take(1, issued.quoteId, 'alice', 'SELL');
    if (!taken.ok) throw new Error(taken.code);
    expect(taken.price.toFixed()).toBe(issued.price.bidPrice.toFixed());
    expect(taken.quantity.toFixed()).toBe(issued.price.bid.quantity);
    expect(taken.quoteAmount).toBe(issued.price.bid.quoteAmount);
    expect(taken.quote).toMatchObject({
      quoteId: issued.quoteId,
      instrument: 'BTC.USD',
      currency: 'USD',
      settleDate: '20260107',
      networkId: 'ETH',
      expiresAt: TEN_MINUTES,
    });
  });
});

describe('quote book retention (spec-gaps W36)', () => {
  it('drops expired quotes as new ones are issued: it holds one quote life of updates, not every update', () => {
    const book = new QuoteBook(1_000);
    // 4 updates/s of 25 streams for a minute: 6 000 issued, a second's worth held.
    for (let t = 0; t < 60_000; t += 250) for (let s = 0; s < 25; s += 1) issue(book, t);
    expect(book.size()).toBe(100);
  });

  it('empties once no stream issues, by the sweep alone', () => {
    const book = new QuoteBook(TEN_MINUTES);
    for (let i = 0; i < 1_000; i += 1) issue(book, i);
    book.sweep(TEN_MINUTES + 499);
    expect(book.size()).toBe(500);
    book.sweep(TEN_MINUTES + 1_000);
    expect(book.size()).toBe(0);
  });

  it('past its limit forgets the oldest quote early, counts it, and refuses it as expired', () => {
    let forgotten = 0;
    const book = new QuoteBook(TEN_MINUTES, 3, () => (forgotten += 1));
    const oldest = issue(book, 0);
    const kept = [issue(book, 1), issue(book, 2), issue(book, 3)];
    expect(book.size()).toBe(3);
    expect(forgotten).toBe(1);
    expect(book.take(4, oldest.quoteId, 'alice', 'BUY')).toEqual({ ok: false, code: 'RFS100019' });
    for (const q of kept) expect(book.take(4, q.quoteId, 'alice', 'BUY').ok).toBe(true);
  });

  it('a quote taken and then expired leaves nothing behind', () => {
    const book = new QuoteBook(1_000);
    const q = issue(book, 0);
    const taken = book.take(1, q.quoteId, 'alice', 'BUY');
    book.sweep(1_000);
    expect(book.size()).toBe(0);
    if (taken.ok) book.release(taken.quote, taken.quantity);
    expect(book.size()).toBe(0);
  });
});
