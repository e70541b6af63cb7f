/**
 * Client-side REST limiter (§8: 30 requests per second per connecting IP address).
 *
 * - A sliding one-second window: at most `requestsPerSecond` requests leave in any window.
 * - A FIFO queue: callers are served in the order they asked.
 * - Throttling (429, or Retry-After): the *whole* limiter pauses once, and every queued or retried
 *   request waits for the same pause. Requests that were already in flight when the pause began and come
 *   back throttled too do not extend it (they carry the old generation), so N parallel 429s cause one
 *   pause, not N, and no storm of retries follows. Consecutive throttles back off exponentially with
 *   jitter up to a cap; a success after a pause resets the backoff.
 *
 * The venue counts per IP, not per key or process: processes that share an egress IP must split the
 * budget between them (configure `requestsPerSecond` accordingly).
 */

export interface ScheduledCall {
  cancel(): void;
}

/** Time source and timer; injectable so tests can drive the limiter without waiting. */
export interface LimiterClock {
  now(): number;
  schedule(callback: () => void, delayMs: number): ScheduledCall;
}

export const systemLimiterClock: LimiterClock = {
  now: () => Date.now(),
  schedule: (callback, delayMs) => {
    const timer = setTimeout(callback, delayMs);
    return { cancel: () => clearTimeout(timer) };
  },
};

export interface RateLimiterOptions {
  /** Requests per sliding second for this client; default 30 (the venue's whole per-IP budget). */
  requestsPerSecond?: number;
  /** First pause after a throttle, before jitter; default 500 ms. */
  initialBackoffMs?: number;
  /** Largest pause from backoff alone (a longer Retry-After is still honoured); default 30 s. */
  maxBackoffMs?: number;
  clock?: LimiterClock;
  /** Uniform [0, 1) source for jitter; injectable for deterministic tests. */
  random?: () => number;
}

/** Handed out when a request may leave; give it back to `reportThrottled`/`reportSuccess`. */
export interface RequestPermit {
  readonly generation: number;
}

const WINDOW_MS = 1000;

export class RestRateLimiter {
  readonly requestsPerSecond: number;
  private readonly initialBackoffMs: number;
  private readonly maxBackoffMs: number;
  private readonly clock: LimiterClock;
  private readonly random: () => number;

  /** Send times inside the current window, oldest first. */
  private readonly sendTimes: number[] = [];
  private readonly waiting: Array<(permit: RequestPermit) => void> = [];
  private pausedUntil = 0;
  private generation = 0;
  private consecutiveThrottles = 0;
  private wakeUp: { at: number; call: ScheduledCall } | undefined;

  constructor(options: RateLimiterOptions = {}) {
    this.requestsPerSecond = options.requestsPerSecond ?? 30;
    if (!Number.isSafeInteger(this.requestsPerSecond) || this.requestsPerSecond < 1) {
      throw new RangeError('requestsPerSecond must be a positive integer');
    }
    this.initialBackoffMs = options.initialBackoffMs ?? 500;
    this.maxBackoffMs = options.maxBackoffMs ?? 30_000;
    this.clock = options.clock ?? systemLimiterClock;
    this.random = options.random ?? Math.random;
  }

  /** Requests waiting for a slot. */
  get queued(): number {
    return this.waiting.length;
  }

  /** Epoch ms until which nothing leaves; 0 or past when not paused. */
  get pausedUntilMs(): number {
    return this.pausedUntil;
  }

  /** Resolves, in FIFO order, when a request may be sent now. */
  acquire(): Promise<RequestPermit> {
    return new Promise((resolve) => {
      this.waiting.push(resolve);
      this.release();
    });
  }

  /**
   * The venue throttled a request sent under `permit`. Pauses the limiter unless a pause already began
   * after that request left. Returns the pause length in ms (0 when an existing pause covers it).
   */
  reportThrottled(permit: RequestPermit, retryAfterMs?: number): number {
    if (permit.generation !== this.generation) return 0;
    this.generation += 1;
    const ceiling = Math.min(this.maxBackoffMs, this.initialBackoffMs * 2 ** this.consecutiveThrottles);
    // "Equal jitter": at least half the exponential step, so a pause never collapses to ~0.
    const backoff = ceiling / 2 + (this.random() * ceiling) / 2;
    const pause = Math.max(retryAfterMs ?? 0, backoff);
    this.consecutiveThrottles += 1;
    this.pausedUntil = Math.max(this.pausedUntil, this.clock.now() + pause);
    this.release();
    return pause;
  }

  /** A request sent under `permit` was not throttled: the backoff starts from the beginning again. */
  reportSuccess(permit: RequestPermit): void {
    if (permit.generation === this.generation) this.consecutiveThrottles = 0;
  }

  private release(): void {
    const now = this.clock.now();
    while (this.waiting.length > 0) {
      if (now < this.pausedUntil) {
        this.wakeAt(this.pausedUntil);
        return;
      }
      while (this.sendTimes.length > 0 && (this.sendTimes[0] ?? 0) <= now - WINDOW_MS) this.sendTimes.shift();
      if (this.sendTimes.length >= this.requestsPerSecond) {
        this.wakeAt((this.sendTimes[0] ?? now) + WINDOW_MS);
        return;
      }
      const next = this.waiting.shift();
      if (next === undefined) return;
      this.sendTimes.push(now);
      next({ generation: this.generation });
    }
  }

  private wakeAt(at: number): void {
    if (this.wakeUp !== undefined) {
      if (this.wakeUp.at === at) return;
      this.wakeUp.call.cancel();
    }
    const call = this.clock.schedule(
      () => {
        this.wakeUp = undefined;
        this.release();
      },
      Math.max(0, at - this.clock.now()),
    );
    this.wakeUp = { at, call };
  }
}
