/**
 * A lock held by one process of this machine at a time (a directory made atomically under the OS temporary
 * folder, naming its holder's pid): for test suites too heavy to run beside each other — two three-node
 * JetStream clusters electing leaders on two cores starve each other. A holder that died without releasing
 * is noticed by its pid and its lock taken over.
 */
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { processExists } from '#venue-api';

export interface MachineLock {
  release(): Promise<void>;
}

/** Waits (polling every `intervalMs`) until this process holds the lock `name`; throws after `timeoutMs`. */
export async function acquireMachineLock(
  name: string,
  options: { timeoutMs?: number; intervalMs?: number } = {},
): Promise<MachineLock> {
  const dir = join(tmpdir(), `gw-lock-${name}`);
  const deadline = Date.now() + (options.timeoutMs ?? 300_000);
  for (;;) {
    try {
      await mkdir(dir);
      await writeFile(join(dir, 'pid'), String(process.pid));
      return { release: () => rm(dir, { recursive: true, force: true }) };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
    const holder = Number(await readFile(join(dir, 'pid'), 'utf8').catch(() => ''));
    // a holder that died keeps no lock (a lock just made may not have its pid written yet: left alone)
    if (Number.isInteger(holder) && holder > 0 && !processExists(holder))
      await rm(dir, { recursive: true, force: true });
    if (Date.now() > deadline) throw new Error(`machine lock ${name} still held by pid ${holder || '?'}`);
    await new Promise((resolve) => setTimeout(resolve, options.intervalMs ?? 250));
  }
}
