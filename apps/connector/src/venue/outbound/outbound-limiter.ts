import type { Cancel, VenueClock } from '../clock.js';
import type { OutboundKind, VenueMetrics } from '../venue-metrics.js';
import { initialGap, nextGap, type OrderGap, type OrderGapPolicy, paceVerdict } from './order-gap.js';
import {
  type LastOrder,
  nextOrderAt,
  orderBefore,
  orderCycleMs,
  orderPaceOf,
  type OrderPace,
  PACE_SAMPLE,
} from './order-pace.js';
import {
  initialStreamPace,
  paceAfterQuiet,
  paceAfterVenueDrop,
  type StreamPace,
  type StreamPacePolicy,
} from './stream-pace.js';

export interface OutboundLimits {
  /** Frames of any kind per sliding window (§8: 30 messages per second per account). */
  messagesPerWindow: number;
  windowMs: number;
  /**
   * Subscribes and unsubscribes per window, spread evenly over it (`windowMs / othersPerWindow` apart); the rest
   * of `messagesPerWindow` is kept for orders and the lookups callers wait on. Default: all of it, unspread.
   * Why: the venue counts frames when it reads them; a burst of 30 sent at the end of one window and 30 at the
   * start of the next, read late, land in one second of the venue's and it drops the excess, an order among them
   * (outside tester: a flood of stream requests got orders refused MESSAGE_RATE_LIMITED and one left UNKNOWN).
   */
  othersPerWindow?: number;
  /**
   * With `othersPerWindow`: the least share it narrows to after the venue dropped frames of ours
   * (MESSAGE_RATE_LIMITED, `venueDroppedFrame`), and how long without a drop widens it by one again
   * (stream-pace.ts). Default: 5 frames, 5 windows.
   */
  othersMinPerWindow?: number;
  othersRecoverAfterMs?: number;
  /** Least gap between two order frames, from our send (§8: 1 order per 250 ms); the floor of the adaptive gap. */
  orderIntervalMs: number;
  /**
   * The venue's interval between two orders' arrivals (§8: 250 ms), counted from the venue's first answer to the
   * previous order (order-pace.ts). Default: `orderIntervalMs` (no answer-anchored bound beyond the gap).
   */
  orderPaceMs?: number;
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
  resolve: (grant: OrderGrant | undefined) => void;
  /** False once the frame is no longer wanted (its request timed out): dropped without taking a slot. */
  wanted: (() => boolean) | undefined;
  /** When it began to wait. */
  since: number;
}

/**
 * The right to send one order frame now. Its sender says what became of it, once: `sent` the moment the frame
 * left, `unused` when nothing left (deadline passed, recalled, held back, no connection) — the venue then counted
 * nothing, and the next order is paced from the order before.
 */
export interface OrderSlot {
  sent(clientRequestId: string): void;
  unused(): void;
}

interface OrderGrant {
  readonly previous: LastOrder;
  readonly previousId: string | undefined;
  settled: boolean;
}

/**
 * The one gate every frame to the venue passes, so the whole socket stays inside the account's limits.
 * Callers are served first come, first served within two classes: orders, orderUnsubscribes and lookups
 * go before subscribes and unsubscribes; an order waiting for its gap holds up nothing. A wait is counted in
 * `connector_rate_limit_waits_total{kind}`. The order gap widens when the venue refuses an order for its pace
 * and narrows back after a run of orders it let through (`orderAnswered`; gauge `connector_order_gap_seconds`).
 * An order also waits the venue's interval after the venue's first answer to the previous one, and while that
 * answer has not come, for it, at most the gap ceiling (order-pace.ts; `connector_order_pace_wait_seconds{bound}`).
 * The limiter lives as long as the process, across reconnects: the venue counts the pace per account.
 */
