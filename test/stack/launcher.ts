/**
 * The launcher (`npm start` = build, then `node dist/tools/stack/src/main.js`) as the end-to-end suites run
 * it: a real child process on free ports with its own data folder, its banner parsed.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from '#testing';
import { AppProcess } from '../kit/app-process.js';

export const STACK_UP = 'gateway stack is up';

export interface RunningLauncher {
  process: AppProcess;
  dataDir: string;
  natsUrl: string;
  ports: { nats: number; sandbox: number; connector: number; execution: number; accountSync: number };
  env: Record<string, string>;
  /** The banner's "try next" commands. */
  tryNext(): string[];
  /** SIGINT (Ctrl-C) and the exit. */
  interrupt(): Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

export async function launcherEnv(
  dataDir: string,
  extra: Record<string, string> = {},
): Promise<Record<string, string>> {
  return {
    HOME: process.env['HOME'] ?? '/tmp',
    STACK_DATA_DIR: dataDir,
    STACK_NATS_PORT: String(await freePort()),
    SANDBOX_PORT: String(await freePort()),
    CONNECTOR_HTTP_PORT: String(await freePort()),
    EXECUTION_HTTP_PORT: String(await freePort()),
    ACCOUNT_SYNC_HTTP_PORT: String(await freePort()),
    ACCOUNT_SYNC_WEBHOOK_PORT: String(await freePort()),
    LOG_LEVEL: 'info',
    ...extra,
  };
}

/** Starts the launcher and waits for its banner. `dataDir` reuses a folder (a second start). */
export async function startLauncher(
  options: { dataDir?: string; env?: Record<string, string> } = {},
): Promise<RunningLauncher> {
  const dataDir = options.dataDir ?? (await mkdtemp(join(tmpdir(), 'gw-stack-')));
  const env = options.env ?? (await launcherEnv(dataDir));
  const child = AppProcess.command(process.execPath, [join(process.cwd(), 'dist/tools/stack/src/main.js')], env);
  await child.waitForLine('Ctrl-C stops everything', 60_000).catch(async (error: unknown) => {
    await child.stop();
    throw new Error(`launcher did not come up: ${String(error)}\n${child.lines.join('\n')}`);
  });
  const ports = {
    nats: Number(env['STACK_NATS_PORT']),
    sandbox: Number(env['SANDBOX_PORT']),
    connector: Number(env['CONNECTOR_HTTP_PORT']),
    execution: Number(env['EXECUTION_HTTP_PORT']),
    accountSync: Number(env['ACCOUNT_SYNC_HTTP_PORT']),
  };
  return {
    process: child,
    dataDir,
    natsUrl: `nats://127.0.0.1:${ports.nats}`,
    ports,
    env,
    tryNext() {
      const start = child.lines.indexOf('try next:');
      return child.lines.slice(start + 1, start + 4).map((line) => line.trim());
    },
    async interrupt() {
      child.signal('SIGINT');
      const exit = await child.exited;
      await child.stop();
      return exit;
    },
  };
}

export async function removeDataDir(dataDir: string): Promise<void> {
  await rm(dataDir, { recursive: true, force: true });
}
