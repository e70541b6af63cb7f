/**
 * One way to build an app (docs/app-kit.md): the same start-up and shutdown for every process of the
 * gateway. `runApp` is an app's whole `main.ts`; `startNestApp` is how its `bootstrap.ts` opens HTTP.
 *
 * Order at start: configuration validated (a bad setting: one plain line per problem, exit 78, nothing
 * created) → the HTTP port answers `/health` 503 at once while dependencies (NATS) are connected → the app
 * module starts (an attempt NATS cut off is stopped and started again in this process) → SIGTERM/SIGINT run
 * the app's ordered `close` once, then exit 0 (1 if it fails or hangs).
 */
import type { AddressInfo } from 'node:net';
import type { DynamicModule, INestApplication } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { ConfigError, exitOnConfigError, loadConfig } from './config.js';
import { EXIT_CODE } from './exit-codes.js';
import { JsonLogger } from './json-logger.js';
import { refuseUnusableListens, type ListenSetting } from './listen-check.js';
import { shutdownRequested, StartAbortedError } from './shutdown-request.js';
import { stopOnSignals } from './signals.js';
import { decideStartFailure, StartCleanupError } from './start-retry.js';
import { serveStartingHealth } from './starting-health.js';
import { StartupProgress } from './startup-progress.js';

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
   * Whether a start-up failure that reaches `runApp` is a dependency that went away meanwhile and needs a fresh
   * process: the app then exits 75 (EX_TEMPFAIL, start me again) rather than 1. A start-up cut off by NATS is
   * normally tried again in-process (`startNestApp`'s `retryable`); what reaches here is what could not be
   * (`StartCleanupError`, account-sync cut off after taking its lease).
   */
  transient?(error: unknown): boolean;
  /**
   * Addresses the app listens on besides HTTP_PORT/HTTP_HOST (tried for every app with them): each is tried before
   * anything starts, and one that cannot be listened on is a bad setting (exit 78, named) — not a failure after
   * the app took its lease and started its parts.
   */
  listens?(config: C): ListenSetting[];
}

/** An app's `main`: validate, start, stop on signals. Never returns a rejected promise. */
export async function runApp<C extends object, R extends RunningApp>(app: AppDefinition<C, R>): Promise<void> {
  const log = new JsonLogger(app.name, 'main');
  try {
    const config = loadConfig(app.config, process.env);
    await refuseUnusableListens([...httpListen(config), ...(app.listens?.(config) ?? [])], app.name, app.docs);
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

/** HTTP_PORT on HTTP_HOST (ServiceEnv), when the config has them. */
function httpListen(config: object): ListenSetting[] {
  const { HTTP_PORT: port, HTTP_HOST: host } = config as { HTTP_PORT?: unknown; HTTP_HOST?: unknown };
  if (typeof port !== 'number' || typeof host !== 'string') return [];
  return [{ port, host, portVariable: 'HTTP_PORT', hostVariable: 'HTTP_HOST' }];
}

export interface NestAppOptions {
  /** The app's name: the `app` label of its metrics. */
  app: string;
  port: number;
  host: string;
  logger: JsonLogger;
  /**
   * Whether a failed start-up attempt may be tried again in this process (the app's rule, e.g.
   * `isBusUnavailable`: NATS dropped or went silent in the middle of a step). Unset: never, the failure is
   * thrown at once.
   */
  retryable?: (error: unknown) => boolean;
  /** How long what a failed attempt started may take to stop before the process must end instead (30 s). */
  abandonWaitMs?: number;
}

/** The app's module, made afresh for every start-up attempt (its providers, metrics and connection are new). */
export type AppModuleFactory = (startup: StartupProgress) => DynamicModule;

/**
 * Creates the app's Nest application with its port already answering `/health` 503 (the step the start-up is
 * in: `waiting for NATS`, then what the app names) while the modules connect and start — an app waiting for NATS
 * is visible, not silent — then listens on that same port. A caller waiting for the app to serve should wait for
 * the "started" line `runApp` logs after this.
 *
 * An attempt cut off by a failure `retryable` accepts (NATS went away during start-up) stops everything it
 * started (the app's own ordered close; the bus connection closed), pauses (1 s, doubling up to 30 s), and starts
 * again from the beginning in this process, waiting for NATS as the first attempt did — the port answering 503
 * all along. A SIGTERM meanwhile ends the start (the caller exits 0). What cannot be stopped in time ends the
 * process instead (`StartCleanupError`: exit 75).
 */
export async function startNestApp(
  module: AppModuleFactory,
  options: NestAppOptions,
): Promise<{ app: INestApplication; httpUrl: string }> {
  let startup = new StartupProgress();
  const starting = await serveStartingHealth(options.port, options.host, () => startup.step, options.app);
  const log = options.logger;
  let app: INestApplication | undefined;
  try {
    for (let attempt = 1; ; attempt += 1) {
      startup = new StartupProgress();
      app = undefined;
      try {
        app = await NestFactory.create(module(startup), { logger: log, abortOnError: false });
        await app.init(); // the app's start hooks run while the port still answers 503
        break;
      } catch (error) {
        const action = decideStartFailure({
          error,
          attempt,
          stopRequested: shutdownRequested.aborted,
          retryable: options.retryable ?? (() => false),
        });
        const waitMs = options.abandonWaitMs ?? ABANDON_WAIT_MS;
        if (action.kind === 'retry') {
          log.warn('start-up cut off: NATS became unavailable; stopping what started, then starting again', {
            attempt,
            step: startup.step,
            error: error instanceof Error ? error.message : String(error),
            retryInMs: action.afterMs,
          });
          startup.enter(`start-up cut off by NATS (${startup.step}); starting again`);
        }
        if (!(await abandon(app, startup, waitMs))) {
          if (action.kind === 'retry') throw new StartCleanupError(waitMs, error);
          log.warn('what the start-up had started did not stop in time', { waitMs });
        }
        if (action.kind !== 'retry') throw error;
        if (!shutdownRequested.aborted) await pause(action.afterMs);
        if (shutdownRequested.aborted) throw new StartAbortedError('NATS to come back');
      }
    }
  } finally {
    await starting.close();
  }
  await app.listen(starting.port, options.host); // the port is free only between these two lines
  const address = app.getHttpServer().address() as AddressInfo;
  const host = options.host === '0.0.0.0' ? '127.0.0.1' : options.host;
  return { app, httpUrl: `http://${host}:${address.port}` };
}

const ABANDON_WAIT_MS = 30_000;

/**
 * Stops what a failed attempt started: the app's ordered close when the app exists (its stop hooks stop what
 * started, the bus closes last), else what registered on `startup` (the bus connection). False when it did
 * not finish within `waitMs`.
 */
async function abandon(app: INestApplication | undefined, startup: StartupProgress, waitMs: number): Promise<boolean> {
  const closing = (app === undefined ? Promise.resolve() : app.close()).then(
    () => startup.abandon(),
    () => startup.abandon(),
  );
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<false>((resolve) => {
    timer = setTimeout(() => resolve(false), waitMs);
    timer.unref();
  });
  try {
    return await Promise.race([closing.then(() => true as const), late]);
  } finally {
    clearTimeout(timer);
  }
}

/** Waits `ms`, or less when a stop is requested meanwhile. */
function pause(ms: number): Promise<void> {
  return new Promise((resolve) => {
    const done = (): void => {
      clearTimeout(timer);
      shutdownRequested.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    shutdownRequested.addEventListener('abort', done, { once: true });
  });
}