export class OutboundLimiter {
  private readonly sentAt: number[] = [];
  /** When the subscribes and unsubscribes of the window left (a subset of sentAt). */
  private readonly othersSentAt: number[] = [];
  private othersPerWindow: number;
  private othersSpacingMs: number;
  /** Undefined when the share is not spread (`othersPerWindow` unset): nothing adapts then. */
  private readonly pacePolicy: StreamPacePolicy | undefined;
  private pace: StreamPace | undefined;
  private readonly waiting: Waiter[] = [];
  /** The account's last order frame: when it left and when the venue first answered it (order-pace.ts). */
  private lastOrder: LastOrder;
  private lastOrderId: string | undefined;
  /** The order let go whose sender has not yet said whether it left. */
  private pendingGrant: OrderGrant | undefined;
  private readonly venueIntervalMs: number;
  private wake: { at: number; cancel: Cancel } | undefined;
  private readonly gapPolicy: OrderGapPolicy;
  private gap: OrderGap;
  /** How long each of the last few orders held the next (order-pace.ts `orderCycleMs`), oldest first. */
  private readonly cycles: number[] = [];

  constructor(
    private readonly limits: OutboundLimits,
    private readonly clock: VenueClock,
    private readonly metrics: VenueMetrics,
  ) {
    const base = limits.orderIntervalMs;
    this.gapPolicy = { maxMs: base, stepMs: 0, narrowAfter: 1, ...limits.orderGap, baseMs: base };
    this.gap = initialGap(this.gapPolicy);
    this.lastOrder = orderBefore(limits.lastOrderAt ?? clock.now());
    this.venueIntervalMs = limits.orderPaceMs ?? base;
    this.othersPerWindow = Math.min(limits.othersPerWindow ?? limits.messagesPerWindow, limits.messagesPerWindow);
    this.othersSpacingMs = limits.othersPerWindow === undefined ? 0 : limits.windowMs / this.othersPerWindow;
    if (limits.othersPerWindow !== undefined) {
      this.pacePolicy = {
        basePerWindow: this.othersPerWindow,
        minPerWindow: limits.othersMinPerWindow ?? 5,
        windowMs: limits.windowMs,
        recoverAfterMs: limits.othersRecoverAfterMs ?? 5 * limits.windowMs,
      };
      this.pace = initialStreamPace(this.pacePolicy);
    }
    metrics.orderGapSeconds.set(this.gap.ms / 1000);
    metrics.streamFramesPerWindow.set(this.othersPerWindow);
  }

  /** Subscribes and unsubscribes that may leave per window now. */
  get streamFramesPerWindow(): number {
    return this.othersPerWindow;
  }

  /**
   * The venue dropped a frame of ours for the account's message rate (an `error` frame MESSAGE_RATE_LIMITED, or
   * a subscribe refused with that code): our evenly spaced frames bunched at its arrival count. The subscribes'
   * and unsubscribes' share narrows (stream-pace.ts); orders keep their own gap.
   */
  venueDroppedFrame(): void {
    if (this.pace === undefined || this.pacePolicy === undefined) return;
    this.setPace(paceAfterVenueDrop(this.pace, this.clock.now(), this.pacePolicy));
  }

  private recoverPace(now: number): void {
    if (this.pace === undefined || this.pacePolicy === undefined) return;
    if (this.pace.perWindow < this.pacePolicy.basePerWindow)
      this.setPace(paceAfterQuiet(this.pace, now, this.pacePolicy));
  }

  private setPace(pace: StreamPace): void {
    this.pace = pace;
    if (pace.perWindow === this.othersPerWindow) return;
    this.othersPerWindow = pace.perWindow;
    this.othersSpacingMs = this.limits.windowMs / pace.perWindow;
    this.metrics.streamFramesPerWindow.set(pace.perWindow);
  }

  /** The least gap between two order frames now. */
  get orderGapMs(): number {
    return this.gap.ms;
  }

