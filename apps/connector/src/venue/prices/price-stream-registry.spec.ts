import { afterEach, describe, expect, it } from '@jest/globals';
import type { PriceMessage, StreamRequest } from '#contracts';
import { MetricsRegistry } from '#observability';
import type { PriceUpdate, SubscribeAck, UnsubscribeReply } from '#venue-api';
import { OutboundLimiter } from '../outbound/outbound-limiter.js';
import { FakeChannel } from '../testing/fake-channel.js';
import { FakeClock } from '../testing/fake-clock.js';
import { captureLogger } from '../testing/test-logger.js';
import { VenueMetrics } from '../venue-metrics.js';
import { PriceStreamRegistry, QUOTE_LIFETIME_MS } from './price-stream-registry.js';

const request = (requester: string, extra: Partial<StreamRequest> = {}): StreamRequest =>
  Object.assign(
    {
      instrument: 'BTC.USD',
      quantity: '0.5',
      currency: 'BTC',
      tenor: 'T',
      accountGroup: 'g-1',
      requester,
    },
    extra,
  );

let registries: PriceStreamRegistry[] = [];
afterEach(() => {
  for (const r of registries) r.close();
  registries = [];
});

function setup(staleAfterMs = 1_000, connectionPriceRate?: number) {
  // the venue's timestamps here are small numbers (10, 2_000, …): the local clock starts with them, so their quotes
  // are within their life on arrival (one past it is published stale, never live: spec-gaps W37)
  const clock = new FakeClock(0);
  const channel = new FakeChannel();
  const metricsRegistry = new MetricsRegistry('t', { defaultMetrics: false });
  const metrics = new VenueMetrics(metricsRegistry);
  const limiter = new OutboundLimiter(
    { messagesPerWindow: 1_000, windowMs: 1_000, orderIntervalMs: 250 },
    clock,
    metrics,
  );
  const registry = new PriceStreamRegistry(channel, limiter, metrics, captureLogger().logger, clock, {
    staleAfterMs,
    subscribeTimeoutMs: 5_000,
    maxAheadMs: 60_000,
    ...(connectionPriceRate !== undefined ? { connectionPriceRate } : {}),
  });
  registries.push(registry);
  const prices: PriceMessage[] = [];
  registry.prices$.subscribe((p) => prices.push(p));
  const settle = () => new Promise((resolve) => setImmediate(resolve));
  const ack = (tag: string, extra: Partial<SubscribeAck> = {}): SubscribeAck => ({
    messageType: 'subscribe',
    chanId: 'c',
    timestamp: clock.now(),
    success: true,
    message: 'Subscribed',
    subscriptionId: `sub-${tag}`,
    instrument: 'BTC.USD',
    quantity: '0.50000000',
    code: '',
    tenor: 'T',
    settleDate: '',
    tag,
    ...extra,
  });
  const price = (tag: string, timestamp: number, bid = '64000.12345678901234567890'): PriceUpdate => ({
    messageType: 'pricestream',
    chanId: 'c',
    timestamp,
    instrument: 'BTC.USD',
    quoteId: `q-${timestamp}`,
    bid: { price: bid, quantity: '0.5', quoteAmount: '32000.06' },
    offer: { price: '64010.5', quantity: '0.5', quoteAmount: '32005.25' },
    tenor: 'T',
    settleDate: '20261124',
    tag,
  });
  return { clock, channel, metrics, registry, prices, settle, ack, price };
}

/** The venue's reply to an unsubscribe (W10). */
const unsubscribed = (subscriptionId: string, tag: string): UnsubscribeReply => ({
  messageType: 'unsubscribe',
  chanId: 'c',
  subscriptionId,
  tag,
  success: true,
  message: 'Unsubscribed',
});

/** One stream held at the venue (asked for by `s1`, with its lease when given; acknowledged); its tag. */
async function heldStream(
  context: ReturnType<typeof setup>,
  { subscriptionId, leaseSeconds }: { subscriptionId?: string; leaseSeconds?: number } = {},
): Promise<string> {
  const { channel, registry, settle, ack } = context;
  channel.up();
  const granted = registry.acquire(request('s1', leaseSeconds === undefined ? {} : { leaseSeconds }));
  await settle();
  const tag = channel.sentOfType('subscribe')[0]?.tag ?? '';
  channel.deliver(ack(tag, subscriptionId === undefined ? {} : { subscriptionId }));
  await granted;
  return tag;
}

/** Streams of these sizes held at the venue, each with one price (venue time 10). */
async function priceStreams(context: ReturnType<typeof setup>, quantities: string[]): Promise<void> {
  const { channel, registry, settle, ack, price } = context;
  channel.up();
  const granted = quantities.map((quantity, i) => registry.acquire(request(`s${i}`, { quantity, leaseSeconds: 3600 })));
  await settle();
  const tags = channel.sentOfType('subscribe').map((frame) => frame.tag ?? '');
  for (const tag of tags) channel.deliver(ack(tag));
  await Promise.all(granted);
  for (const tag of tags) channel.deliver(price(tag, 10));
}

