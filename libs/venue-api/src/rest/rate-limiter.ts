/**
 * Client-side REST limiter (§8: 30 requests per second per connecting IP address).
 *
 * - A sliding one-second window counted the way the venue sees it: the venue counts *arrivals*, and an
 *   arrival happens somewhere between our send and our receipt of the answer. So a request holds its
 *   slot from the moment it leaves until one second (plus a small margin for clock granularity) after its
 *   answer came back; in-flight requests always count. Counting send times instead lets a late arrival of
 *   one wave overlap the next wave at the venue (seen against the sandbox: 429s at exactly 30/s).
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
  /**
   * At most this many requests in flight at once (default: no limit beyond the window). `1` keeps
   * nonces arriving in the order they were drawn, for nonce mode over a network that may reorder
   * requests on different connections.
   */
  maxInFlight?: number;
  /**
   * Count the whole share as used during the second before construction. A restarted process does not know
   * what its previous life sent in its last second, and the venue's sliding second sees both lives: without
   * this, a restart can put two seconds' worth of this process's share into one of the venue's seconds.
   * Costs at most one second before the first request.
   */
  startWindowFull?: boolean;
  clock?: LimiterClock;
  /** Uniform [0, 1) source for jitter; injectable for deterministic tests. */
  random?: () => number;
}

/** Handed out when a request may leave; hand it back exactly once to `release` or `reportThrottled`. */
export interface RequestPermit {
  readonly generation: number;
}

interface Slot extends RequestPermit {
  /** Undefined while in flight; then the limiter-clock time the answer (or failure) came back. */
  doneAt: number | undefined;
}

const WINDOW_MS = 1000;
/** Covers millisecond truncation of `Date.now()` against the venue's finer clock. */
const WINDOW_MARGIN_MS = 5;

export class RestRateLimiter {
  readonly requestsPerSecond: number;
  private readonly maxInFlight: number;
  private readonly initialBackoffMs: number;
  private readonly maxBackoffMs: number;
  private readonly clock: LimiterClock;
  private readonly random: () => number;

  /** Slots still counted: in flight, or done less than a window ago. */
  private slots: Slot[] = [];
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
    this.maxInFlight = options.maxInFlight ?? Number.POSITIVE_INFINITY;
    if (!(this.maxInFlight >= 1)) throw new RangeError('maxInFlight must be at least 1');
    this.initialBackoffMs = options.initialBackoffMs ?? 500;
    this.maxBackoffMs = options.maxBackoffMs ?? 30_000;
    this.clock = options.clock ?? systemLimiterClock;
    this.random = options.random ?? Math.random;
    if (options.startWindowFull === true) {
      const now = this.clock.now();
      for (let i = 0; i < this.requestsPerSecond; i += 1) this.slots.push({ generation: 0, doneAt: now });
    }
  }

  /** Requests waiting for a slot. */
  get queued(): number {
    return this.waiting.length;
  }

  /** Epoch ms until which nothing leaves; 0 or past when not paused. */
  get pausedUntilMs(): number {
    return this.pausedUntil;
  }

  /** Requests currently counted against the window (in flight or recently done). */
  get inWindow(): number {
    this.expire(this.clock.now());
    return this.slots.length;
  }

  /** Resolves, in FIFO order, when a request may be sent now. */
  acquire(): Promise<RequestPermit> {
    return new Promise((resolve) => {
      this.waiting.push(resolve);
      this.dispatch();
    });
  }

  /** The request under `permit` finished (any outcome except throttled); its slot ages out a window later. */
  release(permit: RequestPermit): void {
    this.finish(permit);
    if (permit.generation === this.generation) this.consecutiveThrottles = 0;
    this.dispatch();
  }

  /**
   * The venue throttled a request sent under `permit`. Pauses the limiter unless a pause already began
   * after that request left. Returns the pause length in ms (0 when an existing pause covers it).
   */
  reportThrottled(permit: RequestPermit, retryAfterMs?: number): number {
    this.finish(permit);
    if (permit.generation !== this.generation) {
      this.dispatch();
      return 0;
    }
    this.generation += 1;
    const ceiling = Math.min(this.maxBackoffMs, this.initialBackoffMs * 2 ** this.consecutiveThrottles);
    // "Equal jitter": at least half the exponential step, so a pause never collapses to ~0.
    const backoff = ceiling / 2 + (this.random() * ceiling) / 2;
    const pause = Math.max(retryAfterMs ?? 0, backoff);
    this.consecutiveThrottles += 1;
    this.pausedUntil = Math.max(this.pausedUntil, this.clock.now() + pause);
    this.dispatch();
    return pause;
  }

  private finish(permit: RequestPermit): void {
    const slot = this.slots.find((candidate) => candidate === permit);
    if (slot !== undefined && slot.doneAt === undefined) slot.doneAt = this.clock.now();
  }

  private expire(now: number): void {
    this.slots = this.slots.filter(
      (slot) => slot.doneAt === undefined || slot.doneAt + WINDOW_MS + WINDOW_MARGIN_MS > now,
    );
  }

  private dispatch(): void {
    const now = this.clock.now();
    while (this.waiting.length > 0) {
      if (now < this.pausedUntil) {
        this.wakeAt(this.pausedUntil);
        return;
      }
      this.expire(now);
      // A release dispatches again, so waiting on in-flight requests needs no timer.
      if (this.slots.filter((slot) => slot.doneAt === undefined).length >= this.maxInFlight) return;
      if (this.slots.length >= this.requestsPerSecond) {
        // Wait for the first done slot to age out; if all are in flight, a release will dispatch.
        const ages = this.slots.flatMap((slot) => (slot.doneAt === undefined ? [] : [slot.doneAt]));
        if (ages.length > 0) this.wakeAt(Math.min(...ages) + WINDOW_MS + WINDOW_MARGIN_MS);
        return;
      }
      const next = this.waiting.shift();
      if (next === undefined) return;
      const slot: Slot = { generation: this.generation, doneAt: undefined };
      this.slots.push(slot);
      next(slot);
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
        this.dispatch();
      },
      Math.max(0, at - this.clock.now()),
    );
    this.wakeUp = { at, call };
  }
}