  /**
   * The order pace now: how long each order waiting holds the ones behind it — the mean of the last few orders'
   * cycles, at least the gap, and at least as long as the last order has gone unanswered (up to the ceiling).
   * Published in the connector status (`orderQueuePaceMs`): the execution app refuses at intake an order that cannot
   * leave before its deadline behind the orders already waiting.
   */
  get orderQueuePaceMs(): number {
    const published = orderPaceOf(this.cycles, this.gap.ms);
    if (this.lastOrderId === undefined || this.lastOrder.answeredAt !== undefined) return published;
    const unanswered = Math.min(this.clock.now() - this.lastOrder.sentAt, this.gapPolicy.maxMs);
    return Math.max(published, unanswered);
  }

  /**
   * The venue's first answer to an order we sent, by its code: a pace refusal widens the order gap, an order
   * let through counts towards narrowing it. The answer to the last order sent also anchors the next one's pace
   * (order-pace.ts): the venue read that order no later than now. Either may free a waiting order.
   */
  orderAnswered(clientRequestId: string, code: string): void {
    if (clientRequestId === this.lastOrderId && this.lastOrder.answeredAt === undefined) {
      this.lastOrder = { ...this.lastOrder, answeredAt: this.clock.now() };
      this.cycled(orderCycleMs(this.lastOrder, this.pacing()));
    }
    const verdict = paceVerdict(code);
    if (verdict === 'rateLimited') this.metrics.orderRateLimited.inc();
    const before = this.gap.ms;
    this.gap = nextGap(this.gap, verdict, this.gapPolicy);
    if (this.gap.ms !== before) this.metrics.orderGapSeconds.set(this.gap.ms / 1000);
    if (this.waiting.length > 0) this.release();
  }

  get queued(): number {
    return this.waiting.length;
  }

  /** How many subscribes and unsubscribes may leave within `ms` (their share of the budget, spread). */
  othersSendableWithin(ms: number): number {
    return Math.floor((ms / this.limits.windowMs) * this.othersPerWindow);
  }

  /** Subscribes and unsubscribes waiting for the budget (those still wanted). */
  get othersQueued(): number {
    let count = 0;
    for (const waiter of this.waiting) if (!URGENT.has(waiter.kind) && waiter.wanted?.() !== false) count += 1;
    return count;
  }

  /**
   * Resolves when a frame of `kind` may be sent now; the caller must send it right away. `wanted`, asked when
   * its turn comes: false drops the frame without spending the budget (the promise then resolves too, and the
   * caller finds it has nothing to send). Orders go through `acquireOrder`.
   */
  async acquire(kind: Exclude<OutboundKind, 'order'>, wanted?: () => boolean): Promise<void> {
    await this.enqueue(kind, wanted);
  }

  /**
   * Resolves when an order frame may be sent now, with the slot its sender must settle (`sent` or `unused`):
   * until then the next order waits, at most the gap ceiling.
   */
  async acquireOrder(): Promise<OrderSlot> {
    const grant = await this.enqueue('order', undefined);
    if (grant === undefined) throw new Error('an order was let go without its grant');
    return {
      sent: (clientRequestId) => this.orderSent(grant, clientRequestId),
      unused: () => this.orderUnused(grant),
    };
  }

  private enqueue(kind: OutboundKind, wanted: (() => boolean) | undefined): Promise<OrderGrant | undefined> {
    const now = this.clock.now();
    this.recoverPace(now);
    if (this.waiting.length === 0 && this.eligible(kind, now)) return Promise.resolve(this.take(kind, now, now));
    this.metrics.rateLimitWaits.inc({ kind });
    return new Promise((resolve) => {
      this.waiting.push({ kind, resolve, wanted, since: now });
      this.release();
    });
  }

  private orderSent(grant: OrderGrant, clientRequestId: string): void {
    if (grant.settled) return;
    grant.settled = true;
    if (this.pendingGrant === grant) this.pendingGrant = undefined;
    // an order never answered held this one until now, at most the ceiling
    const { previous, previousId } = grant;
    if (previousId !== undefined && previous.answeredAt === undefined) {
      this.cycled(Math.min(this.clock.now() - previous.sentAt, this.gapPolicy.maxMs));
    }
    // the latest send binds the next order, even one let go after a later grant took the ceiling's turn
    this.lastOrder = { sentAt: this.clock.now(), answeredAt: undefined };
    this.lastOrderId = clientRequestId;
  }

