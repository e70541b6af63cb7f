/**
 * spec-gaps R14: retry delays after a 5xx or a connection error (8 retries), scaled by
 * `webhookBackoffScale` so tests run the real shape in milliseconds. A timeout is retried at most 3 times.
 */
export const RETRY_DELAYS_SECONDS: readonly number[] = [1, 2, 4, 8, 16, 32, 60, 60];
export const MAX_TIMEOUT_RETRIES = 3;

/** Delay before retry number `retry` (0-based), or undefined when the schedule is exhausted. */
export function retryDelayMs(retry: number, scale: number): number | undefined {
  const seconds = RETRY_DELAYS_SECONDS[retry];
  return seconds === undefined ? undefined : seconds * 1000 * scale;
}
