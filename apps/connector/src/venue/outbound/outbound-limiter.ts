import type { Cancel, VenueClock } from '../clock.js';
import type { OutboundKind, VenueMetrics } from '../venue-metrics.js';

export interface OutboundLimits {
  /** Frames of any kind per sliding window (§8: 30 messages per second per account). */
  messagesPerWindow: number;
  windowMs: number;
  /** Minimum gap between two order frames (§8: 1 order per 250 ms). */
  orderIntervalMs: number;
}

const URGENT: ReadonlySet<OutboundKind> = new Set(['order', 'orderUnsubscribe', 'accountGroups']);

interface Waiter {
  kind: OutboundKind;
  resolve: () => void;
}

/**
 * The one gate every frame to the venue passes, so the whole socket stays inside the account's limits.
 * Callers are served first come, first served within two classes: orders, orderUnsubscribes and lookups
 * go before subscribes and unsubscribes; an order waiting for its 250 ms gap holds up nothing. A wait is counted in `connector_rate_limit_waits_total{kind}`.
 */
export class OutboundLimiter {
  private readonly sentAt: number[] = [];
  private readonly waiting: Waiter[] = [];
  private lastOrderAt = Number.NEGATIVE_INFINITY;
  private wake: { at: number; cancel: Cancel } | undefined;

  constructor(
    private readonly limits: OutboundLimits,
    private readonly clock: VenueClock,
    private readonly metrics: VenueMetrics,
  ) {}

  get queued(): number {
    return this.waiting.length;
  }

  /** Resolves when a frame of `kind` may be sent now; the caller must send it right away. */
  acquire(kind: OutboundKind): Promise<void> {
    if (this.waiting.length === 0 && this.eligible(kind, this.clock.now())) {
      this.take(kind, this.clock.now());
      return Promise.resolve();
    }
    this.metrics.rateLimitWaits.inc({ kind });
    return new Promise((resolve) => {
      this.waiting.push({ kind, resolve });
      this.release();
    });
  }

  /** Drops every waiter (shutdown). Their promises never resolve; callers time out on their own. */
  clear(): void {
    this.waiting.length = 0;
    this.wake?.cancel();
    this.wake = undefined;
  }

  private eligible(kind: OutboundKind, now: number): boolean {
    this.expire(now);
    if (this.sentAt.length >= this.limits.messagesPerWindow) return false;
    return kind !== 'order' || now - this.lastOrderAt >= this.limits.orderIntervalMs;
  }

  private take(kind: OutboundKind, now: number): void {
    this.sentAt.push(now);
    if (kind === 'order') this.lastOrderAt = now;
  }

  private expire(now: number): void {
    let drop = 0;
    while (drop < this.sentAt.length && (this.sentAt[drop] ?? now) <= now - this.limits.windowMs) drop++;
    if (drop > 0) this.sentAt.splice(0, drop);
  }

  private release(): void {
    const now = this.clock.now();
    for (;;) {
      const index = this.nextServed(now);
      if (index < 0) break;
      const [waiter] = this.waiting.splice(index, 1);
      if (waiter === undefined) break;
      this.take(waiter.kind, now);
      waiter.resolve();
    }
    if (this.waiting.length > 0) this.wakeAt(this.nextChance(now));
  }

  /**
   * The waiter to serve now, or −1: the first eligible urgent one (orders and their housekeeping, the
   * lookup a caller waits on), else the first eligible other one. After a reconnect hundreds of
   * re-subscribes queue up; an order must not wait behind all of them (orders are paced anyway, so they
   * cannot starve the subscribes).
   */
  private nextServed(now: number): number {
    if (this.sentAt.length >= this.limits.messagesPerWindow) {
      this.expire(now);
      if (this.sentAt.length >= this.limits.messagesPerWindow) return -1;
    }
    let other = -1;
    for (let i = 0; i < this.waiting.length; i++) {
      const waiter = this.waiting[i];
      if (waiter === undefined || !this.eligible(waiter.kind, now)) continue;
      if (URGENT.has(waiter.kind)) return i;
      if (other < 0) other = i;
    }
    return other;
  }

  private nextChance(now: number): number {
    const windowFull = this.sentAt.length >= this.limits.messagesPerWindow;
    const windowFrees = (this.sentAt[0] ?? now) + this.limits.windowMs;
    if (windowFull) return windowFrees;
    // Only orders wait, for their gap.
    return this.lastOrderAt + this.limits.orderIntervalMs;
  }

  private wakeAt(at: number): void {
    if (this.wake !== undefined) {
      if (this.wake.at <= at) return;
      this.wake.cancel();
    }
    this.wake = {
      at,
      cancel: this.clock.setTimeout(
        () => {
          this.wake = undefined;
          this.release();
        },
        Math.max(0, at - this.clock.now()),
      ),
    };
  }
}
