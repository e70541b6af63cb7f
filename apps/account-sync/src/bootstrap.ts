/**
 * Starts the account-sync app in this process: `/health` and `/metrics` on HTTP_PORT, the REST sync, the
 * transaction ledger, the webhook receiver and withdrawals. Used by `main.ts` and by tests.
 */
import type { INestApplication } from '@nestjs/common';
import { isBusUnavailable } from '#bus';
import { EXIT_CODE, JsonLogger, startNestApp } from '#observability';
import { StartedUnderLeaseError } from './lifecycle/app-lifecycle.js';
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
  const { app, httpUrl } = await startNestApp((startup) => AccountSyncAppModule.forRoot(config, failStop, startup), {
    app: 'account-sync',
    port: config.HTTP_PORT,
    host: config.HTTP_HOST,
    logger: options.logger ?? new JsonLogger('account-sync', 'nest'),
    retryable: retryableStart,
  });
  let closed: Promise<void> | undefined;
  return { app, httpUrl, close: () => (closed ??= app.close()) };
}

/**
 * A start-up NATS cut off before this instance took the account lease is tried again in this process; one cut off
 * after it is not (a writer's parts may be left running: a fresh process takes the lease back — exit 75).
 */
export function retryableStart(error: unknown): boolean {
  return isBusUnavailable(error) && !(error instanceof StartedUnderLeaseError);
}
