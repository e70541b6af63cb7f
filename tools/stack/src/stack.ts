/**
 * The running stack: NATS (embedded nats-server with JetStream, its store under the data folder, unless
 * NATS_URL names one), the venue (the sandbox as a child process, or the real venue by configuration), then
 * each app of `STACK_APPS` in order, each waited for until its /health answers 200. Stopped in reverse order.
 */
import { mkdir, rm } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { STACK_APPS, webhookUrl, type StackApp, type StackWiring } from './apps.js';
import { recordChildren } from './leftovers.js';
import { LogRotator } from './log-rotator.js';
import { ManagedProcess } from './managed-process.js';
import type { StackConfig } from './stack-config.js';
import type { LoadedState } from './stack-state.js';
import { sandboxWiring, type VenueWiring } from './venue.js';

export interface Component {
  name: string;
  /** Where it listens (one banner line). */
  url: string;
  detail: string;
  process?: ManagedProcess;
  /** The app it runs (apps only): how to start it again. */
  app?: { spec: StackApp; wiring: StackWiring; restarts: number; lastStartAt: number; served: boolean };
}

export type ComponentExit = { component: Component; code: number | null; signal: NodeJS.Signals | null };

/**
 * Pause before restarting an app that exits to be restarted: 1 s, doubling while it keeps exiting without having
 * served (its /health never 200 since its start, and under a minute), at most 30 s. An app that came back and served,
 * or that stopped when someone asked (exit 0, SIGTERM), is not in a crash loop: it gets the first pause again.
 */
const RESTART_PAUSE_MS = { first: 1_000, max: 30_000, calmAfterMs: 60_000 };

/**
 * Why an app that exited while the stack runs is started again, or undefined when its exit is a failure of the
 * stack: one of its restart codes (75: lease lost, NATS gone during start-up); or a stop the launcher did not ask
 * for — exit 0 after someone's SIGTERM, or a signal (kill -9): restarts are routine (a rolling restart, a chaos
 * drill), not a reason to take the whole stack down. Any other exit code is a crash.
 */
export function restartReason(exit: ComponentExit, app: StackApp): string | undefined {
  if (exit.code !== null && app.restartExitCodes?.includes(exit.code)) return `exited (code ${exit.code})`;
  if (exit.code === 0) return 'stopped (code 0) without the launcher asking';
  if (exit.signal !== null) return `stopped (${exit.signal}) without the launcher asking`;
  return undefined;
}

/** The stack could not start; `exitCode`: the component's own exit code when it exited during its start. */
export class StartError extends Error {
  constructor(
    message: string,
    readonly exitCode?: number | null,
  ) {
    super(message);
  }
}

export class Stack {
  readonly components: Component[] = [];
  /** Every process started, by component name (the newest of a restarted one). */
  private readonly spawned = new Map<string, ManagedProcess>();
  private stopping: Promise<void> | undefined;
  /** Each component's log, rotated by size while the launcher runs (docs/operations.md "Logs"). */
  private readonly logRotator: LogRotator;

  constructor(
    private readonly config: StackConfig,
    private readonly root: string,
    private readonly state: LoadedState,
    private readonly realVenue: VenueWiring | undefined,
    /** Where the stop of each component is said. */
    private readonly say: (line: string) => void = () => undefined,
    private readonly apps: readonly StackApp[] = STACK_APPS,
  ) {
    this.logRotator = new LogRotator(
      { maxBytes: config.STACK_LOG_MAX_BYTES, files: config.STACK_LOG_FILES },
      () => [...this.spawned.values()].map((child) => child.logFile),
      say,
    );
  }

  get dataDir(): string {
    return resolve(this.root, this.config.STACK_DATA_DIR);
  }

  get logDir(): string {
    return join(this.dataDir, 'logs');
  }

  /** Starts every component in order; on a failure stops what started and throws a StartError. */
  async start(): Promise<StackWiring> {
    await mkdir(this.logDir, { recursive: true });
    this.logRotator.start();
    try {
      const natsUrl = await this.startNats();
      const venue = await this.startVenue();
      const wiring: StackWiring = {
        natsUrl,
        prefix: this.config.NATS_SUBJECT_PREFIX,
        account: this.config.ACCOUNT,
        sessionId: this.state.state.sessionId,
        host: this.config.STACK_HOST,
        logLevel: this.config.LOG_LEVEL,
        venue,
        webhookPort: this.config.ACCOUNT_SYNC_WEBHOOK_PORT,
        dataDir: this.dataDir,
      };
      for (const app of this.apps) await this.startApp(app, wiring);
      return wiring;
    } catch (error) {
      await this.stop();
      throw error;
    }
  }

  /** Reverse order; each gets SIGTERM and the stop timeout. Idempotent. */
  stop(): Promise<void> {
    this.stopping ??= (async () => {
      await this.logRotator.stop(); // the last lines stay where they are written
      for (const component of [...this.components].reverse()) {
        if (component.process === undefined) continue;
        const wasRunning = component.process.running;
        const exit = await component.process.stop(this.config.STACK_STOP_TIMEOUT_MS);
        const how = exit.killed ? 'killed after STACK_STOP_TIMEOUT_MS' : (exit.signal ?? `exit ${exit.code}`);
        if (wasRunning) this.say(`stack: ${component.name} stopped (${how})`);
      }
    })();
    return this.stopping;
  }

