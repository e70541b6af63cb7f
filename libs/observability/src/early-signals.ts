/**
 * An app's `main` loads its modules (Nest, the venue and NATS clients, its own code: a second or more on a busy
 * machine) before `runApp` takes signals; a SIGTERM then ended the process by the signal (exit 143), not 0. So the
 * main takes SIGTERM and SIGINT first, with nothing imported yet, and loads the rest after: a signal while loading
 * exits 0 at once (nothing is started or held yet). `stopOnSignals` releases them when it takes over.
 *
 * No import here: this module must be ready before anything else loads.
 */
let early: ((signal: NodeJS.Signals) => void) | undefined;

export function takeSignalsEarly(app: string): void {
  early = (signal) => {
    const line = {
      time: new Date().toISOString(),
      level: 'info',
      app,
      context: 'main',
      msg: 'signal received while loading: stopped (nothing had started)',
      signal,
    };
    process.stdout.write(`${JSON.stringify(line)}\n`, () => process.exit(0));
  };
  process.on('SIGTERM', early);
  process.on('SIGINT', early);
}

export function releaseEarlySignals(): void {
  if (early === undefined) return;
  process.off('SIGTERM', early);
  process.off('SIGINT', early);
  early = undefined;
}
