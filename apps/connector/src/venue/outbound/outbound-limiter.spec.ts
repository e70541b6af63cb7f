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
  let orders = 0;
  /** Asks for a frame; an order is sent as soon as it may go, as `order-<n>` (1, 2, …). */
  const ask = (kind: OutboundKind) => {
    if (kind !== 'order') return limiter.acquire(kind).then(() => granted.push({ kind, at: clock.now() }));
    const id = `order-${++orders}`;
    return limiter.acquireOrder().then((slot) => {
      slot.sent(id);
      granted.push({ kind, at: clock.now() });
    });
  };
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
    void limiter.acquireOrder().then(() => granted.push(clock.now()));
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
      limiter.orderAnswered('order-1', 'ORDER_RATE_LIMITED');
      void ask('order');
      clock.advance(300);
      await settle();
      expect(orderTimes(granted)).toEqual([0]);
      clock.advance(50);
      await settle();
      expect(orderTimes(granted)).toEqual([0, 350]);
      for (let i = 0; i < 3; i++) limiter.orderAnswered('order-2', 'ORDER_RATE_LIMITED');
      expect(limiter.orderGapMs).toBe(400);
      expect(await gauge(metrics)).toBe(0.4);
      expect((await metrics.orderRateLimited.get()).values[0]?.value).toBe(4);
    });

    it('narrows back after a run of orders let through', async () => {
      const { clock, granted, ask, settle, limiter, metrics } = setup(adaptive);
      limiter.orderAnswered('earlier', 'ORDER_RATE_LIMITED');
      limiter.orderAnswered('earlier', 'ORDER_RATE_LIMITED');
      expect(limiter.orderGapMs).toBe(400);
      void ask('order');
      void ask('order');
      await settle();
      clock.advance(10); // the venue lets two orders through, the one sent at 0 among them: narrower
      limiter.orderAnswered('order-1', '');
      limiter.orderAnswered('earlier', 'RFS600021');
      await settle();
      expect(limiter.orderGapMs).toBe(350);
      clock.advance(339);
      await settle();
      expect(orderTimes(granted)).toEqual([0]);
      clock.advance(1);
      await settle();
      expect(orderTimes(granted)).toEqual([0, 350]);
      for (let i = 0; i < 10; i++) limiter.orderAnswered('order-2', '');
      expect(limiter.orderGapMs).toBe(300);
      expect(await gauge(metrics)).toBe(0.3);
      expect((await metrics.orderRateLimited.get()).values[0]?.value).toBe(2);
    });

    it('stays at the configured interval without a gap policy', () => {
      const { limiter } = setup({ messagesPerWindow: 30, windowMs: 1_000, orderIntervalMs: 250 });
      limiter.orderAnswered('order-1', 'ORDER_RATE_LIMITED');
      expect(limiter.orderGapMs).toBe(250);
    });
  });

  describe("pace anchored on the venue's first answer (order-pace.ts)", () => {
    const paced: OutboundLimits = {
      messagesPerWindow: 30,
      windowMs: 1_000,
      orderIntervalMs: 300,
      orderPaceMs: 250,
      orderGap: { maxMs: 1_000, stepMs: 50, narrowAfter: 20 },
    };
    const orderTimes = (granted: Array<{ kind: OutboundKind; at: number }>) =>
      granted.filter((g) => g.kind === 'order').map((g) => g.at);
    const waits = async (metrics: VenueMetrics) =>
      Object.fromEntries(
        (await metrics.orderPaceWaitSeconds.get()).values
          .filter((v) => v.metricName?.endsWith('_count'))
          .map((v) => [v.labels.bound, v.value]),
      );

    /** Steps the clock to `at`, a millisecond at a time, so every wake-up fires when it is due. */
    async function runTo(clock: FakeClock, settle: () => Promise<unknown>, at: number): Promise<void> {
      while (clock.now() < at) {
        clock.advance(1);
        await settle();
      }
    }

    it("a quick answer keeps today's throughput: our gap from the send binds", async () => {
      const { clock, granted, ask, settle, limiter, metrics } = setup(paced);
      void ask('order');
      void ask('order');
      await settle();
      await runTo(clock, settle, 20);
      limiter.orderAnswered('order-1', '');
      await runTo(clock, settle, 300);
      expect(orderTimes(granted)).toEqual([0, 300]);
      expect(await waits(metrics)).toEqual({ gap: 1, answer: 0, unanswered: 0 });
    });

    it('a late answer holds the next order until the venue interval after it, whatever our gap says', async () => {
      const { clock, granted, ask, settle, limiter, metrics } = setup(paced);
      void ask('order');
      void ask('order');
      await settle();
      await runTo(clock, settle, 600); // our gap (300) long passed: the venue may not have read order-1 yet
      expect(orderTimes(granted)).toEqual([0]);
      limiter.orderAnswered('order-1', ''); // now it has
      await runTo(clock, settle, 850);
      expect(orderTimes(granted)).toEqual([0]);
      await runTo(clock, settle, 851);
      expect(orderTimes(granted)).toEqual([0, 851]);
      expect(await waits(metrics)).toEqual({ gap: 0, answer: 1, unanswered: 0 });
    });

    it('an answer that never comes holds the next order no longer than the ceiling from the send', async () => {
      const { clock, granted, ask, settle, metrics } = setup(paced);
      void ask('order');
      await settle();
      await runTo(clock, settle, 100);
      void ask('order');
      await runTo(clock, settle, 999);
      expect(orderTimes(granted)).toEqual([0]);
      await runTo(clock, settle, 1_000);
      expect(orderTimes(granted)).toEqual([0, 1_000]);
      expect(await waits(metrics)).toEqual({ gap: 0, answer: 0, unanswered: 1 });
    });

    it('the answer to an older order does not anchor the last one', async () => {
      const { clock, granted, ask, settle, limiter } = setup(paced);
      void ask('order');
      void ask('order');
      void ask('order');
      await settle();
      await runTo(clock, settle, 1_000); // order-1 unanswered: order-2 goes at the ceiling
      expect(orderTimes(granted)).toEqual([0, 1_000]);
      limiter.orderAnswered('order-1', ''); // late, says nothing of when the venue read order-2
      await runTo(clock, settle, 1_999);
      expect(orderTimes(granted)).toEqual([0, 1_000]);
      limiter.orderAnswered('order-2', '');
      await runTo(clock, settle, 2_250);
      expect(orderTimes(granted)).toEqual([0, 1_000, 2_250]);
    });

    it('an order let go but never sent gives its turn back; the next one is paced from the order before', async () => {
      const { clock, granted, ask, settle, limiter } = setup(paced);
      void ask('order');
      await settle();
      limiter.orderAnswered('order-1', '');
      const unsent = limiter.acquireOrder();
      await runTo(clock, settle, 300);
      (await unsent).unused(); // its deadline passed, it was recalled, or the connection was down
      void ask('order');
      await settle();
      expect(orderTimes(granted)).toEqual([0, 300]); // not held for an answer that cannot come
    });

    it('publishes its queue pace: the gap at first, then what late answers cost each order, and an answer missing', async () => {
      const { clock, ask, settle, limiter } = setup(paced);
      expect(limiter.orderQueuePaceMs).toBe(300);
      void ask('order');
      await settle();
      await runTo(clock, settle, 1_500);
      limiter.orderAnswered('order-1', ''); // 1 500 ms late: it held the next one 1 751 ms
      expect(limiter.orderQueuePaceMs).toBe(1_751);
      void ask('order');
      await runTo(clock, settle, 1_800);
      expect(limiter.orderQueuePaceMs).toBe(1_751);
      limiter.orderAnswered('order-2', ''); // quick: the mean of 1 751 and 300
      expect(limiter.orderQueuePaceMs).toBe(1_026);
      void ask('order');
      await runTo(clock, settle, 2_101);
      expect(limiter.orderQueuePaceMs).toBe(1_026);
      await runTo(clock, settle, 5_000); // order-3 unanswered: the pace is at least its wait so far, at most the ceiling
      expect(limiter.orderQueuePaceMs).toBe(1_026);
      void ask('order'); // order-3 never answered: it held this one the ceiling, 1 000 ms
      await settle();
      expect(limiter.orderQueuePaceMs).toBe(Math.ceil((1_751 + 300 + 1_000) / 3));
    });

    it('holds every order while an earlier one is let go but its sender has not said it left', async () => {
      const { clock, granted, ask, settle, limiter } = setup(paced);
      const first = limiter.acquireOrder();
      await settle();
      void ask('order');
      await runTo(clock, settle, 500); // the sender still writes its durable send mark
      expect(orderTimes(granted)).toEqual([]);
      (await first).sent('first');
      limiter.orderAnswered('first', '');
      await runTo(clock, settle, 800);
      expect(orderTimes(granted)).toEqual([800]); // 300 from the send at 500, not from the grant at 0
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
