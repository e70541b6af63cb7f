import { randomUUID } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import WebSocket from 'ws';
import type { VenueClock } from '../../ports.js';
import type { QuoteTerms } from '../quotes/quote-book.js';
import type { SubscriptionSpec } from '../subscriptions/subscribe-validation.js';
import type { TradingMetrics } from '../trading-metrics.js';

export interface LiveSubscription {
  readonly subscriptionId: string;
  readonly spec: SubscriptionSpec;
  /** What each quote of the stream shares (one object per subscription, referenced by its quotes). */
  readonly terms: QuoteTerms;
}

/** How the connection joined its session (§4.2): a client-chosen sessionId, or one the venue minted. */
export interface SessionBinding {
  readonly sessionId: string;
  /** Minted ids live in their own namespace so no later connection can join them (no redelivery). */
  readonly minted: boolean;
}

export type OutboundFrame = { messageType: string } & Record<string, unknown>;

/**
 * One client connection: its chanId, session, price subscriptions, cadence timer (W13) and the stall
 * fault. Every frame leaves through `send`, which stamps chanId and timestamp (§2.1) and counts it.
 */
export class VenueConnection {
  readonly chanId = randomUUID();
  readonly subscriptions = new Map<string, LiveSubscription>();
  private cadence: NodeJS.Timeout | undefined;
  private ticks = 0;
  private stalled = false;
  private stallTimer: NodeJS.Timeout | undefined;
  private readonly heldWhileStalled: string[] = [];
  /** Frames read late (fault `late-order-reads`): read in arrival order when the timer fires. */
  private lateReads: { frames: Array<() => void>; timer: NodeJS.Timeout } | undefined;

  constructor(
    readonly socket: WebSocket,
    readonly userUuid: string,
    readonly session: SessionBinding,
    private readonly clock: VenueClock,
    private readonly metrics: TradingMetrics,
  ) {}

  get sessionKey(): string {
    return sessionKeyOf(this.userUuid, this.session);
  }

  get isOpen(): boolean {
    return this.socket.readyState === WebSocket.OPEN;
  }

  /**
   * Starts the fixed cadence; `onTick` gets the tick number (1, 2, …) and its time, which stamps the
   * tick's price updates. A chain of timeouts that never
   * lets two ticks come closer than `intervalMs` on the wall clock, so the ≤ 4 updates/s of §6.2 holds
   * even when a timer fires a millisecond early or late ones bunch up.
   */
  startCadence(intervalMs: number, onTick: (tick: number, at: number) => void): void {
    // Spacing is measured on the monotonic clock: the venue clock can be moved by the operator (skew), and
    // a move backwards must not freeze the cadence until the venue time catches up again. Updates are
    // still stamped with the venue clock.
    let last = performance.now();
    const schedule = (delay: number): void => {
      this.cadence = setTimeout(() => {
        const early = last + intervalMs - performance.now();
        if (early > 0) return schedule(Math.min(early, intervalMs));
        last = performance.now();
        this.ticks += 1;
        onTick(this.ticks, this.clock.now());
        if (this.cadence !== undefined) schedule(intervalMs);
      }, delay);
    };
    schedule(intervalMs);
  }

  /** Sends a frame; price updates are dropped while stalled, everything else waits for the resume. */
  send(frame: OutboundFrame, options: { droppable?: boolean; timestamp?: number } = {}): void {
    if (!this.isOpen) return;
    const timestamp = options.timestamp ?? this.clock.now();
    const text = JSON.stringify({ chanId: this.chanId, timestamp, ...frame });
    this.metrics.frameOut(frame.messageType);
    if (this.stalled) {
      if (options.droppable !== true) this.heldWhileStalled.push(text);
      return;
    }
    this.socket.send(text);
  }

  /** Fault: the socket goes silent without closing, for `durationMs` or until `resume`. */
  stall(durationMs: number | undefined): void {
    this.stalled = true;
    if (this.stallTimer !== undefined) clearTimeout(this.stallTimer);
    this.stallTimer = durationMs === undefined ? undefined : setTimeout(() => this.resume(), durationMs);
  }

  resume(): void {
    if (this.stallTimer !== undefined) clearTimeout(this.stallTimer);
    this.stallTimer = undefined;
    this.stalled = false;
    for (const text of this.heldWhileStalled.splice(0)) if (this.isOpen) this.socket.send(text);
  }

  /** Sends an error frame, then closes (W9, W19). */
  refuse(code: string, message: string, closeCode: number, closeReason: string = code): void {
    this.send({ messageType: 'error', code, message });
    this.resume();
    this.socket.close(closeCode, closeReason);
  }

  /** True while frames wait to be read late: a frame arriving now is read after them (`readLate` queues it). */
  get readingLate(): boolean {
    return this.lateReads !== undefined;
  }

  /**
   * Reads a frame `delayMs` from now, or, while earlier frames wait, after them: a socket is read in order. The
   * queue is read at once when the timer fires.
   */
  readLate(read: () => void, delayMs?: number): void {
    if (this.lateReads !== undefined) {
      this.lateReads.frames.push(read);
      return;
    }
    const frames = [read];
    const timer = setTimeout(() => {
      this.lateReads = undefined;
      for (const frame of frames) frame();
    }, delayMs ?? 0);
    this.lateReads = { frames, timer };
  }

  /** Stops timers; the socket is closing or closed. */
  dispose(): void {
    if (this.lateReads !== undefined) clearTimeout(this.lateReads.timer);
    this.lateReads = undefined;
    if (this.cadence !== undefined) clearTimeout(this.cadence);
    if (this.stallTimer !== undefined) clearTimeout(this.stallTimer);
    this.cadence = undefined;
    this.stallTimer = undefined;
  }
}

export function sessionKeyOf(userUuid: string, session: SessionBinding): string {
  return JSON.stringify([userUuid, session.minted ? 'minted' : 'client', session.sessionId]);
}
