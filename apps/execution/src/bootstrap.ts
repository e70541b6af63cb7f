/**
 * Starts the execution app in this process: `/health` and `/metrics` on HTTP_PORT, the order API on NATS.
 * Used by `main.ts` and by the end-to-end tests.
 */
import type { INestApplication } from '@nestjs/common';
import { JsonLogger, startNestApp } from '#observability';
import { ExecutionAppModule } from './app.module.js';
import type { ExecutionConfig } from './config.js';
import { ExecutionRuntime } from './execution-runtime.js';

export interface RunningExecution {
  app: INestApplication;
  httpUrl: string;
  runtime: ExecutionRuntime;
  /** Clean stop: requests → orders in hand → ownership released → NATS flush → close. Idempotent. */
  close(): Promise<void>;
}

export async function startExecution(
  config: ExecutionConfig,
  options: { logger?: JsonLogger } = {},
): Promise<RunningExecution> {
  const { app, httpUrl } = await startNestApp(ExecutionAppModule.forRoot(config), {
    app: 'execution',
    port: config.HTTP_PORT,
    host: config.HTTP_HOST,
    logger: options.logger ?? new JsonLogger('execution', 'nest'),
    waitingFor: 'waiting for NATS',
  });
  let closed: Promise<void> | undefined;
  return { app, httpUrl, runtime: app.get(ExecutionRuntime), close: () => (closed ??= app.close()) };
}
