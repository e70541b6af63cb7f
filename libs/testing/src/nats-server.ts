import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from './free-port.js';
import { untilNatsReady } from './nats-ready.js';

export interface NatsServerHandle {
  /** `nats://127.0.0.1:<port>` */
  readonly url: string;
  readonly port: number;
  readonly storeDir: string;
  /** Stops the server (SIGTERM, then SIGKILL) and, unless `keepStore`, removes its store directory. */
  stop(options?: { keepStore?: boolean }): Promise<void>;
  /** Kills the process abruptly, keeping the store: for crash/restart tests. */
  kill(): Promise<void>;
  /** SIGSTOP / SIGCONT: a hung server (connections stay open, nothing is answered). */
  pause(): void;
  resume(): void;
}

export interface StartNatsOptions {
  /** Reuse a store directory (e.g. to restart a server and keep JetStream state). */
  storeDir?: string;
  /** Reuse a port (e.g. restarting a server the clients reconnect to). */
  port?: number;
  binary?: string;
}

const READY_TIMEOUT_MS = 10_000;

/**
 * Starts a real `nats-server` with JetStream on a free loopback port and a temporary store directory.
 * Each test suite starts its own; nothing depends on a server someone started by hand.
 */
export async function startNatsServer(options: StartNatsOptions = {}): Promise<NatsServerHandle> {
  const storeDir = options.storeDir ?? (await mkdtemp(join(tmpdir(), 'gw-nats-')));
  const binary = options.binary ?? process.env['NATS_SERVER_BIN'] ?? 'nats-server';
  const { child, port } = await launch(binary, storeDir, options.port);

  let exited = false;
  const exitedPromise = new Promise<void>((resolve) =>
    child.once('exit', () => {
      exited = true;
      resolve();
    }),
  );

  const terminate = async (signal: NodeJS.Signals): Promise<void> => {
    if (exited) return;
    child.kill(signal);
    const timer = setTimeout(() => child.kill('SIGKILL'), 5_000);
    await exitedPromise;
    clearTimeout(timer);
  };

  return {
    url: `nats://127.0.0.1:${port}`,
    port,
    storeDir,
    async stop(stopOptions = {}) {
      await terminate('SIGTERM');
      if (!stopOptions.keepStore && options.storeDir === undefined) {
        await rm(storeDir, { recursive: true, force: true });
      }
    },
    async kill() {
      await terminate('SIGKILL');
    },
    pause() {
      child.kill('SIGSTOP');
    },
    resume() {
      child.kill('SIGCONT');
    },
  };
}

/** Free-port attempts: a port found free can be taken by another process before the server binds it. */
const PORT_ATTEMPTS = 5;

/** Spawns the server and waits until it is ready; on a port of its own choosing, another one if that is taken. */
async function launch(
  binary: string,
  storeDir: string,
  fixedPort?: number,
): Promise<{ child: ChildProcess; port: number }> {
  for (let attempt = 1; ; attempt++) {
    const port = fixedPort ?? (await freePort());
    const child = spawn(binary, ['-a', '127.0.0.1', '-p', String(port), '-js', '-sd', storeDir], {
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    try {
      await untilNatsReady(child, `nats-server on port ${port}`, READY_TIMEOUT_MS);
      return { child, port };
    } catch (error) {
      const taken = error instanceof Error && error.message.includes('address already in use');
      if (!taken || fixedPort !== undefined || attempt >= PORT_ATTEMPTS) throw error;
    }
  }
}

/**
 * Kills `server` and starts a new one on its port (clients reconnect to it): on the same store (file streams
 * survive, memory ones not; the store is then the caller's to remove) or, with `emptyStore`, on a new, empty
 * store of its own (every stream, bucket and consumer lost; the old store is removed). `whileDown` runs while
 * no server answers.
 */
export async function restartNatsServer(
  server: NatsServerHandle,
  options: { emptyStore?: boolean; whileDown?: () => Promise<void> } = {},
): Promise<NatsServerHandle> {
  const { port, storeDir } = server;
  await server.kill();
  await options.whileDown?.();
  if (!options.emptyStore) return startNatsServer({ port, storeDir });
  await rm(storeDir, { recursive: true, force: true });
  return startNatsServer({ port });
}
