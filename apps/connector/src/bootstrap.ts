/**
 * Starts the connector in this process: `/health` and `/metrics` on HTTP_PORT, the venue session and its
 * NATS subjects. Used by `main.ts` and by the end-to-end tests (which start it on real sockets).
 */
import type { INestApplication } from '@nestjs/common';
import { isBusUnavailable } from '#bus';
import { JsonLogger, startNestApp } from '#observability';
import { ConnectorAppModule } from './app.module.js';
import type { ConnectorConfig } from './config.js';
import { ConnectorRuntime } from './nats/connector-runtime.js';

export interface RunningConnector {
  app: INestApplication;
  /** e.g. `http://127.0.0.1:3001` (`/health`, `/metrics`). */
  httpUrl: string;
  runtime: ConnectorRuntime;
  /** Clean stop: commands → session → outcomes → NATS flush → close. Idempotent. */
  close(): Promise<void>;
}

export async function startConnector(
  config: ConnectorConfig,
  options: { logger?: JsonLogger } = {},
): Promise<RunningConnector> {
  const { app, httpUrl } = await startNestApp((startup) => ConnectorAppModule.forRoot(config, startup), {
    app: 'connector',
    port: config.HTTP_PORT,
    host: config.HTTP_HOST,
    logger: options.logger ?? new JsonLogger('connector', 'nest'),
    retryable: isBusUnavailable,
  });
  let closed: Promise<void> | undefined;
  return {
    app,
    httpUrl,
    runtime: app.get(ConnectorRuntime),
    close: () => (closed ??= app.close()),
  };
}
