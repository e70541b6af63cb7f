/** `npm run start:account-sync`: the account's truth on NATS for one venue account (docs/account-sync.md). */
import { takeSignalsEarly } from '../../../libs/observability/src/early-signals.js';

// Signals first: a SIGTERM while the modules below load (a second or more) exits 0, not by the signal.
takeSignalsEarly('account-sync');
await import('reflect-metadata');
const [{ isBusUnavailable }, { runApp }, { startAccountSync }, { AccountSyncConfig }] = await Promise.all([
  import('#bus'),
  import('#observability'),
  import('./bootstrap.js'),
  import('./config.js'),
]);

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
