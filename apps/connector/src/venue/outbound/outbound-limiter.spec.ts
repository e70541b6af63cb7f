import { describe, expect, it } from '@jest/globals';
import { MetricsRegistry } from '#observability';
import { FakeClock } from '#testing';
import { VenueMetrics } from '../venue-metrics.js';
import { OutboundLimiter } from './outbound-limiter.js';
import type { OutboundKind } from '../venue-metrics.js';
import type { OutboundLimits } from './outbound-limiter.js';

function setup(limits: OutboundLimits = { messagesPerWindow: 3, windowMs: 1_000, orderIntervalMs: 250 }) {
  const clock = new FakeClock(0);
  const metrics = new VenueMetrics(new MetricsRegistry('t', { defaultMetrics: false }));
  // no earlier life's order to space from, unless a test says otherwise
  const limiter = new OutboundLimiter({ lastOrderAt: Number.NEGATIVE_INFINITY, ...limits }, clock, metrics);
  const granted: Array<{ kind: OutboundKind; at: number }> = [];
  const ask = (kind: OutboundKind) => limiter.acquire(kind).then(() => granted.push({ kind, at: clock.now() }));
  const settle = () => new Promise((resolve) => setImmediate(resolve));
  return { clock, metrics, limiter, granted, ask, settle };
}