  /** Kills every component at once (the launcher itself is being killed). */
  killAll(): void {
    for (const component of this.components) component.process?.kill();
  }

  /** Resolves with the first component that exits while the stack runs. */
  firstExit(): Promise<ComponentExit> {
    return Promise.race(
      this.components
        .filter((c) => c.process !== undefined)
        .map(async (component) => ({ component, ...(await (component.process as ManagedProcess).exited) })),
    );
  }

  /**
   * Watches the running stack: an app that exits with one of its restart codes is started again (said on one
   * line, after a pause that grows while it keeps exiting) and the rest runs on; resolves with the first other
   * exit. Never resolves once the stack is stopping (the stop's own exits are not failures).
   */
  async supervise(): Promise<ComponentExit> {
    for (;;) {
      const exit = await this.firstExit();
      const app = exit.component.app;
      if (this.stopping !== undefined) return new Promise(() => undefined);
      const why = app === undefined ? undefined : restartReason(exit, app.spec);
      if (app === undefined || why === undefined) return exit;
      // restarts in a row: reset once it served (/health 200) or ran calmly for a minute; a stop someone asked for
      // (exit 0 after their SIGTERM, or the SIGTERM itself when it came before the app took signals) is no crash loop
      const asked = exit.code === 0 || exit.signal === 'SIGTERM' || exit.signal === 'SIGINT';
      const calm = asked || app.served || Date.now() - app.lastStartAt > RESTART_PAUSE_MS.calmAfterMs;
      const inARow = calm ? 0 : app.restarts;
      app.restarts = inARow + 1;
      const pauseMs = Math.min(RESTART_PAUSE_MS.max, RESTART_PAUSE_MS.first * 2 ** inARow);
      this.say(`stack: ${exit.component.name} ${why}; starting it again in ${pauseMs / 1000} s`);
      await new Promise((resolvePause) => setTimeout(resolvePause, pauseMs));
      if (this.stopping !== undefined) return new Promise(() => undefined);
      const restarted = this.spawnApp(app.spec, app.wiring);
      exit.component.process = restarted;
      app.lastStartAt = Date.now();
      app.served = false;
      void this.watchServed(restarted, exit.component);
    }
  }

  /** Marks a restarted app as served once its /health answers 200 (polled until then, while it runs). */
  private async watchServed(child: ManagedProcess, component: Component): Promise<void> {
    const health = new HealthProbe(component.url);
    while (child.running && this.stopping === undefined) {
      if ((await health.ok()) === true) {
        if (component.process === child && component.app !== undefined) component.app.served = true;
        return;
      }
      await new Promise((r) => setTimeout(r, 200));
    }
  }

  private async startNats(): Promise<string> {
    if (this.config.NATS_URL !== undefined) {
      this.components.push({ name: 'nats', url: this.config.NATS_URL, detail: 'given by NATS_URL (not managed)' });
      return this.config.NATS_URL;
    }
    const store = join(this.dataDir, 'nats');
    await mkdir(store, { recursive: true });
    const host = this.config.STACK_HOST;
    const port = this.config.STACK_NATS_PORT;
    const binary = process.env['NATS_SERVER_BIN'] ?? 'nats-server';
    const nats = this.spawn(
      'nats-server',
      binary,
      ['-a', host, '-p', String(port), '-js', '-sd', store, '-n', `gw-stack-${this.config.ACCOUNT}`],
      {},
      'SIGINT',
    );
    const url = `nats://${host}:${port}`;
    this.components.push({ name: 'nats-server', url, detail: `JetStream, store ${store}`, process: nats });
    await this.waitFor(nats, () => tcpAnswers(host, port), 'listening');
    return url;
  }

  private async startVenue(): Promise<VenueWiring> {
    if (this.realVenue !== undefined) {
      this.components.push({ name: 'venue', url: this.realVenue.restUrl, detail: 'the real venue (STACK_VENUE=real)' });
      return this.realVenue;
    }
    const credentialsFile = join(this.dataDir, 'sandbox', 'credentials.json');
    await rm(credentialsFile, { force: true });
    const sandbox = this.spawnNode('sandbox-venue', 'dist/apps/sandbox-venue/src/main.js', {
      SANDBOX_PORT: String(this.config.SANDBOX_PORT),
      SANDBOX_HOST: this.config.STACK_HOST,
      SANDBOX_CREDENTIALS_FILE: credentialsFile,
      // The sandbox's webhooks go to the account-sync app's receiver (its ips.json lists 127.0.0.1 by default).
      SANDBOX_WEBHOOK_URL: webhookUrl({
        host: this.config.STACK_HOST,
        webhookPort: this.config.ACCOUNT_SYNC_WEBHOOK_PORT,
      }),
      VENUE_SIGNATURE_ENCODING: this.config.VENUE_SIGNATURE_ENCODING,
    });
    const component: Component = { name: 'sandbox-venue', url: '', detail: '', process: sandbox };
    this.components.push(component);
    const wiring = await this.waitFor(sandbox, () => sandboxWiring(credentialsFile), 'its credentials file');
    component.url = wiring.restUrl;
    component.detail = `sandbox venue, admin ${wiring.adminUrl ?? '-'}, in-memory (fresh each start)`;
    return wiring;
  }

