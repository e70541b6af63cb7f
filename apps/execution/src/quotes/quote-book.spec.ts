import { describe, expect, it } from '@jest/globals';
import type { BusCore } from '#bus';
import type { PriceMessage } from '#contracts';
import { QuoteBook } from './quote-book.js';

const T0 = 1_700_000_000_000;
const unused = {} as BusCore; // start() is not called: prices are handed in with take()

function price(quoteId: string, venueTimestamp: number, status: PriceMessage['status'] = 'live'): PriceMessage {
  return {
    v: 1,
    status,
    accountGroup: 'g',
    instrument: 'BTC.USD',
    tenor: 'T',
    currency: 'BTC',
    quantity: '0.5',
    quoteId,
    venueTimestamp,
    quoteExpiresAt: venueTimestamp + 600_000,
    offer: { price: '2', quantity: '0.5', quoteAmount: '1' },
    bid: { price: '1', quantity: '0.5', quoteAmount: '0.5' },
  };
}

describe('quote book', () => {
  it('finds a quote by id within its life, the latest per stream, and ignores an older update', () => {
    let now = T0;
    const book = new QuoteBook(unused, 'gw.v1.price.>', 5_000, () => now, 8_000);
    book.take('s1', price('q1', T0));
    book.take('s1', price('q2', T0 + 100));
    book.take('s1', price('q0', T0 - 100)); // late: does not replace the latest
    expect(book.latestOf('s1')?.price.quoteId).toBe('q2');
    expect(book.quote('q1')?.subject).toBe('s1');
    // the earlier of the connector's expiry (10 min) and venue timestamp + the configured life (5 s)
    expect(book.expiresAt(book.quote('q1') ?? assertNever())).toBe(T0 + 5_000);
    now = T0 + 5_000;
    expect(book.quote('q1')).toBeUndefined();
    expect(book.quote('q2')?.price.quoteId).toBe('q2');
  });

  it('wakes a waiter with the next live quote of its stream, not a stale one', async () => {
    const book = new QuoteBook(unused, 'gw.v1.price.>', 600_000, () => T0, 8_000);
    const next = book.nextLive('s1', 1_000);
    book.take('s1', price('q1', T0, 'stale'));
    book.take('s1', price('q2', T0 + 1));
    expect((await next)?.price.quoteId).toBe('q2');
    expect(await book.nextLive('s2', 10)).toBeUndefined();
  });

  it("a quote's stream status is its latest message's: a quote held from a live price is stale or stopped with it", () => {
    const book = new QuoteBook(unused, 'gw.v1.price.>', 600_000, () => T0, 8_000);
    book.take('s1', price('q1', T0));
    const held = book.quote('q1') ?? assertNever();
    expect(book.streamStatus(held)).toBe('live');
    book.take('s1', { ...price('q1', T0), status: 'stale' });
    expect(book.streamStatus(held)).toBe('stale');
    book.take('s1', { ...price('q1', T0), status: 'stopped' });
    expect(book.streamStatus(held)).toBe('stopped');
    book.take('s1', price('q3', T0 + 1));
    expect(book.streamStatus(held)).toBe('live'); // live again: the old quote is as good as its life and age limits
  });

  it('a live stream is stale once neither it nor the connector was heard for PRICE_SILENT_STALE_MS (a dead connector never says so)', () => {
    let now = T0;
    let connectorHeardAt: number | undefined;
    const book = new QuoteBook(
      unused,
      'gw.v1.price.>',
      600_000,
      () => now,
      8_000,
      () => connectorHeardAt,
    );
    book.take('s1', price('q1', T0));
    const held = book.quote('q1') ?? assertNever();
    now = T0 + 8_000;
    expect(book.streamStatus(held)).toBe('live');
    now = T0 + 8_001;
    expect(book.streamStatus(held)).toBe('stale');
    // the connector is heard: it says `stale` itself when its own rule (the venue's cadence) says so
    connectorHeardAt = T0 + 5_000;
    expect(book.streamStatus(held)).toBe('live');
    now = T0 + 13_001;
    expect(book.streamStatus(held)).toBe('stale');
    connectorHeardAt = undefined;
    // a price read from the last-value stream counts from when it was stored there, not from when it was read
    book.take('s2', price('q2', T0), T0 - 10_000);
    expect(book.streamStatus(book.latestOf('s2') ?? assertNever())).toBe('stale');
    book.take('s1', price('q3', T0 + 8_001));
    expect(book.streamStatus(held)).toBe('live');
  });
});

function assertNever(): never {
  throw new Error('quote not found');
}
