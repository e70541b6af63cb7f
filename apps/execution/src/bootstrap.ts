/**
 * Starts the execution app in this process: `/health` and `/metrics` on HTTP_PORT, the order API on NATS.
 * Used by `main.ts` and by the end-to-end tests.
 */
import type { INestApplication } from '@nestjs/common';
import { isBusUnavailable } from '#bus';
import { JsonLogger, startNestApp } from '#observability';
import { ExecutionAppModule, generatedInstanceId } from './app.module.js';
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
  // one name for every start-up attempt: an attempt NATS cut off leaves no heartbeat under another name
  const instanceId = config.INSTANCE_ID ?? generatedInstanceId();
  const { app, httpUrl } = await startNestApp((startup) => ExecutionAppModule.forRoot(config, startup, instanceId), {
    app: 'execution',
    port: config.HTTP_PORT,
    host: config.HTTP_HOST,
    logger: options.logger ?? new JsonLogger('execution', 'nest'),
    retryable: isBusUnavailable,
  });
  let closed: Promise<void> | undefined;
  return { app, httpUrl, runtime: app.get(ExecutionRuntime), close: () => (closed ??= app.close()) };
}
