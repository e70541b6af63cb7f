/**
 * Starts the account-sync app in this process: `/health` and `/metrics` on HTTP_PORT, the REST sync, the
 * transaction ledger, the webhook receiver and withdrawals. Used by `main.ts` and by tests.
 */
import type { INestApplication } from '@nestjs/common';
import { EXIT_CODE, JsonLogger, startNestApp } from '#observability';
import { AccountSyncAppModule, type FailStop } from './app.module.js';
import type { AccountSyncConfig } from './config.js';

export interface RunningAccountSync {
  app: INestApplication;
  /** e.g. `http://127.0.0.1:3003` (`/health`, `/metrics`). */
  httpUrl: string;
  /** Clean stop: stop taking work → finish what is in hand → flush NATS → close. Idempotent. */
  close(): Promise<void>;
}

export async function startAccountSync(
  config: AccountSyncConfig,
  options: { logger?: JsonLogger; failStop?: FailStop } = {},
): Promise<RunningAccountSync> {
  // a lost lease in the process: exit at once, no clean stop (that would write) — a supervisor restarts it
  const failStop = options.failStop ?? (() => process.exit(EXIT_CODE.leaseLost));
  const { app, httpUrl } = await startNestApp(AccountSyncAppModule.forRoot(config, failStop), {
    app: 'account-sync',
    port: config.HTTP_PORT,
    host: config.HTTP_HOST,
    logger: options.logger ?? new JsonLogger('account-sync', 'nest'),
    waitingFor: 'waiting for NATS',
  });
  let closed: Promise<void> | undefined;
  return { app, httpUrl, close: () => (closed ??= app.close()) };
}
