import { releaseEarlySignals } from './early-signals.js';
import type { JsonLogger } from './json-logger.js';
import { requestShutdown } from './shutdown-request.js';

export interface StopOnSignalsOptions {
  /** A shutdown longer than this is abandoned with exit code 1 (default 30 s). */
  timeoutMs?: number;
  /** For tests; default `process.exit`. */
  exit?: (code: number) => void;
}

/**
 * The shutdown every app shares: at SIGTERM or SIGINT, run `stop` (the app's ordered shutdown) once and
 * exit 0 when it completes, 1 when it fails or outlasts `timeoutMs`. A second signal exits at once (1).
 */
export function stopOnSignals(stop: () => Promise<void>, log: JsonLogger, options: StopOnSignalsOptions = {}): void {
  const timeoutMs = options.timeoutMs ?? 30_000;
  const exit = options.exit ?? ((code: number) => process.exit(code));
  let stopping = false;
  const onSignal = (signal: NodeJS.Signals): void => {
    if (stopping) {
      log.warn('second signal during shutdown: exiting now', { signal });
      exit(1);
      return;
    }
    stopping = true;
    log.info('signal received: stopping', { signal });
    requestShutdown(); // a start-up still waiting (for NATS) gives up
    const timer = setTimeout(() => {
      log.error('shutdown took too long: exiting', { timeoutMs });
      exit(1);
    }, timeoutMs);
    timer.unref();
    stop().then(
      () => {
        clearTimeout(timer);
        log.info('stopped cleanly');
        exit(0);
      },
      (error: unknown) => {
        clearTimeout(timer);
        log.error('shutdown failed', { error: error instanceof Error ? error.message : String(error) });
        exit(1);
      },
    );
  };
  process.on('SIGTERM', onSignal);
  process.on('SIGINT', onSignal);
  releaseEarlySignals(); // the main's own, taken while its modules loaded
}
