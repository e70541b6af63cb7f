/**
 * The process-wide request to stop, set at the first SIGTERM/SIGINT (`stopOnSignals`). A start-up step that may
 * wait without bound — NATS unreachable — gives up on it with `StartAbortedError`, and `runApp` then leaves the
 * exit to the signal's shutdown (0): an app stopped before it ever started held nothing.
 */
const controller = new AbortController();

export const shutdownRequested: AbortSignal = controller.signal;

export function requestShutdown(): void {
  controller.abort();
}

export class StartAbortedError extends Error {
  override readonly name = 'StartAbortedError';
  constructor(waitingFor: string) {
    super(`start-up abandoned while waiting for ${waitingFor}: the process was asked to stop`);
  }
}

/** `work`, unless a stop is requested first: then `StartAbortedError` (what `work` later yields is `discard`ed). */
export async function unlessShutdown<T>(work: Promise<T>, waitingFor: string, discard: (value: T) => void): Promise<T> {
  if (shutdownRequested.aborted) {
    void work.then(discard, () => undefined);
    throw new StartAbortedError(waitingFor);
  }
  let onAbort: () => void = () => undefined;
  const aborted = new Promise<never>((_, reject) => {
    onAbort = () => reject(new StartAbortedError(waitingFor));
    shutdownRequested.addEventListener('abort', onAbort, { once: true });
  });
  try {
    return await Promise.race([work, aborted]);
  } catch (error) {
    if (error instanceof StartAbortedError) void work.then(discard, () => undefined);
    throw error;
  } finally {
    shutdownRequested.removeEventListener('abort', onAbort);
  }
}
