/**
 * When the next order frame may leave (spec-gaps K1, W15). The venue refuses an order that *arrives* within its
 * interval (§8: 250 ms) of the account's previous accepted one; our clock only sees when we send. Two bounds:
 * (a) our previous send + the adaptive gap (order-gap.ts) — the throughput floor, as before;
 * (b) the venue's first answer to the previous order + the venue's interval — evidence: the venue read that order
 *     no later than its answer reached us, and it reads the next one no earlier than we send it, so an order sent
 *     that long after the answer is never refused for its pace, whatever the jitter at either end.
 * While the previous order is unanswered the next one waits for the answer, but no longer than the previous send
 * + the gap ceiling: a lost answer (a dropped connection, a lost frame) must not stall orders.
 * Pure: no clock, no I/O.
 */

/** What the limiter knows of the account's last order frame. */
export interface LastOrder {
  /** When it left (while its sender has not yet said, when it was let go). */
  readonly sentAt: number;
  /** When the venue's first answer to it reached us; undefined while none has. */
  readonly answeredAt: number | undefined;
}

export interface OrderPace {
  /** The adaptive gap now, counted from our send (bound a). */
  readonly gapMs: number;
  /** The venue's interval between two orders' arrivals (§8: 250 ms), counted from the answer (bound b). */
  readonly venueIntervalMs: number;
  /** The longest wait for a missing answer, counted from our send (`VENUE_ORDER_INTERVAL_MAX_MS`). */
  readonly ceilingMs: number;
}

/** Which bound holds the next order: our gap, the previous order's answer, or its missing answer (the ceiling). */
export type PaceBound = 'gap' | 'answer' | 'unanswered';
export const PACE_BOUNDS: readonly PaceBound[] = ['gap', 'answer', 'unanswered'];

/**
 * The clock reads whole milliseconds: an answer read at t may have come up to 1 ms before, so bound (b) adds
 * one more to stay a strict guarantee.
 */
export const CLOCK_RESOLUTION_MS = 1;

/** The earliest moment the next order may leave, and the bound that sets it. */
export function nextOrderAt(last: LastOrder, pace: OrderPace): { at: number; bound: PaceBound } {
  const byGap = last.sentAt + pace.gapMs;
  if (last.answeredAt === undefined) {
    return { at: Math.max(byGap, last.sentAt + pace.ceilingMs), bound: 'unanswered' };
  }
  const byAnswer = last.answeredAt + pace.venueIntervalMs + CLOCK_RESOLUTION_MS;
  return byAnswer > byGap ? { at: byAnswer, bound: 'answer' } : { at: byGap, bound: 'gap' };
}

/**
 * The last order before this process, taken as sent at `at` (its start): the previous life may have sent one just
 * before it stopped (the venue counts per account, not per process), so the first order waits one gap. Its answer
 * is taken as in (a restart takes longer than any answer): waiting for it would cost every start the ceiling.
 */
export function orderBefore(at: number): LastOrder {
  return { sentAt: at, answeredAt: Number.NEGATIVE_INFINITY };
}

/**
 * How long one order held the next (its send to the moment the next could leave), by the bounds above: the gap,
 * or its answer + the venue's interval. The connector's order pace — what each order waiting costs the ones behind
 * it — is the mean over the last few orders, never below the gap now (`orderPaceOf`).
 */
export function orderCycleMs(answered: LastOrder, pace: OrderPace): number {
  return nextOrderAt(answered, pace).at - answered.sentAt;
}

/** Orders whose cycles make the published pace: a few, so one slow answer neither dominates nor is forgotten. */
export const PACE_SAMPLE = 5;

/** The order pace now: the mean of the recent cycles (at most `PACE_SAMPLE`), at least the gap; whole ms. */
export function orderPaceOf(recentCycles: readonly number[], gapMs: number): number {
  const sample = recentCycles.slice(-PACE_SAMPLE);
  if (sample.length === 0) return gapMs;
  const mean = sample.reduce((sum, ms) => sum + ms, 0) / sample.length;
  return Math.max(gapMs, Math.ceil(mean));
}
