/**
 * What the stack keeps in its data folder between starts: `stack.json` holds the venue session id (outcomes
 * are redelivered on it after a restart, so it must not change) and when the folder was first used;
 * `stack.lock` names the launcher running on the folder, so two stacks never share one store.
 */
import { randomUUID } from 'node:crypto';
import { mkdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { processExists } from '#venue-api';
import { forgetChildren } from './leftovers.js';

export interface StackState {
  v: 1;
  sessionId: string;
  createdAt: string;
}

export interface LoadedState {
  state: StackState;
  /** False on the first start with this data folder. */
  found: boolean;
}

export async function loadStackState(dataDir: string, sessionOverride?: string): Promise<LoadedState> {
  await mkdir(dataDir, { recursive: true });
  const path = join(dataDir, 'stack.json');
  const earlier = await readState(path);
  if (earlier !== undefined && (sessionOverride === undefined || sessionOverride === earlier.sessionId)) {
    return { state: earlier, found: true };
  }
  const state: StackState = {
    v: 1,
    sessionId: sessionOverride ?? `gw-${randomUUID().slice(0, 13)}`,
    createdAt: earlier?.createdAt ?? new Date().toISOString(),
  };
  await writeFile(`${path}.tmp`, JSON.stringify(state, null, 2) + '\n');
  await rename(`${path}.tmp`, path);
  return { state, found: earlier !== undefined };
}

async function readState(path: string): Promise<StackState | undefined> {
  try {
    const value = JSON.parse(await readFile(path, 'utf8')) as Partial<StackState>;
    if (value.v === 1 && typeof value.sessionId === 'string' && typeof value.createdAt === 'string') {
      return value as StackState;
    }
  } catch {
    // first start (or an unreadable file: start afresh, the NATS store is still found)
  }
  return undefined;
}

/** Takes the data folder for this launcher; refuses when another running launcher holds it. */
/** The pid of another launcher running on `dataDir` now, if one is (reads only; creates nothing). */
export async function launcherOf(dataDir: string): Promise<number | undefined> {
  try {
    const pid = Number((await readFile(join(dataDir, 'stack.lock'), 'utf8')).trim());
    if (Number.isSafeInteger(pid) && pid > 0 && pid !== process.pid && processExists(pid)) return pid;
  } catch {
    // no lock
  }
  return undefined;
}

export async function lockDataDir(dataDir: string): Promise<{ release(): Promise<void> } | { heldBy: number }> {
  const path = join(dataDir, 'stack.lock');
  const heldBy = await launcherOf(dataDir);
  if (heldBy !== undefined) return { heldBy };
  await writeFile(path, `${process.pid}\n`);
  return {
    release: async () => {
      await forgetChildren(dataDir); // stopped: nothing left for the next start to stop
      await rm(path, { force: true });
    },
  };
}
