import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { BusConnection, BusCore, BusMetrics, BusPublisher } from '#bus';
import { Subjects, type PriceMessage } from '#contracts';
import { HealthRegistry, JsonLogger, MetricsRegistry } from '#observability';
import { FakeClock, startNatsServer, waitFor, type NatsServerHandle } from '#testing';
import { QUOTE_SWEEP_MS, QuoteBook } from './quote-book.js';

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
    const clock = new FakeClock(T0);
    const book = new QuoteBook(unused, 'gw.v1.price.>', 5_000, clock, 8_000);
    book.take('s1', price('q1', T0));
    book.take('s1', price('q2', T0 + 100));
    book.take('s1', price('q0', T0 - 100)); // late: does not replace the latest
    expect(book.latestOf('s1')?.price.quoteId).toBe('q2');
    expect(book.quote('q1')?.subject).toBe('s1');
    // the earlier of the connector's expiry (10 min) and venue timestamp + the configured life (5 s)
    expect(book.expiresAt(book.quote('q1') ?? assertNever())).toBe(T0 + 5_000);
    clock.advance(5_000);
    expect(book.quote('q1')).toBeUndefined();
    expect(book.quote('q2')?.price.quoteId).toBe('q2');
  });

  it('wakes a waiter with the next live quote of its stream, not a stale one', async () => {
    const clock = new FakeClock(T0);
    const book = new QuoteBook(unused, 'gw.v1.price.>', 600_000, clock, 8_000);
    const next = book.nextLive('s1', 1_000);
    book.take('s1', price('q1', T0, 'stale'));
    book.take('s1', price('q2', T0 + 1));
    expect((await next)?.price.quoteId).toBe('q2');
    const none = book.nextLive('s2', 10);
    clock.advance(10);
    expect(await none).toBeUndefined();
  });

  it("a quote's stream status is its latest message's: a quote held from a live price is stale or stopped with it", () => {
    const book = new QuoteBook(unused, 'gw.v1.price.>', 600_000, new FakeClock(T0), 8_000);
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
    const clock = new FakeClock(T0);
    let connectorHeardAt: number | undefined;
    const book = new QuoteBook(unused, 'gw.v1.price.>', 600_000, clock, 8_000, () => connectorHeardAt);
    book.take('s1', price('q1', T0));
    const held = book.quote('q1') ?? assertNever();
    clock.advance(8_000);
    expect(book.streamStatus(held)).toBe('live');
    clock.advance(1);
    expect(book.streamStatus(held)).toBe('stale');
    // the connector is heard: it says `stale` itself when its own rule (the venue's cadence) says so
    connectorHeardAt = T0 + 5_000;
    expect(book.streamStatus(held)).toBe('live');
    clock.advance(5_000);
    expect(book.streamStatus(held)).toBe('stale');
    connectorHeardAt = undefined;
    // a price read from the last-value stream counts from when it was stored there, not from when it was read
    book.take('s2', price('q2', T0), T0 - 10_000);
    expect(book.streamStatus(book.latestOf('s2') ?? assertNever())).toBe('stale');
    book.take('s1', price('q3', T0 + 8_001));
    expect(book.streamStatus(held)).toBe('live');
  });
});

describe('quote book: a connector that restarted', () => {
  // outside tester t2: the connector SIGKILLed and restarted; its dead life's last `live` price was still the latest
  // message of the stream and the new life's status was heard, so an order on that 17–29 s old quote executed
  it('a live message received before the connector life now heard began is stale, even while that life is heard and streams', () => {
    const clock = new FakeClock(T0);
    const life: { since?: number } = {};
    const book = new QuoteBook(
      unused,
      'gw.v1.price.>',
      600_000,
      clock,
      8_000,
      () => clock.now(), // the connector is heard all along
      () => life.since,
    );
    book.take('s1', price('q1', T0));
    const held = book.quote('q1') ?? assertNever();
    clock.advance(2_000);
    expect(book.streamStatus(held)).toBe('live');
    life.since = clock.now(); // a new life of the connector heard: it never published q1
    expect(book.streamStatus(held)).toBe('stale');
    clock.advance(10);
    book.take('s1', price('q2', T0 + 2_010)); // the new life's first price
    expect(book.streamStatus(book.quote('q2') ?? assertNever())).toBe('live');
    expect(book.streamStatus(held)).toBe('stale'); // the stream is live again, the earlier life's quote never is
  });
});

