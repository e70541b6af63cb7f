import { describe, expect, it } from '@jest/globals';
import { MetricsRegistry } from '#observability';
import { FakeClock } from '#testing';
import { VenueMetrics } from '../venue-metrics.js';
import { OutboundLimiter } from './outbound-limiter.js';
import type { OutboundKind } from '../venue-metrics.js';

function setup(limits = { messagesPerWindow: 3, windowMs: 1_000, orderIntervalMs: 250 }) {
  const clock = new FakeClock(0);
  const metrics = new VenueMetrics(new MetricsRegistry('t', { defaultMetrics: false }));
  const limiter = new OutboundLimiter(limits, clock, metrics);
  const granted: Array<{ kind: OutboundKind; at: number }> = [];
  const ask = (kind: OutboundKind) => limiter.acquire(kind).then(() => granted.push({ kind, at: clock.now() }));
  const settle = () => new Promise((resolve) => setImmediate(resolve));
  return { clock, metrics, limiter, granted, ask, settle };
}

describe('OutboundLimiter', () => {
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
});
