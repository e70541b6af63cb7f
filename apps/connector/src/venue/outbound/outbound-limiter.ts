import type { Cancel, VenueClock } from '../clock.js';
import type { OutboundKind, VenueMetrics } from '../venue-metrics.js';
import { initialGap, nextGap, type OrderGap, type OrderGapPolicy, paceVerdict } from './order-gap.js';

export interface OutboundLimits {
  /** Frames of any kind per sliding window (§8: 30 messages per second per account). */
  messagesPerWindow: number;
  windowMs: number;
  /** Least gap between two order frames (§8: 1 order per 250 ms); the floor of the adaptive gap. */
  orderIntervalMs: number;
  /** How the gap adapts to the venue's pace refusals (order-gap.ts); without it the gap stays fixed. */
  orderGap?: Omit<OrderGapPolicy, 'baseMs'>;
  /**
   * When an order frame of the account may last have left before this limiter existed. Default: the moment it is
   * made — the venue counts its pace per account, not per process, and the connector's previous life may have sent
   * one just before this one started (a restart takes tens of milliseconds): the first order waits one gap.
   */
  lastOrderAt?: number;
}

const URGENT: ReadonlySet<OutboundKind> = new Set(['order', 'orderUnsubscribe', 'accountGroups']);

interface Waiter {
  kind: OutboundKind;
  resolve: () => void;
}

/**
 * The one gate every frame to the venue passes, so the whole socket stays inside the account's limits.
 * Callers are served first come, first served within two classes: orders, orderUnsubscribes and lookups
 * go before subscribes and unsubscribes; an order waiting for its gap holds up nothing. A wait is counted in
 * `connector_rate_limit_waits_total{kind}`. The order gap widens when the venue refuses an order for its pace
 * and narrows back after a run of orders it let through (`orderAnswered`; gauge `connector_order_gap_seconds`).
 */
export class OutboundLimiter {
  private readonly sentAt: number[] = [];
  private readonly waiting: Waiter[] = [];
  private lastOrderAt: number;
  private wake: { at: number; cancel: Cancel } | undefined;
  private readonly gapPolicy: OrderGapPolicy;
  private gap: OrderGap;

  constructor(
    private readonly limits: OutboundLimits,
    private readonly clock: VenueClock,
    private readonly metrics: VenueMetrics,
  ) {
    const base = limits.orderIntervalMs;
    this.gapPolicy = { maxMs: base, stepMs: 0, narrowAfter: 1, ...limits.orderGap, baseMs: base };
    this.gap = initialGap(this.gapPolicy);
    this.lastOrderAt = limits.lastOrderAt ?? clock.now();
    metrics.orderGapSeconds.set(this.gap.ms / 1000);
  }

  /** The least gap between two order frames now. */
  get orderGapMs(): number {
    return this.gap.ms;
  }

  /**
   * The venue's first answer to an order we sent, by its code: a pace refusal widens the order gap, an order
   * let through counts towards narrowing it. A narrower gap may free a waiting order at once.
   */
  orderAnswered(code: string): void {
    // The venue paces orders by when it reads them, later than we sent them: counting the next gap from its
    // answer (when the order was surely read) keeps a frame held up on the way (a loaded host, the network)
    // from arriving within the venue's interval of the next one. Costs a round trip per order of a burst.
    this.lastOrderAt = Math.max(this.lastOrderAt, this.clock.now());
    const verdict = paceVerdict(code);
    if (verdict === 'rateLimited') this.metrics.orderRateLimited.inc();
    const before = this.gap.ms;
    this.gap = nextGap(this.gap, verdict, this.gapPolicy);
    if (this.gap.ms === before) return;
    this.metrics.orderGapSeconds.set(this.gap.ms / 1000);
    if (this.gap.ms < before && this.waiting.length > 0) this.release();
  }

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
    return kind !== 'order' || now - this.lastOrderAt >= this.gap.ms;
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
    return this.lastOrderAt + this.gap.ms;
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
