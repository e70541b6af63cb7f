/**
 * One way to build an app (docs/app-kit.md): the same start-up and shutdown for every process of the
 * gateway. `runApp` is an app's whole `main.ts`; `startNestApp` is how its `bootstrap.ts` opens HTTP.
 *
 * Order at start: configuration validated (a bad setting: one plain line per problem, exit 78, nothing
 * created) → the HTTP port answers `/health` 503 at once while dependencies (NATS) are connected → the app
 * module starts → SIGTERM/SIGINT run the app's ordered `close` once, then exit 0 (1 if it fails or hangs).
 */
import type { AddressInfo } from 'node:net';
import type { DynamicModule, INestApplication } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { ConfigError, exitOnConfigError, loadConfig } from './config.js';
import { EXIT_CODE } from './exit-codes.js';
import { JsonLogger } from './json-logger.js';
import { shutdownRequested } from './shutdown-request.js';
import { stopOnSignals } from './signals.js';
import { serveStartingHealth } from './starting-health.js';

/** What a started app hands back: where it listens and its ordered stop (idempotent). */
export interface RunningApp {
  readonly httpUrl: string;
  close(): Promise<void>;
}

export interface AppDefinition<C extends object, R extends RunningApp> {
  /** The app's name in logs and metrics (`connector`, `execution`, …). */
  readonly name: string;
  /** The app's configuration class (env-rules.ts decorators, optional `crossChecks()`). */
  readonly config: new () => C;
  /** Where the settings are documented, for the error lines (e.g. `docs/connector.md#configuration`). */
  readonly docs: string;
  start(config: C, logger: JsonLogger): Promise<R>;
  /** Fields of the "started" log line (never a secret: the logger redacts secret names anyway). */
  describe?(config: C, running: R): Record<string, unknown>;
  /**
   * Whether a start-up failure is a dependency that went away meanwhile (NATS dropped): the app then exits 75
   * (EX_TEMPFAIL, start me again) rather than 1.
   */
  transient?(error: unknown): boolean;
}

/** An app's `main`: validate, start, stop on signals. Never returns a rejected promise. */
export async function runApp<C extends object, R extends RunningApp>(app: AppDefinition<C, R>): Promise<void> {
  const log = new JsonLogger(app.name, 'main');
  try {
    const config = loadConfig(app.config, process.env);
    // Signals are taken from the first moment: one during start-up stops the app as soon as it is up.
    const life: { starting?: Promise<R> } = {};
    stopOnSignals(async () => (await life.starting?.catch(() => undefined))?.close(), log);
    life.starting = app.start(config, new JsonLogger(app.name, 'nest'));
    const running = await life.starting;
    log.info(`${app.name} started`, { http: running.httpUrl, ...app.describe?.(config, running) });
  } catch (error) {
    if (error instanceof ConfigError) exitOnConfigError(error, app.name, app.docs);
    if (shutdownRequested.aborted) {
      // Stopped before it started (e.g. while waiting for NATS): the signal's shutdown exits, 0.
      log.info(`${app.name} stopped during start-up`, {
        reason: error instanceof Error ? error.message : String(error),
      });
      return;
    }
    if (app.transient?.(error) === true) {
      log.error(`${app.name} failed to start: a dependency became unavailable; exit 75 (start it again)`, {
        error: error instanceof Error ? error.message : String(error),
      });
      process.exit(EXIT_CODE.unavailable);
    }
    log.error(`${app.name} failed to start`, { error: error instanceof Error ? error.stack : String(error) });
    process.exit(1);
  }
}

export interface NestAppOptions {
  /** The app's name: the `app` label of its metrics. */
  app: string;
  port: number;
  host: string;
  logger: JsonLogger;
  /** What the app waits for while its modules start (said by /health meanwhile). */
  waitingFor: string;
}

/**
 * Creates the app's Nest application with its port already answering `/health` 503 (`waitingFor`) while the
 * modules connect and start — an app waiting for NATS is visible, not silent — then listens on that same
 * port. A caller waiting for the app to serve should wait for the "started" line `runApp` logs after this.
 */
export async function startNestApp(
  module: DynamicModule,
  options: NestAppOptions,
): Promise<{ app: INestApplication; httpUrl: string }> {
  const starting = await serveStartingHealth(options.port, options.host, () => options.waitingFor, options.app);
  let app: INestApplication;
  try {
    app = await NestFactory.create(module, { logger: options.logger, abortOnError: false });
    await app.init(); // the app's start hooks run while the port still answers 503
  } finally {
    await starting.close();
  }
  await app.listen(starting.port, options.host); // the port is free only between these two lines
  const address = app.getHttpServer().address() as AddressInfo;
  const host = options.host === '0.0.0.0' ? '127.0.0.1' : options.host;
  return { app, httpUrl: `http://${host}:${address.port}` };
}
