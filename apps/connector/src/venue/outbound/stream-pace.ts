/**
 * How many subscribes and unsubscribes may leave per window, adapted to what the venue says (spec-gaps K1, W14).
 * The venue counts arrivals; frames we spread evenly bunch at a venue (or network) that lags, and the excess
 * is dropped with an `error` frame MESSAGE_RATE_LIMITED naming no message (W9) — outside tester: 104 in a
 * churn soak, 86 of them unsubscribes. Such a drop narrows the share by a quarter (a burst of errors counts
 * once per window: one bunching, one step), never below `minPerWindow`; each `recoverAfterMs` without one
 * widens it by one frame, never above the configured `basePerWindow`. Orders keep their own adaptive gap
 * (order-gap.ts) and third of the budget. Pure: no clock, no I/O.
 */
export interface StreamPacePolicy {
  /** The configured share (two thirds of the venue's 30 a second): the ceiling. */
  readonly basePerWindow: number;
  readonly minPerWindow: number;
  readonly windowMs: number;
  readonly recoverAfterMs: number;
}

export interface StreamPace {
  readonly perWindow: number;
  /** When the share last changed. */
  readonly changedAt: number;
  readonly narrowedAt: number;
}

export function initialStreamPace(policy: StreamPacePolicy): StreamPace {
  return {
    perWindow: policy.basePerWindow,
    changedAt: Number.NEGATIVE_INFINITY,
    narrowedAt: Number.NEGATIVE_INFINITY,
  };
}

/** The venue dropped a frame of ours for the account's message rate. */
export function paceAfterVenueDrop(pace: StreamPace, now: number, policy: StreamPacePolicy): StreamPace {
  if (now - pace.narrowedAt < policy.windowMs) return pace;
  const floor = Math.min(policy.minPerWindow, policy.basePerWindow);
  const perWindow = Math.max(floor, Math.floor((pace.perWindow * 3) / 4));
  return { perWindow, changedAt: now, narrowedAt: now };
}

/** Time passed without a drop: one more frame per window for each `recoverAfterMs` since the last change. */
export function paceAfterQuiet(pace: StreamPace, now: number, policy: StreamPacePolicy): StreamPace {
  if (pace.perWindow >= policy.basePerWindow || now - pace.changedAt < policy.recoverAfterMs) return pace;
  return { ...pace, perWindow: pace.perWindow + 1, changedAt: now };
}