describe('quote book: a last value read back', () => {
  it('a live one nobody refreshed for PRICE_SILENT_STALE_MS is not taken, even while the connector is heard', () => {
    const clock = new FakeClock(T0);
    const book = new QuoteBook(unused, 'gw.v1.price.>', 600_000, clock, 8_000, () => clock.now());
    expect(book.takeStored('s1', price('q1', T0 - 8_000), T0 - 8_000)).toBe(false);
    expect(book.latestOf('s1')).toBeUndefined();
    expect(book.quote('q1')).toBeUndefined();
    expect(book.takeStored('s1', price('q2', T0 - 7_999), T0 - 7_999)).toBe(true);
    expect(book.streamStatus(book.quote('q2') ?? assertNever())).toBe('live');
  });
});

describe('quote book: it holds what is within its life', () => {
  const LIFE = 600_000;

  it('expired quotes and streams leave as new prices arrive, a few per price (no walk over the book)', () => {
    const clock = new FakeClock(T0);
    const book = new QuoteBook(unused, 'gw.v1.price.>', LIFE, clock, 8_000);
    for (let i = 0; i < 200; i++) book.take(`s${i % 100}`, price(`q${i}`, T0));
    expect(book.counts).toEqual({ quotes: 200, streams: 100, waiting: 0 });

    clock.advance(LIFE);
    book.take('fresh', price('f0', clock.now()));
    // one price does not pay for the whole book
    expect(book.counts.quotes).toBeGreaterThan(100);
    for (let i = 1; i < 100; i++) book.take('fresh', price(`f${i}`, clock.now()));
    expect(book.counts).toEqual({ quotes: 100, streams: 1, waiting: 0 });
    expect(book.quote('q0')).toBeUndefined();
    expect(book.quote('f99')?.subject).toBe('fresh');
  });

  it('an expired quote is remembered for one quote life (told from one never seen), then forgotten (outside tester t3, F1)', () => {
    const clock = new FakeClock(T0);
    const book = new QuoteBook(unused, 'gw.v1.price.>', LIFE, clock, 8_000);
    book.take('s1', price('q1', T0));
    book.take('s1', price('q2', T0 + 10));
    expect(book.expiredAt('q1')).toBeUndefined(); // within its life
    clock.advance(LIFE);
    expect(book.quote('q1')).toBeUndefined();
    expect(book.expiredAt('q1')).toBe(T0 + LIFE);
    expect(book.expiredAt('never-seen')).toBeUndefined();
    // dropped by later prices or the sweep: still known as expired
    clock.advance(10);
    for (let i = 0; i < 3; i++) book.take('s2', price(`f${i}`, clock.now()));
    book.prune();
    expect(book.quote('q2')).toBeUndefined();
    expect(book.expiredAt('q2')).toBe(T0 + 10 + LIFE);
    expect(book.expiredRemembered).toBe(2);
    // one quote life after it left the book, forgotten: the memory is bounded in time
    clock.advance(LIFE);
    book.take('s2', price('f9', clock.now()));
    book.prune();
    expect(book.expiredAt('q1')).toBeUndefined();
    expect(book.expiredAt('q2')).toBeUndefined();
    expect(book.expiredRemembered).toBe(3); // f0–f2, which expired meanwhile
  });

  it('a quote first heard stale and already past its life (a venue clock behind) is known as expired, never as a quote', () => {
    const clock = new FakeClock(T0);
    const book = new QuoteBook(unused, 'gw.v1.price.>', LIFE, clock, 8_000);
    book.take('s1', price('late', T0 - LIFE - 60_000, 'stale'));
    expect(book.quote('late')).toBeUndefined();
    expect(book.expiredAt('late')).toBe(T0 - 60_000);
    expect(book.latestOf('s1')?.price.status).toBe('stale');
    // a stale repeat of a quote the book holds live changes nothing
    book.take('s1', price('q1', T0));
    book.take('s1', price('q1', T0, 'stale'));
    expect(book.expiredAt('q1')).toBeUndefined();
    expect(book.quote('q1')?.price.status).toBe('live');
  });

  it('a stopped stream is kept while its quotes are within their life (they read stopped), then forgotten', () => {
    const clock = new FakeClock(T0);
    const book = new QuoteBook(unused, 'gw.v1.price.>', LIFE, clock, 8_000);
    book.take('s1', price('q1', T0));
    const held = book.quote('q1') ?? assertNever();
    clock.advance(1_000);
    const { quoteId: _none, ...stopped } = price('q1', T0 + 1_000, 'stopped');
    book.take('s1', stopped);

    clock.advance(LIFE - 1_001);
    expect(book.quote('q1')).toBe(held);
    expect(book.streamStatus(held)).toBe('stopped');
    expect(book.latestOf('s1')?.price.status).toBe('stopped');

    clock.advance(1_001);
    book.prune();
    expect(book.quote('q1')).toBeUndefined();
    expect(book.latestOf('s1')).toBeUndefined();
    expect(book.counts).toEqual({ quotes: 0, streams: 0, waiting: 0 });
  });

  it('a waiter no quote reaches is forgotten at its timeout; a woken one leaves nothing behind', async () => {
    const clock = new FakeClock(T0);
    const book = new QuoteBook(unused, 'gw.v1.price.>', LIFE, clock, 8_000);
    const first = book.nextLive('never', 1_000);
    const second = book.nextLive('never', 2_000);
    const woken = book.nextLive('s1', 1_000);
    expect(book.counts.waiting).toBe(2);
    book.take('s1', price('q1', T0));
    expect((await woken)?.price.quoteId).toBe('q1');
    expect(book.counts.waiting).toBe(1);
    clock.advance(1_000);
    expect(await first).toBeUndefined();
    expect(book.counts.waiting).toBe(1);
    clock.advance(1_000);
    expect(await second).toBeUndefined();
    expect(book.counts.waiting).toBe(0);
    expect(clock.pending).toBe(0);
  });
});

