import { systemClock, type Cancel, type Clock } from '#actors';

/** The longest silence between two "still waiting" lines: an outage of hours logs about once a minute. */
export const WAIT_LOG_MAX_MS = 60_000;

/**
 * Says "still waiting" while something is not reachable: first after `firstMs`, then at doubling intervals up to
 * `maxMs` — visible at once, never a line every 2 s through a long outage. `log` gets how long it has waited.
 * Returns the stop.
 */
export function logWhileWaiting(
  log: (waitedMs: number) => void,
  firstMs: number,
  maxMs: number = WAIT_LOG_MAX_MS,
  clock: Clock = systemClock,
): Cancel {
  const startedAt = clock.now();
  let cancel: Cancel | undefined;
  const after = (delayMs: number): void => {
    cancel = clock.setTimeout(() => {
      log(clock.now() - startedAt);
      after(Math.min(maxMs, delayMs * 2));
    }, delayMs);
  };
  after(Math.min(firstMs, maxMs));
  return () => cancel?.();
}
