import { describe, expect, it } from '@jest/globals';
import { RestRateLimiter, type RequestPermit } from './rate-limiter.js';
import { ManualClock } from './test-support/manual-clock.js';

/** Lets already-resolved promise callbacks run. */
const settle = () => new Promise<void>((resolve) => setImmediate(resolve));

function track(limiter: RestRateLimiter, count: number) {
  const granted: number[] = [];
  const permits: RequestPermit[] = [];
  for (let i = 0; i < count; i++) {
    void limiter.acquire().then((permit) => {
      granted.push(i);
      permits.push(permit);
    });
  }
  return { granted, permits };
}

describe('RestRateLimiter', () => {
  it('lets 30 requests leave per sliding second, in FIFO order', async () => {
    const clock = new ManualClock();
    const limiter = new RestRateLimiter({ clock });
    const { granted } = track(limiter, 75);
    await settle();
    expect(granted).toHaveLength(30);
    expect(limiter.queued).toBe(45);
    clock.advance(999);
    await settle();
    expect(granted).toHaveLength(30);
    clock.advance(1);
    await settle();
    expect(granted).toHaveLength(60);
    clock.advance(1000);
    await settle();
    expect(granted).toEqual(Array.from({ length: 75 }, (_, i) => i));
  });

  it('counts a sliding window, not fixed buckets', async () => {
    const clock = new ManualClock();
    const limiter = new RestRateLimiter({ clock, requestsPerSecond: 3 });
    const first = track(limiter, 2);
    await settle();
    clock.advance(600);
    const second = track(limiter, 3);
    await settle();
    expect(first.granted).toHaveLength(2);
    expect(second.granted).toHaveLength(1); // 3 inside (t-1000, t]
    clock.advance(400); // the first two leave the window
    await settle();
    expect(second.granted).toHaveLength(3);
  });

  it('pauses once for many parallel throttles and backs off exponentially up to the cap', async () => {
    const clock = new ManualClock();
    const limiter = new RestRateLimiter({ clock, initialBackoffMs: 100, maxBackoffMs: 400, random: () => 1 });
    const { permits } = track(limiter, 5);
    await settle();
    expect(permits).toHaveLength(5);
    const pauses = permits.map((permit) => limiter.reportThrottled(permit));
    expect(pauses).toEqual([100, 0, 0, 0, 0]);

    const retried = track(limiter, 5);
    await settle();
    expect(retried.granted).toHaveLength(0);
    clock.advance(100);
    await settle();
    expect(retried.granted).toHaveLength(5);

    // Throttled again after the pause: the next step doubles, then the cap holds.
    const [again] = retried.permits;
    expect(again && limiter.reportThrottled(again)).toBe(200);
    const third = track(limiter, 1);
    clock.advance(200);
    await settle();
    const [permit3] = third.permits;
    expect(permit3 && limiter.reportThrottled(permit3)).toBe(400);
    const fourth = track(limiter, 1);
    clock.advance(400);
    await settle();
    const [permit4] = fourth.permits;
    expect(permit4 && limiter.reportThrottled(permit4)).toBe(400);
  });

  it('honours a Retry-After longer than the backoff, and a success resets the backoff', async () => {
    const clock = new ManualClock();
    const limiter = new RestRateLimiter({ clock, initialBackoffMs: 100, random: () => 0 });
    const { permits } = track(limiter, 1);
    await settle();
    const [permit] = permits;
    if (permit === undefined) throw new Error('no permit');
    expect(limiter.reportThrottled(permit, 1000)).toBe(1000);
    expect(limiter.pausedUntilMs).toBe(clock.now() + 1000);
    const next = track(limiter, 1);
    clock.advance(1000);
    await settle();
    const [afterPause] = next.permits;
    if (afterPause === undefined) throw new Error('no permit');
    limiter.reportSuccess(afterPause);
    const later = track(limiter, 1);
    await settle();
    const [fresh] = later.permits;
    if (fresh === undefined) throw new Error('no permit');
    // Jitter 0 → half of the first step again, not of a doubled one.
    expect(limiter.reportThrottled(fresh)).toBe(50);
  });

  it('refuses a nonsensical budget', () => {
    expect(() => new RestRateLimiter({ requestsPerSecond: 0 })).toThrow(RangeError);
  });
});