describe('quote book on NATS: prices taken from the subscription, swept on its clock', () => {
  const silent = new JsonLogger('quote-book-test', 'test', 'error', { write: () => undefined });
  const subjects = new Subjects('gw.v1', 'acct');
  let server: NatsServerHandle;
  let connection: BusConnection;
  let publisher: BusPublisher;

  beforeAll(async () => {
    server = await startNatsServer();
    const metrics = new BusMetrics(new MetricsRegistry('quote-book-test', { defaultMetrics: false }));
    connection = await BusConnection.open(
      { servers: server.url, name: 'quote-book-test' },
      metrics,
      new HealthRegistry(500),
      silent,
    );
    publisher = new BusPublisher(connection, metrics, silent);
  });
  afterAll(async () => {
    await connection?.close();
    await server?.stop();
  });

  it('quotes past their life and their streams are dropped by the sweep with no further price; stop ends it', async () => {
    const clock = new FakeClock(T0);
    const book = new QuoteBook(new BusCore(connection, silent), subjects.allPrices, 600_000, clock, 8_000);
    book.start();
    await connection.client.flush();
    for (let i = 0; i < 30; i++) {
      const message = price(`q${i}`, T0);
      const subject = subjects.price({ ...message, instrument: i % 2 === 0 ? 'BTC.USD' : 'ETH.USD' });
      publisher.publish(subject, message, 'price');
    }
    await waitFor(() => book.counts.quotes === 30, 'the 30 quotes taken');
    expect(book.counts.streams).toBe(2);

    clock.advance(600_000 + QUOTE_SWEEP_MS);
    expect(book.counts).toEqual({ quotes: 0, streams: 0, waiting: 0 });
    book.stop();
    expect(clock.pending).toBe(0);
  });
});

function assertNever(): never {
  throw new Error('quote not found');
}
