/** `npm run start:connector`: the connector of one venue account (configuration: docs/connector.md). */
import { takeSignalsEarly } from '../../../libs/observability/src/early-signals.js';

// Signals first: a SIGTERM while the modules below load (a second or more) exits 0, not by the signal.
takeSignalsEarly('connector');
await import('reflect-metadata');
const [{ isBusUnavailable }, { runApp }, { startConnector }, { ConnectorConfig }] = await Promise.all([
  import('#bus'),
  import('#observability'),
  import('./bootstrap.js'),
  import('./config.js'),
]);

void runApp({
  transient: isBusUnavailable,
  name: 'connector',
  config: ConnectorConfig,
  docs: 'docs/connector.md#configuration',
  start: (config, logger) => startConnector(config, { logger }),
  describe: (config) => ({ account: config.ACCOUNT }),
});
