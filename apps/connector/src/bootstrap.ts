/**
 * Starts the connector in this process: `/health` and `/metrics` on HTTP_PORT, the venue session and its
 * NATS subjects. Used by `main.ts` and by the end-to-end tests (which start it on real sockets).
 */
import type { AddressInfo } from 'node:net';
import { NestFactory } from '@nestjs/core';
import type { INestApplication } from '@nestjs/common';
import { JsonLogger, serveStartingHealth } from '#observability';
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
  const logger = options.logger ?? new JsonLogger('connector', 'nest');
  // The port answers at once (503, saying what it waits for) while NATS is connected; then the app takes it.
  const starting = await serveStartingHealth(config.HTTP_PORT, config.HTTP_HOST, () => 'waiting for NATS');
  let app: INestApplication;
  try {
    app = await NestFactory.create(ConnectorAppModule.forRoot(config), { logger, abortOnError: false });
  } finally {
    await starting.close();
  }
  await app.listen(starting.port, config.HTTP_HOST);
  const address = app.getHttpServer().address() as AddressInfo;
  const host = config.HTTP_HOST === '0.0.0.0' ? '127.0.0.1' : config.HTTP_HOST;
  let closed: Promise<void> | undefined;
  return {
    app,
    httpUrl: `http://${host}:${address.port}`,
    runtime: app.get(ConnectorRuntime),
    close: () => (closed ??= app.close()),
  };
}
