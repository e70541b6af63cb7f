/**
 * Ctrl-C (SIGINT) or SIGTERM while a command waits. `gw prices` stops its live table (exit 0); `gw buy|sell` and
 * `gw withdrawals submit` stop waiting and say what is known — the write may have been taken, so it is UNKNOWN with
 * its key (exit 3), or the order's latest state; every other command stops at once (exit 130, as a shell would).
 */
import { GatewayError, OutcomeUnknownError } from '../gateway-error.js';

/** The exit code of a command interrupted while it only read. */
export const EXIT_INTERRUPTED = 130;

export const INTERRUPTED = Symbol('interrupted');

/** Resolves to INTERRUPTED once `signal` aborts (never without a signal). */
export function interruption(signal: AbortSignal | undefined): Promise<typeof INTERRUPTED> {
  return new Promise((resolve) => {
    if (signal === undefined) return;
    if (signal.aborted) resolve(INTERRUPTED);
    else signal.addEventListener('abort', () => resolve(INTERRUPTED), { once: true });
  });
}

/** `work`'s answer; an interrupt before it is a write of unknown outcome (it may have been taken). */
export async function answerOrInterrupt<T>(
  work: Promise<T>,
  signal: AbortSignal | undefined,
  what: string,
  idempotencyKey: string,
): Promise<T> {
  const answer = await Promise.race([work, interruption(signal)]);
  if (answer !== INTERRUPTED) return answer;
  work.catch(() => undefined);
  throw new OutcomeUnknownError(
    what,
    idempotencyKey,
    new GatewayError('INTERRUPTED', 'interrupted before the answer came'),
  );
}
