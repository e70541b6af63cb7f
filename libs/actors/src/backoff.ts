export interface BackoffPolicy {
  initialMs: number;
  maxMs: number;
}

/**
 * Delay before retry number `failures` (1-based count of consecutive failures; for the venue session the loss
 * of an open connection counts as the first). The first retry is immediate; after that "full jitter": uniform
 * in [0, min(max, initial · 2^(failures-2))), so many clients that failed at once spread out.
 */
export function reconnectDelay(failures: number, policy: BackoffPolicy, random: number): number {
  if (failures <= 1) return 0;
  return Math.floor(random * doublingDelay(failures - 2, policy));
}

/** `initial · 2^step` (step 0: `initial`), capped at `max`: a retry's delay without jitter. */
export function doublingDelay(step: number, policy: BackoffPolicy): number {
  return Math.min(policy.maxMs, policy.initialMs * 2 ** Math.min(Math.max(step, 0), 30));
}
