import { spawn } from 'node:child_process';
import { mkdir, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from '@jest/globals';
import { acquireMachineLock } from './machine-lock.js';

describe('acquireMachineLock', () => {
  it('is held by one at a time: the second waits until the first releases', async () => {
    const name = `spec-${process.pid}-a`;
    const first = await acquireMachineLock(name);
    let secondHeld = false;
    const second = acquireMachineLock(name, { intervalMs: 10 }).then((lock) => {
      secondHeld = true;
      return lock;
    });
    await new Promise((resolve) => setTimeout(resolve, 60));
    expect(secondHeld).toBe(false);
    await first.release();
    await (await second).release();
    expect(secondHeld).toBe(true);
  });

  it('takes over a lock whose holder died, and gives up after its timeout on a live one', async () => {
    const name = `spec-${process.pid}-b`;
    const dead = spawn(process.execPath, ['-e', '0']);
    const deadPid = dead.pid ?? 0;
    await new Promise((resolve) => dead.once('exit', resolve));
    const dir = join(tmpdir(), `gw-lock-${name}`);
    await mkdir(dir);
    await writeFile(join(dir, 'pid'), String(deadPid));
    const taken = await acquireMachineLock(name, { intervalMs: 10, timeoutMs: 2_000 });
    await expect(acquireMachineLock(name, { intervalMs: 10, timeoutMs: 50 })).rejects.toThrow(
      `still held by pid ${process.pid}`,
    );
    await taken.release();
  });
});
