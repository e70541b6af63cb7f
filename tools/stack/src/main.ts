/**
 * `npm start`: the whole gateway on this machine in one command (README "Quick start"). Configuration is
 * validated before anything starts (stack-config.ts, exit 78); then NATS, the venue and every app of apps.ts
 * start in order; one line per component says where it listens; Ctrl-C or SIGTERM stops them in reverse
 * order and exits 0. A second start on the same data folder finds the earlier state (NATS store, session id).
 */
import 'reflect-metadata';
import { resolve } from 'node:path';
import { ConfigError, EXIT_CODE, exitOnConfigError, loadConfig } from '#observability';
import { STACK_APPS } from './apps.js';
import { banner } from './banner.js';
import { checkPort, portIsFree } from './ports.js';
import { Stack, StartError } from './stack.js';
import { StackConfig } from './stack-config.js';
import { launcherOf, loadStackState, lockDataDir } from './stack-state.js';
import { stopLeftovers } from './leftovers.js';
import { realVenueWiring, type VenueWiring } from './venue.js';

const DOCS = 'README.md#configuration';
const say = (line: string): void => void process.stdout.write(`${line}\n`);
const complain = (line: string): boolean => process.stderr.write(`stack: ${line}\n`);

async function main(): Promise<number> {
  const root = process.cwd();
  let config: StackConfig;
  let realVenue: VenueWiring | undefined;
  try {
    config = loadConfig(StackConfig, process.env);
    // before the ports are checked: what a launcher killed without stopping left running holds them (nothing is
    // created: a bad setting still leaves no data folder)
    const earlier = resolve(root, config.STACK_DATA_DIR);
    if ((await launcherOf(earlier)) === undefined) await stopLeftovers(earlier, say);
    realVenue = await preflight(config);
  } catch (error) {
    if (error instanceof ConfigError) exitOnConfigError(error, 'stack', DOCS);
    throw error;
  }

  const dataDir = resolve(root, config.STACK_DATA_DIR);
  const state = await loadStackState(dataDir, config.VENUE_SESSION_ID);
  const lock = await lockDataDir(dataDir);
  if ('heldBy' in lock) {
    complain(`another stack (pid ${lock.heldBy}) runs on ${dataDir}; stop it first, or set STACK_DATA_DIR`);
    return 1;
  }
  const stack = new Stack(config, root, state, realVenue, say);
  let signalled: NodeJS.Signals | undefined;
  let wake: () => void = () => undefined;
  const stopped = new Promise<void>((r) => (wake = r));
  const onSignal = (signal: NodeJS.Signals): void => {
    if (signalled !== undefined) return;
    signalled = signal;
    say(`stack: ${signal} — stopping in reverse order`);
    wake();
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  // the terminal closed (an SSH session dropped): stop as for Ctrl-C; its output may be gone, so never fail on it
  process.on('SIGHUP', onSignal);
  for (const stream of [process.stdout, process.stderr]) stream.on('error', () => undefined);
  process.on('exit', () => stack.killAll()); // nothing outlives the launcher

  const starting = stack.start();
  void stopped.then(() => stack.stop()); // a signal at any moment, even mid-start, stops what runs
  let wiring;
  try {
    wiring = await starting;
  } catch (error) {
    await stack.stop();
    await lock.release();
    if (signalled !== undefined) return 0;
    complain(error instanceof StartError ? error.message : `start failed: ${String(error)}`);
    // an app that refused its configuration (exit 78, naming the variable) makes the launcher's exit 78 too
    return error instanceof StartError && error.exitCode === EXIT_CODE.config ? EXIT_CODE.config : 1;
  }
  if (signalled !== undefined) {
    await stack.stop();
    await lock.release();
    return 0;
  }
  const lines = banner({
    components: stack.components,
    wiring,
    dataDir,
    logDir: stack.logDir,
    foundEarlierState: state.found,
  });
  for (const line of lines) say(line);

  const exit = await Promise.race([stopped.then(() => undefined), stack.supervise()]);
  if (exit !== undefined && signalled === undefined) {
    complain(
      `${exit.component.name} exited (${exit.signal ?? `code ${exit.code}`}); stopping the rest. Its log: ${exit.component.process?.logFile}`,
    );
  }
  await stack.stop();
  await lock.release();
  say('stack: stopped');
  return exit !== undefined && signalled === undefined ? 1 : 0;
}

/** Rules that need the machine: ports free, files readable, secrets usable, NATS_URL reachable. */
async function preflight(config: StackConfig): Promise<VenueWiring | undefined> {
  const problems: string[] = [];
  let realVenue: VenueWiring | undefined;
  if (config.STACK_VENUE === 'real') {
    const real = await realVenueWiring(config);
    problems.push(...real.problems);
    realVenue = real.wiring;
  }
  const ports: [string, number][] = STACK_APPS.map((app) => [app.portVariable, config[app.portVariable]]);
  ports.push(['ACCOUNT_SYNC_WEBHOOK_PORT', config.ACCOUNT_SYNC_WEBHOOK_PORT]);
  if (config.STACK_VENUE === 'sandbox') ports.push(['SANDBOX_PORT', config.SANDBOX_PORT]);
  if (config.NATS_URL === undefined) ports.push(['STACK_NATS_PORT', config.STACK_NATS_PORT]);
  // the host first: one that cannot be listened on fails every port alike, and is the setting to fix
  if ((await checkPort(0, config.STACK_HOST)) === 'bad-host') {
    problems.push('STACK_HOST: not an address of this machine to listen on (an interface address, e.g. 127.0.0.1)');
  } else {
    for (const [name, port] of ports) {
      if (!(await portIsFree(port, config.STACK_HOST))) {
        problems.push(`${name}: port ${port} is in use on ${config.STACK_HOST} (another stack, or set ${name})`);
      }
    }
  }
  if (problems.length > 0) throw new ConfigError(problems);
  return realVenue;
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    complain(`failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
    process.exit(1);
  },
);
