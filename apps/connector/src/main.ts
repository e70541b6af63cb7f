/** `npm run start:connector`: the connector of one venue account (configuration: docs/connector.md). */
import 'reflect-metadata';
import { ConfigError, exitOnConfigError, JsonLogger, loadConfig, stopOnSignals } from '#observability';
import { startConnector } from './bootstrap.js';
import { ConnectorConfig } from './config.js';

const log = new JsonLogger('connector', 'main');

async function main(): Promise<void> {
  const config = loadConfig(ConnectorConfig, process.env);
  const connector = await startConnector(config, { logger: new JsonLogger('connector', 'nest') });
  // SIGTERM/SIGINT: the ordered shutdown (commands → session drain → outcomes → NATS), then exit 0.
  stopOnSignals(() => connector.close(), log);
  log.info('connector started', { http: connector.httpUrl, account: config.ACCOUNT });
}

main().catch((error: unknown) => {
  if (error instanceof ConfigError) exitOnConfigError(error, 'connector', 'docs/connector.md#configuration');
  log.error('connector failed to start', { error: error instanceof Error ? error.stack : String(error) });
  process.exit(1);
});
