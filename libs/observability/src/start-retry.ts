/**
 * Whether a failed start-up attempt is tried again in this process (docs/app-kit.md "Start-up cut off by NATS").
 * Pure: `startNestApp` asks it after every failed attempt. A failure the app calls retryable (NATS dropped or did
 * not answer in the middle of a step: `isBusUnavailable`) is tried again once what the attempt started is stopped —
 * the next attempt waits for NATS like the first one. Anything else fails the start (exit 1, or 75 when it is a
 * dependency that needs a fresh process), and a stop request ends the start (exit 0).
 */

/** The first pause before another attempt; it doubles per attempt up to `START_RETRY_MAX_MS`. */
export const START_RETRY_FIRST_MS = 1_000;
export const START_RETRY_MAX_MS = 30_000;

export type StartFailureAction =
  { readonly kind: 'retry'; readonly afterMs: number } | { readonly kind: 'stopped' } | { readonly kind: 'fail' };

export interface StartFailure {
  readonly error: unknown;
  /** 1 for the first attempt. */
  readonly attempt: number;
  /** A SIGTERM/SIGINT came: nothing is started again. */
  readonly stopRequested: boolean;
  /** The app's rule: true when the failure is a dependency gone in the middle that a new attempt may find back. */
  readonly retryable: (error: unknown) => boolean;
}

export function decideStartFailure(failure: StartFailure): StartFailureAction {
  if (failure.stopRequested) return { kind: 'stopped' };
  if (!failure.retryable(failure.error)) return { kind: 'fail' };
  const doublings = Math.min(Math.max(failure.attempt - 1, 0), 16);
  return { kind: 'retry', afterMs: Math.min(START_RETRY_MAX_MS, START_RETRY_FIRST_MS * 2 ** doublings) };
}

/**
 * The attempt failed and what it started could not be stopped in time (a part still running): starting again in
 * this process could run it twice, so the process ends (exit 75: start it again).
 */
export class StartCleanupError extends Error {
  override readonly name = 'StartCleanupError';
  constructor(waitMs: number, cause: unknown) {
    super(`start-up cut off, and what it had started did not stop within ${waitMs} ms: a fresh process is needed`, {
      cause,
    });
  }
}
