/**
 * Backpressure at intake (docs/execution.md#the-order-queue): an order that cannot leave before its send deadline
 * behind the orders already waiting for the venue is refused at once, `ORDER_QUEUE_FULL` (ask again with the same
 * key), rather than accepted to end FAILED `SEND_DEADLINE_PASSED`. The venue takes one order per interval; the
 * connector sends the account's commands one at a time at its current pace, which it publishes in its status
 * (`orderQueuePaceMs`). The orders ahead are the commands in the account's command stream the connector has not
 * finished — every instance's, one truth shared — plus this instance's new orders whose command is not there yet.
 * The wait is (orders ahead + 1) × pace; the order is refused when that, plus a margin, passes the time left to its
 * command's `sendBy`. Never with no order ahead; and with no pace heard lately (a stale status) or the stream not
 * answering, orders are taken as before (/health says so).
 */
import type { Clock } from '#actors';

/** Kept to spare beyond the estimated wait: the pace published seconds ago, the connector's work per command. */
export const QUEUE_MARGIN_MS = 500;

/**
 * And a share of the wait itself: the pace is the mean of the last few orders, and a venue answering a little later
 * than that through a long queue adds up (outside tester: 3 of 93 orders accepted in bursts of 38 still ended
 * `SEND_DEADLINE_PASSED` with the fixed margin alone).
 */
export const QUEUE_MARGIN_SHARE = 0.1;

/**
 * How long one reading of the command stream's backlog serves the orders that come after it: a burst of orders
 * shares one JetStream request instead of one each. Short beside any pace (≥ 250 ms): another instance's commands
 * published meanwhile are at most one or two; this instance's are added (`QueueSources.commandsPublished`).
 */
export const BACKLOG_READING_MS = 100;

export interface QueueEstimate {
  readonly ordersAhead: number;
  readonly paceMs: number;
  readonly estimatedWaitMs: number;
  /** Until the command's `sendBy`. */
  readonly timeLeftMs: number;
}

export function queueEstimate(ordersAhead: number, paceMs: number, sendBy: number, now: number): QueueEstimate {
  return { ordersAhead, paceMs, estimatedWaitMs: (ordersAhead + 1) * paceMs, timeLeftMs: sendBy - now };
}

/**
 * True when the order would still be queued at its `sendBy`, with the margins kept; never with no order ahead (it
 * leaves next).
 */
export function cannotLeaveInTime(estimate: QueueEstimate, marginMs: number = QUEUE_MARGIN_MS): boolean {
  const kept = estimate.estimatedWaitMs * (1 + QUEUE_MARGIN_SHARE) + marginMs;
  return estimate.ordersAhead > 0 && kept > estimate.timeLeftMs;
}

/** The refusal's `values` (integers as strings, the contract's convention). */
export function queueValues(estimate: QueueEstimate): Record<string, string> {
  return {
    ordersAhead: String(estimate.ordersAhead),
    paceMs: String(estimate.paceMs),
    estimatedWaitMs: String(estimate.estimatedWaitMs),
    timeLeftMs: String(Math.max(0, estimate.timeLeftMs)),
  };
}

export interface QueueSources {
  /** The connector's order queue pace from a status heard lately; undefined: unknown. */
  paceMs(): number | undefined;
  /** Commands in the account's command stream the connector has not finished (every instance's). */
  commandsQueued(): Promise<number>;
  /** This instance's new orders being placed or placed whose command is not in the stream yet. */
  commandsUnpublished(): number;
  /** How many commands this instance has stored in the stream so far (a counter). */
  commandsPublished(): number;
}

/** One reading of the backlog, shared by the orders that come while it is young. */
interface BacklogReading {
  readonly startedAt: number;
  /** This instance's `commandsPublished` when it was asked for. */
  readonly publishedBefore: number;
  readonly queued: Promise<number>;
}

/** How an order's estimate went: refused, passed, or not made (no pace heard lately, the stream unreadable). */
export type QueueResult = 'refused' | 'passed' | 'no_pace' | 'no_backlog';
export const QUEUE_RESULTS: readonly QueueResult[] = ['refused', 'passed', 'no_pace', 'no_backlog'];

/**
 * Passed: the caller counts the order among its unpublished ones (OrderDesk.reserve) and then calls `counted`;
 * until then it counts here, so that orders decided at the same moment see each other.
 */
export type QueueAdmission =
  | { ok: true; result: Exclude<QueueResult, 'refused'>; counted(): void }
  | { ok: false; result: 'refused'; estimate: QueueEstimate };

export class OrderQueue {
  /** Orders past the estimate not yet counted by the desk. */
  private deciding = 0;
  private reading: BacklogReading | undefined;

  constructor(
    private readonly sources: QueueSources,
    private readonly clock: Clock,
    private readonly marginMs: number = QUEUE_MARGIN_MS,
    private readonly readingMs: number = BACKLOG_READING_MS,
  ) {}

  async admit(sendBy: number): Promise<QueueAdmission> {
    const paceMs = this.sources.paceMs();
    if (paceMs === undefined) return { ok: true, result: 'no_pace', counted: () => undefined };
    // This instance's orders first, then the stream: an order published in between is counted twice (one more
    // ahead, for a moment), never missed.
    const local = this.deciding + this.sources.commandsUnpublished();
    const published = this.sources.commandsPublished();
    this.deciding += 1;
    let held = true;
    const counted = (): void => {
      if (held) this.deciding -= 1;
      held = false;
    };
    let queued: number;
    try {
      const reading = this.backlog();
      // this instance's commands stored since the reading was asked for: no longer counted here, maybe not there
      queued = (await reading.queued) + Math.max(0, published - reading.publishedBefore);
    } catch {
      return { ok: true, result: 'no_backlog', counted };
    }
    const estimate = queueEstimate(queued + local, paceMs, sendBy, this.clock.now());
    if (!cannotLeaveInTime(estimate, this.marginMs)) return { ok: true, result: 'passed', counted };
    counted();
    return { ok: false, result: 'refused', estimate };
  }

  /** The young reading (in flight or answered within `readingMs`), or a new one; a failed one is not kept. */
  private backlog(): BacklogReading {
    const now = this.clock.now();
    const young = this.reading;
    if (young !== undefined && now - young.startedAt < this.readingMs) return young;
    const reading: BacklogReading = {
      startedAt: now,
      publishedBefore: this.sources.commandsPublished(),
      queued: this.sources.commandsQueued(),
    };
    reading.queued.catch(() => {
      if (this.reading === reading) this.reading = undefined;
    });
    this.reading = reading;
    return reading;
  }
}
