/**
 * Processes a launcher left behind. The launcher stops its components in reverse order on Ctrl-C, SIGTERM or
 * SIGHUP; killed itself (SIGKILL, an OOM kill), it cannot, and its components — each in its own process group —
 * run on, holding the ports and the data folder (outside tester: the next `npm start` failed on six "port in
 * use" without naming the processes). So every component's pid is written to `stack.children.json` as it starts,
 * and a start that finds the file stops what still runs of it first, saying so. A pid is only signalled while its
 * command line is still the one recorded (a pid the system gave to something else since is left alone).
 */
import { readFileSync } from 'node:fs';
import { readFile, rename, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

export interface ChildRecord {
  name: string;
  pid: number;
  /** The command line the process was started with, joined with spaces. */
  command: string;
}

const FILE = 'stack.children.json';
/** How long the leftovers get to stop on SIGTERM (an app's own drain is bounded below it), then to go after SIGKILL. */
const STOP_WAIT_MS = 15_000;
const KILL_WAIT_MS = 5_000;

let writes = 0;

/**
 * Written aside (a name of its own per write), then renamed over the record: a reader — the next start after a
 * SIGKILL — sees the old record or the new one, never a half-written one.
 */
export async function recordChildren(dataDir: string, children: readonly ChildRecord[]): Promise<void> {
  const aside = join(dataDir, `${FILE}.${process.pid}-${(writes += 1)}.tmp`);
  await writeFile(aside, `${JSON.stringify(children)}\n`);
  await rename(aside, join(dataDir, FILE));
}

export async function forgetChildren(dataDir: string): Promise<void> {
  await rm(join(dataDir, FILE), { force: true });
}

/** Stops what an earlier launcher of this data folder left running; resolves with what it stopped. */
export async function stopLeftovers(dataDir: string, say: (line: string) => void): Promise<ChildRecord[]> {
  let recorded: ChildRecord[];
  try {
    recorded = JSON.parse(await readFile(join(dataDir, FILE), 'utf8')) as ChildRecord[];
  } catch {
    return [];
  }
  const alive = (Array.isArray(recorded) ? recorded : []).filter(
    (child) => Number.isSafeInteger(child.pid) && child.pid > 1 && commandOf(child.pid) === child.command,
  );
  if (alive.length > 0) {
    const names = alive.map((child) => `${child.name} (pid ${child.pid})`).join(', ');
    say(`stack: an earlier stack on this data folder did not stop its components; stopping them first: ${names}`);
    for (const child of alive) signalGroup(child.pid, 'SIGTERM');
    await gone(alive, STOP_WAIT_MS);
    for (const child of alive) if (commandOf(child.pid) === child.command) signalGroup(child.pid, 'SIGKILL');
    await gone(alive, KILL_WAIT_MS);
  }
  await forgetChildren(dataDir);
  return alive;
}

/** Resolves once none of `children` runs any more, or after `ms`. */
async function gone(children: readonly ChildRecord[], ms: number): Promise<void> {
  const until = Date.now() + ms;
  while (Date.now() < until && children.some((child) => commandOf(child.pid) === child.command)) {
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** The command line of a running process (Linux `/proc`), or undefined when there is none. */
export function commandOf(pid: number): string | undefined {
  try {
    // synchronous on purpose: a tiny file of the kernel's, read a few times at start (empty for a zombie)
    const text = readFileSync(`/proc/${pid}/cmdline`, 'utf8');
    return text.length === 0 ? undefined : text.replace(/\0+$/, '').split('\0').join(' ');
  } catch {
    return undefined;
  }
}

function signalGroup(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-pid, signal); // the component and whatever it started
  } catch {
    try {
      process.kill(pid, signal);
    } catch {
      // gone
    }
  }
}
