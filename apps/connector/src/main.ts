/** `npm run start:connector`: the connector of one venue account (configuration: docs/connector.md). */
import 'reflect-metadata';
import { isBusUnavailable } from '#bus';
import { runApp } from '#observability';
import { startConnector } from './bootstrap.js';
import { ConnectorConfig } from './config.js';

void runApp({
  transient: isBusUnavailable,
  name: 'connector',
  config: ConnectorConfig,
  docs: 'docs/connector.md#configuration',
  start: (config, logger) => startConnector(config, { logger }),
  describe: (config) => ({ account: config.ACCOUNT }),
});