  private async startApp(app: StackApp, wiring: StackWiring): Promise<void> {
    const port = this.config[app.portVariable];
    const child = this.spawnApp(app, wiring);
    const url = `http://${wiring.host === '0.0.0.0' ? '127.0.0.1' : wiring.host}:${port}`;
    const record = { spec: app, wiring, restarts: 0, lastStartAt: Date.now(), served: false };
    this.components.push({
      name: app.name,
      url: `${url}/health`,
      detail: app.describe(wiring),
      process: child,
      app: record,
    });
    const health = new HealthProbe(`${url}/health`);
    await this.waitFor(
      child,
      () => health.ok(),
      '/health 200',
      () => health.lastDown,
    );
    record.served = true;
  }

  private spawnApp(app: StackApp, wiring: StackWiring): ManagedProcess {
    return this.spawnNode(app.name, app.main, app.env(wiring, this.config[app.portVariable]), app.nodeFlags);
  }

  private spawnNode(
    name: string,
    main: string,
    env: Record<string, string>,
    nodeFlags: readonly string[] = [],
  ): ManagedProcess {
    return this.spawn(name, process.execPath, [...nodeFlags, resolve(this.root, main)], env);
  }

  private spawn(
    name: string,
    command: string,
    args: string[],
    env: Record<string, string> = {},
    stopSignal: NodeJS.Signals = 'SIGTERM',
  ): ManagedProcess {
    if (this.stopping !== undefined) throw new StartError('stopping: nothing more is started');
    const log = join(this.logDir, `${name}.log`);
    const started = new ManagedProcess(name, command, args, { ...process.env, ...env }, log, stopSignal);
    this.spawned.set(name, started);
    const records = [...this.spawned.values()].flatMap((p) => (p.running && p.record ? [p.record] : []));
    void recordChildren(this.dataDir, records).catch(() => undefined); // best effort: only for a later start
    return started;
  }

  /** Polls `probe` until it yields a value; fails when the process exits first or the ready timeout passes. */
  private async waitFor<T>(
    child: ManagedProcess,
    probe: () => Promise<T | undefined>,
    what: string,
    lastAnswer: () => string | undefined = () => undefined,
  ): Promise<T> {
    const deadline = Date.now() + this.config.STACK_READY_TIMEOUT_MS;
    for (;;) {
      if (!child.running) {
        const exit = await child.exited;
        throw new StartError(
          `${child.name} exited (${exit.signal ?? `code ${exit.code}`}) before ${what}; its log ${child.logFile} ends:\n${indent(child.tail())}`,
          exit.code,
        );
      }
      const value = await probe();
      if (value !== undefined) return value;
      if (Date.now() > deadline) {
        const answer = lastAnswer();
        throw new StartError(
          `${child.name} not ready (no ${what}) within STACK_READY_TIMEOUT_MS${answer !== undefined ? `; it says: ${answer}` : ''}; its log ${child.logFile} ends:\n${indent(child.tail())}`,
        );
      }
      await new Promise((r) => setTimeout(r, 200));
    }
  }
}

/** An app's /health, polled: ok once 200; otherwise the checks that were down at the last answer (for the error). */
class HealthProbe {
  lastDown: string | undefined;

  constructor(private readonly url: string) {}

  async ok(): Promise<true | undefined> {
    try {
      const response = await fetch(this.url, { signal: AbortSignal.timeout(2_000) });
      const text = await response.text();
      if (response.status === 200) return true;
      this.lastDown = downChecks(text);
    } catch {
      // not listening yet
    }
    return undefined;
  }
}

/** `name: detail` of each check down in a /health body, bounded (the body is the app's own). */
export function downChecks(body: string): string | undefined {
  try {
    const checks = (JSON.parse(body) as { checks?: Record<string, { up?: boolean; detail?: string }> }).checks ?? {};
    const down = Object.entries(checks)
      .filter(([, check]) => check.up === false)
      .map(([name, check]) => `${name}: ${String(check.detail ?? 'down').slice(0, 300)}`);
    return down.length > 0 ? down.join('; ').slice(0, 1_000) : undefined;
  } catch {
    return undefined;
  }
}

async function tcpAnswers(host: string, port: number): Promise<true | undefined> {
  const { connect } = await import('node:net');
  return new Promise((resolvePromise) => {
    const socket = connect({ host, port });
    socket.once('connect', () => {
      socket.destroy();
      resolvePromise(true);
    });
    socket.once('error', () => resolvePromise(undefined));
  });
}

function indent(text: string): string {
  return text
    .split('\n')
    .map((line) => `    ${line}`)
    .join('\n');
}
