import { describe, expect, it } from '@jest/globals';
import { RestRateLimiter, type RequestPermit } from './rate-limiter.js';
import { ManualClock } from './test-support/manual-clock.js';

/** Lets already-resolved promise callbacks run. */
const settle = () => new Promise<void>((resolve) => setImmediate(resolve));

/** A slot ages out this long after its answer: one second plus the limiter's 5 ms margin. */
const AGE_OUT_MS = 1005;

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

function first(permits: RequestPermit[]): RequestPermit {
  const [permit] = permits;
  if (permit === undefined) throw new Error('no permit granted');
  return permit;
}

describe('RestRateLimiter', () => {
  it('lets 30 requests leave per sliding second, in FIFO order', async () => {
    const clock = new ManualClock();
    const limiter = new RestRateLimiter({ clock });
    const { granted, permits } = track(limiter, 75);
    await settle();
    expect(granted).toHaveLength(30);
    expect(limiter.queued).toBe(45);
    permits.forEach((permit) => limiter.release(permit));
    clock.advance(AGE_OUT_MS - 1);
    await settle();
    expect(granted).toHaveLength(30);
    clock.advance(1);
    await settle();
    expect(granted).toHaveLength(60);
    permits.slice(30).forEach((permit) => limiter.release(permit));
    clock.advance(AGE_OUT_MS);
    await settle();
    expect(granted).toEqual(Array.from({ length: 75 }, (_, i) => i));
  });

  it("startWindowFull: a restarted process sends nothing until its previous life's last second has aged out", async () => {
    const clock = new ManualClock();
    const limiter = new RestRateLimiter({ clock, requestsPerSecond: 3, startWindowFull: true });
    expect(limiter.inWindow).toBe(3);
    const { granted } = track(limiter, 4);
    await settle();
    expect(granted).toHaveLength(0);
    clock.advance(AGE_OUT_MS - 1);
    await settle();
    expect(granted).toHaveLength(0);
    clock.advance(1);
    await settle();
    expect(granted).toHaveLength(3);
  });

  it('counts a sliding window from each answer, not fixed buckets', async () => {
    const clock = new ManualClock();
    const limiter = new RestRateLimiter({ clock, requestsPerSecond: 3 });
    const early = track(limiter, 2);
    await settle();
    early.permits.forEach((permit) => limiter.release(permit));
    clock.advance(600);
    const late = track(limiter, 3);
    await settle();
    expect(late.granted).toHaveLength(1); // 3 inside the window
    clock.advance(AGE_OUT_MS - 600); // the early two age out
    await settle();
    expect(late.granted).toHaveLength(3);
  });

  it('keeps counting a request while it is in flight (the venue counts its arrival, which may be late)', async () => {
    const clock = new ManualClock();
    const limiter = new RestRateLimiter({ clock, requestsPerSecond: 2 });
    const { granted, permits } = track(limiter, 3);
    await settle();
    clock.advance(5000);
    await settle();
    expect(granted).toHaveLength(2);
    limiter.release(first(permits));
    clock.advance(AGE_OUT_MS - 1);
    await settle();
    expect(granted).toHaveLength(2);
    clock.advance(1);
    await settle();
    expect(granted).toHaveLength(3);
    expect(limiter.inWindow).toBe(2);
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
    expect(limiter.reportThrottled(first(retried.permits))).toBe(200);
    const third = track(limiter, 1);
    clock.advance(200);
    await settle();
    expect(limiter.reportThrottled(first(third.permits))).toBe(400);
    const fourth = track(limiter, 1);
    clock.advance(400);
    await settle();
    expect(limiter.reportThrottled(first(fourth.permits))).toBe(400);
  });

  it('honours a Retry-After longer than the backoff, and a success resets the backoff', async () => {
    const clock = new ManualClock();
    const limiter = new RestRateLimiter({ clock, initialBackoffMs: 100, random: () => 0 });
    const { permits } = track(limiter, 1);
    await settle();
    expect(limiter.reportThrottled(first(permits), 1000)).toBe(1000);
    expect(limiter.pausedUntilMs).toBe(clock.now() + 1000);
    const next = track(limiter, 1);
    clock.advance(999);
    await settle();
    expect(next.granted).toHaveLength(0);
    clock.advance(1);
    await settle();
    limiter.release(first(next.permits));
    const later = track(limiter, 1);
    await settle();
    // Jitter 0 → half of the first step again, not of a doubled one.
    expect(limiter.reportThrottled(first(later.permits))).toBe(50);
  });

  it('with maxInFlight 1, the next request leaves only when the previous one is answered', async () => {
    const clock = new ManualClock();
    const limiter = new RestRateLimiter({ clock, maxInFlight: 1, initialBackoffMs: 100, random: () => 0 });
    const { granted, permits } = track(limiter, 3);
    await settle();
    expect(granted).toEqual([0]);
    limiter.release(first(permits));
    await settle();
    expect(granted).toEqual([0, 1]);
    const second = permits[1];
    if (second === undefined) throw new Error('no second permit');
    limiter.reportThrottled(second, 100);
    await settle();
    expect(granted).toEqual([0, 1]); // paused, and the pause still applies
    clock.advance(100);
    await settle();
    expect(granted).toEqual([0, 1, 2]);
  });

  it('refuses a nonsensical budget', () => {
    expect(() => new RestRateLimiter({ requestsPerSecond: 0 })).toThrow(RangeError);
    expect(() => new RestRateLimiter({ maxInFlight: 0 })).toThrow(RangeError);
  });
});