describe('PriceStreamRegistry', () => {
  it('refuses a new stream BUSY while more subscribes wait than can leave in time, STREAM_LIMIT at its maximum (a flood of requests)', async () => {
    const clock = new FakeClock(1_700_000_000_000);
    const channel = new FakeChannel();
    const metrics = new VenueMetrics(new MetricsRegistry('t', { defaultMetrics: false }));
    // two subscribes per second, spread: ten can leave within 5 s, four fifths of the 6.25 s subscribe timeout
    const limiter = new OutboundLimiter(
      { messagesPerWindow: 3, othersPerWindow: 2, windowMs: 1_000, orderIntervalMs: 250 },
      clock,
      metrics,
    );
    const registry = new PriceStreamRegistry(channel, limiter, metrics, captureLogger().logger, clock, {
      staleAfterMs: 1_000,
      subscribeTimeoutMs: 6_250,
      maxAheadMs: 60_000,
      maxStreams: 14,
    });
    registries.push(registry);
    channel.up();
    const asked = Array.from({ length: 15 }, (_, i) =>
      registry.acquire(request(`flood${i}`, { quantity: `${i + 1}` })),
    );
    expect(limiter.othersQueued).toBe(10);
    const refused = await Promise.all(asked.slice(11));
    expect(refused.map((r) => (r.ok ? 'ok' : r.code))).toEqual(['BUSY', 'BUSY', 'BUSY', 'BUSY']);
    expect(refused[0]).toMatchObject({
      message: "10 subscriptions wait for the venue's message budget; ask again in a few seconds",
    });
    await new Promise((resolve) => setImmediate(resolve));
    expect(channel.sentOfType('subscribe')).toHaveLength(1); // one left, ten wait: nothing queued for the refused
    // an identical request joins its stream (no new frame), however busy
    const joined = registry.acquire(request('joiner', { quantity: '11' }));
    // the subscribe timeout passes with most still queued: they time out, and their frames never leave
    clock.advance(6_250);
    await new Promise((resolve) => setImmediate(resolve));
    const sentByNow = channel.sentOfType('subscribe').length;
    expect(sentByNow).toBeLessThanOrEqual(11);
    expect(await joined).toMatchObject({ ok: false, code: 'TIMEOUT' });
    clock.advance(10_000);
    await new Promise((resolve) => setImmediate(resolve));
    expect(channel.sentOfType('subscribe')).toHaveLength(sentByNow);
    expect(limiter.othersQueued).toBe(0);
  });

  it('refuses a new stream STREAM_LIMIT once it holds maxStreams; a held one is still granted', async () => {
    const { channel, clock, metrics, settle, ack } = setup();
    const limiter = new OutboundLimiter(
      { messagesPerWindow: 1_000, windowMs: 1_000, orderIntervalMs: 250 },
      clock,
      metrics,
    );
    const options = { staleAfterMs: 1_000, subscribeTimeoutMs: 5_000, maxAheadMs: 60_000, maxStreams: 1 };
    const capped = new PriceStreamRegistry(channel, limiter, metrics, captureLogger().logger, clock, options);
    registries.push(capped);
    channel.up();
    const first = capped.acquire(request('s1'));
    await settle();
    channel.deliver(ack(channel.sentOfType('subscribe').at(-1)?.tag ?? ''));
    expect((await first).ok).toBe(true);
    expect(await capped.acquire(request('s2', { quantity: '2' }))).toEqual({
      ok: false,
      code: 'STREAM_LIMIT',
      message: 'this connector holds its maximum of 1 price streams (VENUE_MAX_STREAMS); release some first',
    });
    expect((await capped.acquire(request('s3'))).ok).toBe(true);
  });

  it('shares one venue subscription between identical requests and resolves both on the ack', async () => {
    const { channel, registry, settle, ack } = setup();
    channel.up();
    const first = registry.acquire(request('s1'));
    const second = registry.acquire(request('s2', { quantity: '0.50' }));
    await settle();
    const subscribes = channel.sentOfType('subscribe');
    expect(subscribes).toHaveLength(1);
    const tag = subscribes[0]?.tag ?? '';
    expect(tag).not.toBe('');
    channel.deliver(ack(tag));
    expect((await first).ok).toBe(true);
    expect((await second).ok).toBe(true);
    expect(registry.counts()).toEqual({ live: 1, stale: 0, pending: 0 });
    const third = await registry.acquire(request('s3'));
    expect(third.ok).toBe(true);
    expect(channel.sentOfType('subscribe')).toHaveLength(1);
  });

  it('routes prices by tag and publishes exact decimals, the quote expiry and settleDate', async () => {
    const { channel, registry, prices, settle, ack, price } = setup();
    channel.up();
    const granted = registry.acquire(request('s1'));
    const other = registry.acquire(request('s1', { instrument: 'ETH.USD', currency: 'ETH' }));
    await settle();
    const [btc, eth] = channel.sentOfType('subscribe').map((s) => s.tag ?? '');
    channel.deliver(ack(btc ?? ''));
    channel.deliver(ack(eth ?? ''));
    await granted;
    await other;
    channel.deliver(price(eth ?? '', 1_000));
    channel.deliver(price(btc ?? '', 2_000));
    const live = prices.filter((p) => p.status === 'live');
    expect(live.map((p) => p.instrument)).toEqual(['ETH.USD', 'BTC.USD']);
    expect(live[1]).toEqual({
      v: 1,
      status: 'live',
      accountGroup: 'g-1',
      instrument: 'BTC.USD',
      tenor: 'T',
      currency: 'BTC',
      quantity: '0.5',
      quoteId: 'q-2000',
      venueTimestamp: 2_000,
      quoteExpiresAt: 2_000 + QUOTE_LIFETIME_MS,
      bid: { price: '64000.12345678901234567890', quantity: '0.5', quoteAmount: '32000.06' },
      offer: { price: '64010.5', quantity: '0.5', quoteAmount: '32005.25' },
      settleDate: '20261124',
    });
  });

  it('drops updates whose venue timestamp is not newer, and counts them', async () => {
    const context = setup();
    const { channel, prices, price, metrics } = context;
    const tag = await heldStream(context);
    channel.deliver(price(tag, 3_000));
    channel.deliver(price(tag, 2_000));
    channel.deliver(price(tag, 3_000));
    channel.deliver(price(tag, 4_000));
    expect(prices.map((p) => p.venueTimestamp)).toEqual([3_000, 4_000]);
    expect((await metrics.outOfOrderDropped.get()).values[0]?.value).toBe(2);
  });

  it('refuses a price stamped far ahead of the clock, counted, and the stream goes on (it froze it, outside tester)', async () => {
    const context = setup();
    const { channel, prices, price, metrics, clock } = context;
    const tag = await heldStream(context);
    const now = clock.now();
    channel.deliver(price(tag, now + 1e12));
    channel.deliver(price(tag, now + 1));
    expect(prices.map((p) => p.venueTimestamp)).toEqual([now + 1]);
    const rejected = (await metrics.framesRejected.get()).values.find((v) => v.labels.reason === 'timestamp_ahead');
    expect(rejected?.value).toBe(1);
  });

  it('a venue clock behind: the lag on arrival is a gauge; a quote already past its life is published stale and counted (t3 F3)', async () => {
    const context = setup();
    const { channel, prices, price, metrics, clock } = context;
    const tag = await heldStream(context);
    const lag = async () => (await metrics.venueClockLagSeconds.get()).values[0]?.value;
    expect(await lag()).toBe(0);
    channel.deliver(price(tag, clock.now() - 2_500)); // 2.5 s behind: live
    expect(await lag()).toBe(2.5);
    channel.deliver(price(tag, clock.now() - QUOTE_LIFETIME_MS - 1)); // expired a millisecond before it arrived
    expect(prices.map((p) => [p.status, p.code])).toEqual([
      ['live', undefined],
      ['stale', 'QUOTE_EXPIRED_ON_ARRIVAL'],
    ]);
    expect(await lag()).toBe((QUOTE_LIFETIME_MS + 1) / 1000);
    expect((await metrics.pricesExpiredOnArrival.get()).values[0]?.value).toBe(1);
    expect((await metrics.staleStreams.get()).values[0]?.value).toBe(1);
  });

  // outside tester: with the venue's prices stopped (venue frozen, streams ended) the gauge kept the lag of the last
  // price ever taken, as if measured now — a GatewayVenueClockBehind that fired kept firing with no price behind it
  it('the clock lag is of a price taken within the stale period: silence longer than that reads 0 (no measurement)', async () => {
    const context = setup(1_000);
    const { channel, price, metrics, clock } = context;
    const tag = await heldStream(context);
    const lag = async () => (await metrics.venueClockLagSeconds.get()).values[0]?.value;
    channel.deliver(price(tag, clock.now() - 40_000)); // 40 s behind
    expect(await lag()).toBe(40);
    clock.advance(900);
    expect(await lag()).toBe(40);
    clock.advance(200); // nothing for longer than the stale period
    expect(await lag()).toBe(0);
    channel.deliver(price(tag, clock.now() - 2_500));
    expect(await lag()).toBe(2.5);
  });

  it('counts a price for an unknown tag as rejected instead of publishing it', async () => {
    const { channel, prices, price, metrics } = setup();
    channel.up();
    channel.deliver(price('nobody', 1));
    expect(prices).toEqual([]);
    const rejected = (await metrics.framesRejected.get()).values.find((v) => v.labels.reason === 'unknown_tag');
    expect(rejected?.value).toBe(1);
  });

  it('surfaces a failed subscribe to the requester and as a stopped price', async () => {
    const { channel, registry, prices, settle, ack } = setup();
    channel.up();
    const granted = registry.acquire(request('s1'));
    await settle();
    const tag = channel.sentOfType('subscribe')[0]?.tag ?? '';
    channel.deliver(ack(tag, { success: false, code: 'RFS100011', message: 'No price' }));
    expect(await granted).toEqual({ ok: false, code: 'RFS100011', message: 'No price' });
    expect(prices).toEqual([expect.objectContaining({ status: 'stopped', code: 'RFS100011' })]);
    expect(registry.counts()).toEqual({ live: 0, stale: 0, pending: 0 });
  });

  it('marks a silent stream stale, then live again on the next update (one sweep timer)', async () => {
    const context = setup(1_000);
    const { clock, channel, registry, prices, price, metrics } = context;
    const tag = await heldStream(context, { leaseSeconds: 3600 });
    channel.deliver(price(tag, 10));
    clock.advance(1_300);
    expect(prices.map((p) => p.status)).toEqual(['live', 'stale']);
    expect(prices[1]?.quoteId).toBe('q-10');
    expect(registry.counts()).toEqual({ live: 0, stale: 1, pending: 0 });
    expect((await metrics.staleStreams.get()).values[0]?.value).toBe(1);
    clock.advance(5_000);
    expect(prices).toHaveLength(2);
    channel.deliver(price(tag, 20));
    expect(prices.map((p) => p.status)).toEqual(['live', 'stale', 'live']);
    expect(registry.counts()).toEqual({ live: 1, stale: 0, pending: 0 });
  });

  it('W13 per connection: streams sharing the venue rate are stale only after twice their turn', async () => {
    // 8 streams at 4 updates/s on the connection: each hears from the venue every 2 s; stale after 4 s of silence
    const context = setup(1_000, 4);
    const { clock, registry, prices } = context;
    await priceStreams(context, ['0.1', '0.2', '0.3', '0.4', '0.5', '0.6', '0.7', '0.8']);
    clock.advance(3_500);
    expect(prices.filter((p) => p.status === 'stale')).toHaveLength(0);
    expect(registry.counts()).toEqual({ live: 8, stale: 0, pending: 0 });
    clock.advance(1_000);
    expect(prices.filter((p) => p.status === 'stale')).toHaveLength(8);
  });

  it('W13 not told: streams taking turns on a shared rate stay live; one the venue stops sending goes stale, every one when the connection falls silent', async () => {
    const context = setup(1_000);
    const { clock, channel, metrics, registry, prices, price } = context;
    const quantities = Array.from({ length: 30 }, (_, i) => String(i + 1));
    await priceStreams(context, quantities);
    const tags = channel.sentOfType('subscribe').map((frame) => frame.tag ?? '');
    let turn = 0;
    // The venue's 10 updates/s shared by the connection: one stream every 100 ms, in turn (each every 3 s);
    // a stream with nothing to send passes its turn to the next.
    const takeTurns = (ms: number, silent?: string) => {
      for (let elapsed = 0; elapsed < ms; elapsed += 100) {
        let tag = tags[turn++ % tags.length] ?? '';
        if (tag === silent) tag = tags[turn++ % tags.length] ?? '';
        channel.deliver(price(tag, clock.now()));
        clock.advance(100);
      }
    };
    const staleSizes = () => prices.filter((p) => p.status === 'stale').map((p) => p.quantity);
    takeTurns(12_000);
    expect(staleSizes()).toEqual([]);
    expect(registry.counts()).toEqual({ live: 30, stale: 0, pending: 0 });
    expect((await metrics.staleAfterSeconds.get()).values[0]?.value).toBeGreaterThan(5);

    takeTurns(12_000, tags[0]);
    expect(staleSizes()).toEqual(['1']);
    expect(registry.counts()).toEqual({ live: 29, stale: 1, pending: 0 });

    clock.advance(2_300);
    expect(registry.counts()).toEqual({ live: 0, stale: 30, pending: 0 });
  });

  it('W13 not told: streams each on a cadence of their own keep PRICE_STALE_AFTER_MS, however many went quiet', async () => {
    const context = setup(1_000);
    const { clock, channel, registry, price } = context;
    await priceStreams(
      context,
      Array.from({ length: 30 }, (_, i) => String(i + 1)),
    );
    const tags = channel.sentOfType('subscribe').map((frame) => frame.tag ?? '');
    // every 250 ms an update for each of the first two streams only: 28 went quiet
    for (let elapsed = 0; elapsed < 1_500; elapsed += 250) {
      for (const tag of tags.slice(0, 2)) channel.deliver(price(tag, clock.now()));
      clock.advance(250);
    }
    expect(registry.counts()).toEqual({ live: 2, stale: 28, pending: 0 });
  });

  it('without a shared rate, the same silence turns streams stale after staleAfterMs', async () => {
    const context = setup(1_000);
    await priceStreams(context, ['0.1', '0.2']);
    context.clock.advance(1_300);
    const { prices } = context;
    expect(prices.filter((p) => p.status === 'stale')).toHaveLength(2);
  });

  it('re-subscribes every stream after a reconnect and counts "already held" as held', async () => {
    const context = setup();
    const { channel, registry, settle, ack, price, prices } = context;
    const tag = await heldStream(context);
    channel.down();
    expect(registry.counts().pending).toBe(1);
    channel.up();
    await settle();
    const resent = channel.sentOfType('subscribe');
    expect(resent).toHaveLength(2);
    expect(resent[1]?.tag).toBe(tag);
    channel.deliver(ack(tag, { success: false, code: 'RFS100017', message: 'already held' }));
    expect(registry.counts()).toEqual({ live: 1, stale: 0, pending: 0 });
    channel.deliver(price(tag, 5));
    expect(prices.at(-1)?.status).toBe('live');
  });

  it('a lease renewed while the venue connection is down is kept: the renewal is answered at once, the stream lives on', async () => {
    const context = setup();
    const { clock, channel, registry, settle, ack } = context;
    const tag = await heldStream(context, { leaseSeconds: 30 });
    channel.down();
    clock.advance(15_000);
    const renewal = await registry.acquire(request('s1', { leaseSeconds: 30 })); // no wait for the venue
    expect(renewal).toMatchObject({ ok: true, leaseExpiresAt: clock.now() + 30_000 });
    clock.advance(10_000); // beyond the subscribe timeout: nothing was waiting, nothing is dropped
    await settle();
    expect(registry.counts().pending).toBe(1);
    channel.up();
    await settle();
    channel.deliver(ack(tag, { success: false, code: 'RFS100017' }));
    expect(registry.counts()).toEqual({ live: 1, stale: 0, pending: 0 });
    expect(channel.sentOfType('unsubscribe')).toHaveLength(0);
  });

  it('asks again when a re-subscribe is never acknowledged (the venue may drop a frame)', async () => {
    const context = setup();
    const { clock, channel, registry, settle, ack } = context;
    const tag = await heldStream(context, { leaseSeconds: 3600 });
    channel.down();
    channel.up();
    await settle();
    expect(channel.sentOfType('subscribe')).toHaveLength(2);
    clock.advance(5_300);
    await settle();
    expect(channel.sentOfType('subscribe')).toHaveLength(3);
    channel.deliver(ack(tag, { success: false, code: 'RFS100017' }));
    expect(registry.counts()).toEqual({ live: 1, stale: 0, pending: 0 });
  });

  it('woken after a pause longer than the lease, it reads the renewals that waited before judging leases (outside tester)', async () => {
    const context = setup();
    const { clock, registry, prices, settle } = context;
    await heldStream(context);
    clock.jump(40_000); // stopped 40 s: the 30 s lease is past, its renewal waits in the socket
    clock.advance(100); // the first sweep on waking: the process was paused, leases are not judged yet
    expect(prices.filter((p) => p.status === 'stopped')).toEqual([]);
    await registry.acquire(request('s1')); // the renewal, read after the timer
    clock.advance(1_000);
    await settle();
    expect(prices.filter((p) => p.status === 'stopped')).toEqual([]);
    expect(registry.counts().live + registry.counts().stale).toBe(1);
  });

  it('unsubscribes at the venue when the last lease is released or expires', async () => {
    const { clock, channel, registry, settle, ack, prices } = setup();
    channel.up();
    const a = registry.acquire(request('s1', { leaseSeconds: 5 }));
    const b = registry.acquire(request('s2', { leaseSeconds: 60 }));
    await settle();
    const tag = channel.sentOfType('subscribe')[0]?.tag ?? '';
    channel.deliver(ack(tag));
    await a;
    await b;
    registry.release({ ...request('s2') });
    await settle();
    expect(channel.sentOfType('unsubscribe')).toEqual([]);
    clock.advance(6_000);
    await settle();
    expect(channel.sentOfType('unsubscribe')).toEqual([{ messageType: 'unsubscribe', subscriptionId: `sub-${tag}` }]);
    expect(prices.at(-1)).toEqual(expect.objectContaining({ status: 'stopped', code: 'LEASE_EXPIRED' }));
    expect(registry.counts()).toEqual({ live: 0, stale: 0, pending: 0 });
  });

  it('an unsubscribe that could not be sent (connection down) is sent on the next connection', async () => {
    const context = setup();
    const { channel, registry, settle } = context;
    const tag = await heldStream(context, { leaseSeconds: 5 });
    channel.down();
    registry.release(request('s1'));
    await settle();
    expect(channel.sentOfType('unsubscribe')).toEqual([]); // nothing could leave
    channel.up();
    await settle();
    expect(channel.sentOfType('unsubscribe')).toEqual([{ messageType: 'unsubscribe', subscriptionId: `sub-${tag}` }]);
  });

  it('a streamStop under an older tag reaches the stream that adopted that subscription ("already held", no id)', async () => {
    const { channel, registry, settle, ack, prices } = setup();
    channel.up();
    const first = registry.acquire(request('s1'));
    await settle();
    const oldTag = channel.sentOfType('subscribe')[0]?.tag ?? '';
    channel.deliver(ack(oldTag));
    await first;
    channel.down();
    registry.release(request('s1')); // its unsubscribe cannot leave: the venue keeps the subscription
    await settle();
    channel.up();
    const second = registry.acquire(request('s2'));
    await settle();
    const newTag = channel.sentOfType('subscribe').at(-1)?.tag ?? '';
    expect(newTag).not.toBe(oldTag);
    channel.deliver(ack(newTag, { success: false, code: 'RFS100017', message: 'already held' }));
    expect((await second).ok).toBe(true);
    channel.deliver({ messageType: 'streamStop', chanId: 'c', tag: oldTag, code: 'RFS100020', message: 'halted' });
    expect(prices.at(-1)).toEqual(expect.objectContaining({ status: 'stopped', code: 'RFS100020' }));
  });

  it('released and asked for again at once: the old subscription’s stop (answering our unsubscribe) leaves the new stream alone', async () => {
    // outside tester, dialect unsubscribe-then-streamStop: the new stream, still waiting for its ack, was stopped
    const context = setup();
    const { channel, registry, settle, ack, prices } = context;
    const oldTag = await heldStream(context, { subscriptionId: 'S1' });
    registry.release(request('s1'));
    const second = registry.acquire(request('s2'));
    await settle();
    expect(channel.sentOfType('unsubscribe').map((u) => u.subscriptionId)).toEqual(['S1']);
    const newTag = channel.sentOfType('subscribe').at(-1)?.tag ?? '';
    channel.deliver({
      messageType: 'streamStop',
      chanId: 'c',
      tag: oldTag,
      code: 'UNSUBSCRIBED',
      message: 'unsubscribed',
    });
    channel.deliver(ack(newTag, { subscriptionId: 'S2' }));
    expect((await second).ok).toBe(true);
    expect(prices.filter((p) => p.status === 'stopped' && p.code === 'UNSUBSCRIBED')).toEqual([]);
    expect(registry.counts().pending + registry.counts().live + registry.counts().stale).toBe(1);
  });

  it("released and asked for again while its re-subscribe was in flight: the late grant is the new stream's, not unsubscribed", async () => {
    const context = setup();
    const { channel, registry, settle, ack } = context;
    const oldTag = await heldStream(context, { subscriptionId: 'S1' });
    channel.down();
    channel.up(); // re-subscribe of the old tag in flight
    await settle();
    registry.release(request('s1'));
    const second = registry.acquire(request('s2'));
    await settle();
    const newTag = channel.sentOfType('subscribe').at(-1)?.tag ?? '';
    channel.deliver(ack(oldTag, { subscriptionId: 'S2' })); // the venue grants the old tag's re-subscribe…
    channel.deliver(ack(newTag, { success: false, code: 'RFS100017', message: 'already held' })); // …so the new one is held
    expect((await second).ok).toBe(true);
    expect(channel.sentOfType('unsubscribe').map((u) => u.subscriptionId)).toEqual(['S1']);
    registry.release(request('s2'));
    await settle();
    expect(channel.sentOfType('unsubscribe').map((u) => u.subscriptionId)).toEqual(['S1', 'S2']);
  });

  it('a stop of an adopted subscription (granted under the older tag) stops the stream that adopted it', async () => {
    const context = setup();
    const { channel, registry, settle, ack, prices } = context;
    const oldTag = await heldStream(context, { subscriptionId: 'S1' });
    channel.down();
    channel.up();
    await settle();
    registry.release(request('s1'));
    const second = registry.acquire(request('s2'));
    await settle();
    const newTag = channel.sentOfType('subscribe').at(-1)?.tag ?? '';
    channel.deliver(ack(oldTag, { subscriptionId: 'S2' })); // adopted by the new stream
    channel.deliver(ack(newTag, { success: false, code: 'RFS100017', message: 'already held' }));
    expect((await second).ok).toBe(true);
    channel.deliver({ messageType: 'streamStop', chanId: 'c', tag: oldTag, code: 'RFS100020', message: 'halted' });
    expect(prices.at(-1)).toEqual(expect.objectContaining({ status: 'stopped', code: 'RFS100020' }));
  });

  describe('subscriptions of an earlier life of the connector (a venue that holds them across the restart)', () => {
    /** A ledger in memory: what the NATS side keeps in KV. */
    function ledger(leftovers: Record<string, string> = {}) {
      const kept = new Map(Object.entries(leftovers));
      return {
        kept,
        remember: (tag: string, id: string) => void kept.set(tag, id),
        forget: (tag: string) => void kept.delete(tag),
      };
    }

    it('remembers each grant by its tag and forgets it once the venue confirmed the unsubscribe', async () => {
      const context = setup();
      const { registry, settle, channel } = context;
      const kept = ledger();
      registry.useSubscriptionLedger(kept, new Map());
      const tag = await heldStream(context, { subscriptionId: 'S1' });
      expect(kept.kept).toEqual(new Map([[tag, 'S1']]));
      registry.release(request('s1'));
      await settle();
      expect(channel.sentOfType('unsubscribe').map((u) => u.subscriptionId)).toEqual(['S1']);
      expect(kept.kept.size).toBe(1); // the venue may have dropped the frame (W14): still remembered
      channel.deliver(unsubscribed('S1', tag));
      expect(kept.kept.size).toBe(0);
    });

    it('an earlier life’s subscription streaming under a tag this life does not know is unsubscribed, once (outside tester)', async () => {
      const context = setup();
      const { registry, settle, channel, price, metrics } = context;
      const kept = ledger({ 'gEarlier-7': 'S-old', 'gQuiet-3': 'S-quiet' });
      registry.useSubscriptionLedger(kept, new Map(kept.kept));
      channel.up();
      channel.deliver(price('gEarlier-7', 10));
      channel.deliver(price('gEarlier-7', 11));
      await settle();
      expect(channel.sentOfType('unsubscribe').map((u) => u.subscriptionId)).toEqual(['S-old']);
      channel.deliver(unsubscribed('S-old', 'gEarlier-7'));
      expect([...kept.kept.keys()]).toEqual(['gQuiet-3']); // one that never streams is never sent anything
      expect((await metrics.leftoverSubscriptionsEnded.get()).values[0]?.value).toBe(1);
    });

    it('a stream asked for right after an earlier life’s subscription under its tag was ended is not stopped by that end', async () => {
      const first = setup();
      const tag = await heldStream(first); // the tag the earlier life minted for this key
      const context = setup();
      const { registry, settle, channel, price, ack } = context;
      registry.useSubscriptionLedger(ledger({ [tag]: 'S-old' }), new Map([[tag, 'S-old']]));
      channel.up();
      channel.deliver(price(tag, 10)); // the earlier life's subscription streams on: ended
      await settle();
      expect(channel.sentOfType('unsubscribe').map((u) => u.subscriptionId)).toEqual(['S-old']);
      const granted = registry.acquire(request('s1'));
      await settle();
      const mine = channel.sentOfType('subscribe')[0]?.tag ?? '';
      expect(mine).not.toBe(tag);
      // the venue's answer to that unsubscribe: a stop under the earlier tag, before this stream's ack
      channel.deliver({ messageType: 'streamStop', chanId: 'c', tag, code: 'UNSUBSCRIBED', message: 'Unsubscribed' });
      channel.deliver(ack(mine));
      expect(await granted).toMatchObject({ ok: true });
    });

    it('this life’s stream held under an earlier life’s tag ("already held") adopts its id, so a release ends it', async () => {
      const context = setup();
      const { registry, settle, channel, ack } = context;
      channel.up();
      const granted = registry.acquire(request('s1'));
      await settle();
      const tag = channel.sentOfType('subscribe')[0]?.tag ?? '';
      const kept = ledger({ [tag]: 'S-earlier' });
      registry.useSubscriptionLedger(kept, new Map(kept.kept));
      channel.deliver(ack(tag, { success: false, code: 'RFS100017', message: 'already held', subscriptionId: '' }));
      expect((await granted).ok).toBe(true);
      registry.release(request('s1'));
      await settle();
      expect(channel.sentOfType('unsubscribe').map((u) => u.subscriptionId)).toEqual(['S-earlier']);
      channel.deliver({ messageType: 'streamStop', chanId: 'c', tag, code: 'UNSUBSCRIBED', message: 'Unsubscribed' });
      expect(kept.kept.size).toBe(0);
    });
  });

  describe('a released subscription is not done until the venue confirms it (outside tester: 84 orphans)', () => {
    it('an unsubscribe the venue dropped (MESSAGE_RATE_LIMITED) is sent again until the venue answers it', async () => {
      const context = setup();
      const { clock, registry, settle, channel, metrics } = context;
      const tag = await heldStream(context, { subscriptionId: 'S1' });
      registry.release(request('s1'));
      await settle();
      expect(channel.sentOfType('unsubscribe')).toHaveLength(1);
      channel.deliver({ messageType: 'error', chanId: 'c', code: 'MESSAGE_RATE_LIMITED', message: 'Too many' });
      clock.advance(5_000); // the subscribe timeout: the venue's time to answer
      await settle();
      expect(channel.sentOfType('unsubscribe').map((u) => u.subscriptionId)).toEqual(['S1', 'S1']);
      expect((await metrics.unconfirmedUnsubscribes.get()).values[0]?.value).toBe(1);
      channel.deliver(unsubscribed('S1', tag));
      clock.advance(60_000);
      await settle();
      expect(channel.sentOfType('unsubscribe')).toHaveLength(2);
      expect((await metrics.unconfirmedUnsubscribes.get()).values[0]?.value).toBe(0);
      const resent = await metrics.unsubscribesResent.get();
      expect(resent.values.find((v) => v.labels['reason'] === 'unanswered')?.value).toBe(1);
    });

    it('a streamStop under the released tag confirms it too (dialects answering with a stop)', async () => {
      const context = setup();
      const { clock, registry, settle, channel } = context;
      const tag = await heldStream(context, { subscriptionId: 'S1' });
      registry.release(request('s1'));
      await settle();
      channel.deliver({ messageType: 'streamStop', chanId: 'c', tag, code: 'UNSUBSCRIBED', message: 'Unsubscribed' });
      clock.advance(60_000);
      await settle();
      expect(channel.sentOfType('unsubscribe')).toHaveLength(1);
    });

    it('prices under a released tag long after its unsubscribes gave up end it again, once per interval, not per frame', async () => {
      const context = setup();
      const { clock, registry, settle, channel, price, metrics } = context;
      const tag = await heldStream(context, { subscriptionId: 'S1' });
      registry.release(request('s1'));
      await settle();
      for (let i = 0; i < 4; i++) {
        clock.advance(5_000 * 2 ** i); // unanswered: sent again, doubling, four frames in all
        await settle();
      }
      expect(channel.sentOfType('unsubscribe')).toHaveLength(4);
      clock.advance(600_000);
      await settle();
      expect(channel.sentOfType('unsubscribe')).toHaveLength(4); // given up on the timer
      for (let i = 0; i < 20; i++) channel.deliver(price(tag, clock.now() + i)); // it streams on
      await settle();
      expect(channel.sentOfType('unsubscribe')).toHaveLength(5);
      expect((await metrics.orphanSubscriptions.get()).values[0]?.value).toBe(1);
      clock.advance(4_999);
      channel.deliver(price(tag, clock.now()));
      await settle();
      expect(channel.sentOfType('unsubscribe')).toHaveLength(5);
      clock.advance(1);
      channel.deliver(price(tag, clock.now()));
      await settle();
      expect(channel.sentOfType('unsubscribe')).toHaveLength(6);
      const resent = await metrics.unsubscribesResent.get();
      expect(resent.values.find((v) => v.labels['reason'] === 'streaming')?.value).toBe(2);
      channel.deliver(unsubscribed('S1', tag));
      expect((await metrics.orphanSubscriptions.get()).values[0]?.value).toBe(0);
    });
  });

  it('publishes a streamStop as a stopped price and releases the stream', async () => {
    const context = setup();
    const { channel, registry, settle, prices } = context;
    const tag = await heldStream(context);
    channel.deliver({ messageType: 'streamStop', chanId: 'c', timestamp: 1, tag, code: 'HALTED', message: 'halted' });
    expect(prices.at(-1)).toEqual(expect.objectContaining({ status: 'stopped', code: 'HALTED' }));
    expect(registry.counts()).toEqual({ live: 0, stale: 0, pending: 0 });
    await settle();
    expect(channel.sentOfType('unsubscribe')).toEqual([]);
  });

  it('answers NOT_CONNECTED when no session opens before the subscribe timeout', async () => {
    const { clock, registry, settle } = setup();
    const granted = registry.acquire(request('s1'));
    await settle();
    clock.advance(5_000);
    expect(await granted).toEqual(expect.objectContaining({ ok: false, code: 'NOT_CONNECTED' }));
    expect(registry.counts()).toEqual({ live: 0, stale: 0, pending: 0 });
  });

  it('waits for a connection before subscribing, and times out the requester if no ack comes', async () => {
    const { clock, channel, registry, settle } = setup();
    const granted = registry.acquire(request('s1'));
    await settle();
    expect(channel.sent).toEqual([]);
    expect(registry.counts().pending).toBe(1);
    channel.up();
    await settle();
    expect(channel.sentOfType('subscribe')).toHaveLength(1);
    clock.advance(5_000);
    expect(await granted).toEqual(expect.objectContaining({ ok: false, code: 'TIMEOUT' }));
  });
});
