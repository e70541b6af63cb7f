/** `npm run start:account-sync`: the account's truth on NATS for one venue account (docs/account-sync.md). */
import 'reflect-metadata';
import { isBusUnavailable } from '#bus';
import { runApp } from '#observability';
import { startAccountSync } from './bootstrap.js';
import { AccountSyncConfig } from './config.js';

void runApp({
  transient: isBusUnavailable,
  name: 'account-sync',
  config: AccountSyncConfig,
  docs: 'docs/account-sync.md#configuration',
  start: (config, logger) => startAccountSync(config, { logger }),
  describe: (config) => ({ account: config.ACCOUNT, restRequestsPerSecond: config.VENUE_REST_REQUESTS_PER_SECOND }),
  listens: (config) => [
    {
      port: config.WEBHOOK_PORT,
      host: config.WEBHOOK_HOST,
      portVariable: 'WEBHOOK_PORT',
      hostVariable: 'WEBHOOK_HOST',
    },
  ],
});