describe('OutboundLimiter', () => {
  it('spaces the first order of a new life from its start: the last life may have sent one just before', async () => {
    const limits: OutboundLimits = { messagesPerWindow: 3, windowMs: 1_000, orderIntervalMs: 250 };
    const clock = new FakeClock(10_000);
    const limiter = new OutboundLimiter(
      limits,
      clock,
      new VenueMetrics(new MetricsRegistry('t', { defaultMetrics: false })),
    );
    const granted: number[] = [];
    void limiter.acquire('subscribe').then(() => granted.push(-clock.now()));
    void limiter.acquire('order').then(() => granted.push(clock.now()));
    await new Promise((resolve) => setImmediate(resolve));
    expect(granted).toEqual([-10_000]); // only orders wait
    clock.advance(249);
    await new Promise((resolve) => setImmediate(resolve));
    expect(granted).toEqual([-10_000]);
    clock.advance(1);
    await new Promise((resolve) => setImmediate(resolve));
    expect(granted).toEqual([-10_000, 10_250]);
  });

  it('lets at most N frames leave per sliding window, the rest in order when it slides', async () => {
    const { clock, granted, ask, settle, metrics } = setup();
    for (let i = 0; i < 5; i++) void ask('subscribe');
    await settle();
    expect(granted.map((g) => g.at)).toEqual([0, 0, 0]);
    clock.advance(999);
    await settle();
    expect(granted).toHaveLength(3);
    clock.advance(1);
    await settle();
    expect(granted.map((g) => g.at)).toEqual([0, 0, 0, 1_000, 1_000]);
    expect((await metrics.rateLimitWaits.get()).values.find((v) => v.labels.kind === 'subscribe')?.value).toBe(2);
  });

  it('paces orders at one per interval without holding up other frames', async () => {
    const { clock, granted, ask, settle } = setup({ messagesPerWindow: 30, windowMs: 1_000, orderIntervalMs: 250 });
    void ask('order');
    void ask('order');
    void ask('subscribe');
    void ask('order');
    await settle();
    expect(granted).toEqual([
      { kind: 'order', at: 0 },
      { kind: 'subscribe', at: 0 },
    ]);
    clock.advance(250);
    await settle();
    clock.advance(250);
    await settle();
    expect(granted.filter((g) => g.kind === 'order').map((g) => g.at)).toEqual([0, 250, 500]);
  });

  it('counts orders inside the same per-socket window as every other frame', async () => {
    const { clock, granted, ask, settle } = setup({ messagesPerWindow: 2, windowMs: 1_000, orderIntervalMs: 250 });
    void ask('subscribe');
    void ask('subscribe');
    void ask('order');
    await settle();
    expect(granted).toHaveLength(2);
    clock.advance(1_000);
    await settle();
    expect(granted[2]).toEqual({ kind: 'order', at: 1_000 });
  });

  it('serves an order before a backlog of re-subscribes', async () => {
    const { clock, granted, ask, settle } = setup({ messagesPerWindow: 2, windowMs: 1_000, orderIntervalMs: 250 });
    for (let i = 0; i < 6; i++) void ask('subscribe');
    await settle();
    void ask('order');
    await settle();
    expect(granted.map((g) => g.kind)).toEqual(['subscribe', 'subscribe']);
    clock.advance(1_000);
    await settle();
    expect(granted.map((g) => g.kind)).toEqual(['subscribe', 'subscribe', 'order', 'subscribe']);
  });

  describe('adaptive order gap', () => {
    const adaptive = {
      messagesPerWindow: 30,
      windowMs: 1_000,
      orderIntervalMs: 300,
      orderGap: { maxMs: 400, stepMs: 50, narrowAfter: 2 },
    };
    const orderTimes = (granted: Array<{ kind: OutboundKind; at: number }>) =>
      granted.filter((g) => g.kind === 'order').map((g) => g.at);
    const gauge = async (metrics: VenueMetrics) => (await metrics.orderGapSeconds.get()).values[0]?.value;

    it('spaces the following orders wider after a pace refusal, counted, up to the ceiling', async () => {
      const { clock, granted, ask, settle, limiter, metrics } = setup(adaptive);
      expect(await gauge(metrics)).toBe(0.3);
      void ask('order');
      await settle();
      limiter.orderAnswered('ORDER_RATE_LIMITED');
      void ask('order');
      clock.advance(300);
      await settle();
      expect(orderTimes(granted)).toEqual([0]);
      clock.advance(50);
      await settle();
      expect(orderTimes(granted)).toEqual([0, 350]);
      for (let i = 0; i < 3; i++) limiter.orderAnswered('ORDER_RATE_LIMITED');
      expect(limiter.orderGapMs).toBe(400);
      expect(await gauge(metrics)).toBe(0.4);
      expect((await metrics.orderRateLimited.get()).values[0]?.value).toBe(4);
    });

    it('narrows back after a run of orders let through; the next order waits the gap from the venue’s answer', async () => {
      const { clock, granted, ask, settle, limiter, metrics } = setup(adaptive);
      limiter.orderAnswered('ORDER_RATE_LIMITED');
      limiter.orderAnswered('ORDER_RATE_LIMITED'); // answered now: the next order waits the widened gap from now
      void ask('order');
      void ask('order');
      await settle();
      clock.advance(399);
      await settle();
      expect(orderTimes(granted)).toEqual([]);
      clock.advance(1);
      await settle();
      expect(orderTimes(granted)).toEqual([400]);
      clock.advance(10); // the venue answers the order sent at 400: let through, twice → narrower
      limiter.orderAnswered('');
      limiter.orderAnswered('RFS600021');
      await settle();
      expect(limiter.orderGapMs).toBe(350);
      clock.advance(349);
      await settle();
      expect(orderTimes(granted)).toEqual([400]); // counted from the answer (410), not the send (400)
      clock.advance(1);
      await settle();
      expect(orderTimes(granted)).toEqual([400, 760]);
      for (let i = 0; i < 10; i++) limiter.orderAnswered('');
      expect(limiter.orderGapMs).toBe(300);
      expect(await gauge(metrics)).toBe(0.3);
      expect((await metrics.orderRateLimited.get()).values[0]?.value).toBe(2);
    });

    it('stays at the configured interval without a gap policy', () => {
      const { limiter } = setup({ messagesPerWindow: 30, windowMs: 1_000, orderIntervalMs: 250 });
      limiter.orderAnswered('ORDER_RATE_LIMITED');
      expect(limiter.orderGapMs).toBe(250);
    });
  });

  it('spreads subscribes evenly over a share of the window and keeps the rest for orders (a flood of stream requests)', async () => {
    const { clock, granted, ask, settle } = setup({
      messagesPerWindow: 6,
      othersPerWindow: 4,
      windowMs: 1_000,
      orderIntervalMs: 100,
    });
    for (let i = 0; i < 10; i++) void ask('subscribe');
    await settle();
    for (let t = 0; t < 1_000; t += 50) {
      clock.advance(50);
      await settle();
    }
    const subscribes = granted.filter((g) => g.kind === 'subscribe').map((g) => g.at);
    expect(subscribes).toEqual([0, 250, 500, 750, 1_000]); // one per 250 ms, never a burst
    void ask('order');
    void ask('order');
    await settle();
    clock.advance(100);
    await settle();
    // the orders did not wait behind the five subscribes still queued
    expect(granted.filter((g) => g.kind === 'order').map((g) => g.at)).toEqual([1_000, 1_100]);
  });

  it('drops a queued frame no longer wanted when its turn comes, without spending the budget', async () => {
    const { clock, limiter, granted, ask, settle } = setup({
      messagesPerWindow: 1,
      windowMs: 1_000,
      orderIntervalMs: 0,
    });
    void ask('subscribe');
    let wanted = true;
    let dropped = false;
    void limiter.acquire('subscribe', () => wanted).then(() => (dropped = true));
    void ask('unsubscribe');
    await settle();
    expect(limiter.othersQueued).toBe(2);
    wanted = false;
    clock.advance(1_000);
    await settle();
    expect(dropped).toBe(true);
    expect(granted.map((g) => [g.kind, g.at])).toEqual([
      ['subscribe', 0],
      ['unsubscribe', 1_000], // in the slot the unwanted one did not take
    ]);
  });
});
