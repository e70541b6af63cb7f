import { SandboxCode } from '#venue-api';

/**
 * The gap between two order frames, adapted to what the venue says (spec-gaps K1, W15). The venue counts
 * arrivals, so scheduling jitter at either end eats any fixed margin: a refusal `ORDER_RATE_LIMITED` widens
 * the gap by one step (up to `maxMs`), a run of `narrowAfter` orders that passed the venue's pace check
 * narrows it by one step (never below `baseMs`, the configured interval). Pure: no clock, no I/O.
 */
export interface OrderGapPolicy {
  /** The configured least gap (`VENUE_ORDER_INTERVAL_MS`): the floor. */
  readonly baseMs: number;
  /** The ceiling (`VENUE_ORDER_INTERVAL_MAX_MS`); a ceiling below the floor is taken as the floor. */
  readonly maxMs: number;
  readonly stepMs: number;
  readonly narrowAfter: number;
}

export interface OrderGap {
  readonly ms: number;
  /** Orders answered without a pace refusal since the gap last changed. */
  readonly admittedRun: number;
}

/**
 * What an order's first answer says about the pace: refused for it, passed it, or nothing (W27: the venue
 * checks the order's fields before the pace, so `INVALID_ORDER` never reached the pace check).
 */
export type PaceVerdict = 'rateLimited' | 'admitted' | 'unjudged';

export function paceVerdict(code: string): PaceVerdict {
  if (code === SandboxCode.OrderRateLimited) return 'rateLimited';
  if (code === SandboxCode.InvalidOrder) return 'unjudged';
  return 'admitted';
}

export function initialGap(policy: OrderGapPolicy): OrderGap {
  return { ms: policy.baseMs, admittedRun: 0 };
}

export function nextGap(gap: OrderGap, verdict: PaceVerdict, policy: OrderGapPolicy): OrderGap {
  const ceiling = Math.max(policy.maxMs, policy.baseMs);
  switch (verdict) {
    case 'rateLimited':
      return { ms: Math.min(gap.ms + policy.stepMs, ceiling), admittedRun: 0 };
    case 'admitted': {
      const run = gap.admittedRun + 1;
      if (gap.ms <= policy.baseMs) return { ms: policy.baseMs, admittedRun: 0 };
      if (run < policy.narrowAfter) return { ms: gap.ms, admittedRun: run };
      return { ms: Math.max(gap.ms - policy.stepMs, policy.baseMs), admittedRun: 0 };
    }
    case 'unjudged':
      return gap;
  }
}
