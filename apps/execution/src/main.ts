/** `npm run start:execution`: the order API for algo services (configuration: docs/execution.md). */
import { takeSignalsEarly } from '../../../libs/observability/src/early-signals.js';

// Signals first: a SIGTERM while the modules below load (a second or more) exits 0, not by the signal.
takeSignalsEarly('execution');
await import('reflect-metadata');
const [{ isBusUnavailable }, { runApp }, { startExecution }, { ExecutionConfig }] = await Promise.all([
  import('#bus'),
  import('#observability'),
  import('./bootstrap.js'),
  import('./config.js'),
]);

void runApp({
  transient: isBusUnavailable,
  name: 'execution',
  config: ExecutionConfig,
  docs: 'docs/execution.md#configuration',
  start: (config, logger) => startExecution(config, { logger }),
  describe: (config, running) => ({ account: config.ACCOUNT, instance: running.runtime.instanceId }),
});