  private orderUnused(grant: OrderGrant): void {
    if (grant.settled) return;
    grant.settled = true;
    if (this.pendingGrant !== grant) return;
    this.pendingGrant = undefined;
    this.lastOrder = grant.previous;
    this.lastOrderId = grant.previousId;
    if (this.waiting.length > 0) this.release();
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
    if (kind === 'order') return now >= this.nextOrder().at;
    if (URGENT.has(kind)) return true;
    if (this.othersSentAt.length >= this.othersPerWindow) return false;
    const last = this.othersSentAt[this.othersSentAt.length - 1];
    return last === undefined || now - last >= this.othersSpacingMs;
  }

  private take(kind: OutboundKind, now: number, since: number): OrderGrant | undefined {
    this.sentAt.push(now);
    if (kind === 'order') return this.grantOrder(now, since);
    if (!URGENT.has(kind)) this.othersSentAt.push(now);
    return undefined;
  }

  /** Lets an order go: until its sender says it left, it counts as sent now and unanswered. */
  private grantOrder(now: number, since: number): OrderGrant {
    if (now > since) {
      this.metrics.orderPaceWaitSeconds.observe({ bound: this.nextOrder().bound }, (now - since) / 1000);
    }
    const grant: OrderGrant = { previous: this.lastOrder, previousId: this.lastOrderId, settled: false };
    this.pendingGrant = grant;
    this.lastOrder = { sentAt: now, answeredAt: undefined };
    this.lastOrderId = undefined;
    return grant;
  }

  private nextOrder(): ReturnType<typeof nextOrderAt> {
    return nextOrderAt(this.lastOrder, this.pacing());
  }

  private pacing(): OrderPace {
    return { gapMs: this.gap.ms, venueIntervalMs: this.venueIntervalMs, ceilingMs: this.gapPolicy.maxMs };
  }

  private cycled(ms: number): void {
    this.cycles.push(ms);
    if (this.cycles.length > PACE_SAMPLE) this.cycles.shift();
  }

  private expire(now: number): void {
    expireBefore(this.sentAt, now - this.limits.windowMs);
    expireBefore(this.othersSentAt, now - this.limits.windowMs);
  }

  private release(): void {
    const now = this.clock.now();
    this.recoverPace(now);
    for (;;) {
      const index = this.nextServed(now);
      if (index < 0) break;
      const [waiter] = this.waiting.splice(index, 1);
      if (waiter === undefined) break;
      waiter.resolve(waiter.wanted?.() !== false ? this.take(waiter.kind, now, waiter.since) : undefined);
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

  /** The earliest moment a waiter may become eligible (a lower bound: release() checks again then). */
  private nextChance(now: number): number {
    const windowMs = this.limits.windowMs;
    const windowFrees = (this.sentAt[0] ?? now) + windowMs;
    const windowFull = this.sentAt.length >= this.limits.messagesPerWindow;
    let chance = Number.POSITIVE_INFINITY;
    const kinds = new Set(this.waiting.map((waiter) => waiter.kind));
    for (const kind of kinds) {
      let at = windowFull ? windowFrees : now;
      if (kind === 'order') at = Math.max(at, this.nextOrder().at);
      else if (!URGENT.has(kind)) {
        const others = this.othersSentAt;
        if (others.length >= this.othersPerWindow) at = Math.max(at, (others[0] ?? now) + windowMs);
        at = Math.max(at, (others[others.length - 1] ?? Number.NEGATIVE_INFINITY) + this.othersSpacingMs);
      }
      chance = Math.min(chance, at);
    }
    return chance;
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

/** Drops the leading times at or before `limit` from an ascending list. */
function expireBefore(times: number[], limit: number): void {
  let drop = 0;
  while (drop < times.length && (times[drop] ?? limit) <= limit) drop++;
  if (drop > 0) times.splice(0, drop);
}
