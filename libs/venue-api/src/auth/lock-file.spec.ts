import { describe, it, expect, beforeEach, afterEach } from '@jest/globals';
import { spawnSync } from 'node:child_process';
import { mkdtemp, readFile, readdir, rm, utimes, writeFile } from 'node:fs/promises';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { FileLock, FileLockTimeoutError } from './lock-file.js';

const options = { staleMs: 60_000, timeoutMs: 200, retryMs: 1 };

describe('FileLock', () => {
  let dir: string;
  let lockPath: string;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'lock-'));
    lockPath = join(dir, 'x.lock');
  });
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('holds the lock file with its owner during the work and removes it after', async () => {
    const lock = new FileLock(lockPath, options);
    const content = await lock.withLock(() => readFile(lockPath, 'utf8'));
    expect(JSON.parse(content)).toMatchObject({ pid: process.pid, host: hostname() });
    expect(await readdir(dir)).toEqual([]);
  });

  it('releases the lock when the work fails', async () => {
    const lock = new FileLock(lockPath, options);
    await expect(lock.withLock(() => Promise.reject(new Error('boom')))).rejects.toThrow('boom');
    expect(await readdir(dir)).toEqual([]);
  });

  it('serialises holders in one process', async () => {
    // waits bounded generously: four holders in turn on a loaded machine took longer than the 200 ms of the others
    const a = new FileLock(lockPath, { ...options, timeoutMs: 5_000 });
    const b = new FileLock(lockPath, { ...options, timeoutMs: 5_000 });
    let inside = 0;
    let maxInside = 0;
    const work = async (): Promise<void> => {
      inside++;
      maxInside = Math.max(maxInside, inside);
      await new Promise((resolve) => setImmediate(resolve));
      inside--;
    };
    await Promise.all([a.withLock(work), b.withLock(work), a.withLock(work), b.withLock(work)]);
    expect(maxInside).toBe(1);
  });

  it('waits for a live fresh owner and times out', async () => {
    await writeFile(lockPath, JSON.stringify({ pid: process.pid, host: hostname(), token: 'other' }));
    const lock = new FileLock(lockPath, options);
    await expect(lock.withLock(() => Promise.resolve())).rejects.toThrow(FileLockTimeoutError);
    expect(JSON.parse(await readFile(lockPath, 'utf8'))).toMatchObject({ token: 'other' });
  });

  it('takes over at once when the owner process no longer exists', async () => {
    const finished = spawnSync(process.execPath, ['-e', '']);
    await writeFile(lockPath, JSON.stringify({ pid: finished.pid, host: hostname(), token: 'dead' }));
    const lock = new FileLock(lockPath, options);
    await expect(lock.withLock(() => Promise.resolve('done'))).resolves.toBe('done');
    expect(await readdir(dir)).toEqual([]);
  });

  it('takes over an old lock even when its owner looks alive', async () => {
    await writeFile(lockPath, JSON.stringify({ pid: process.pid, host: hostname(), token: 'hung' }));
    const old = new Date(Date.now() - 120_000);
    await utimes(lockPath, old, old);
    const lock = new FileLock(lockPath, options);
    await expect(lock.withLock(() => Promise.resolve('done'))).resolves.toBe('done');
  });

  it('judges an unreadable owner by age only', async () => {
    await writeFile(lockPath, '');
    await expect(new FileLock(lockPath, options).withLock(() => Promise.resolve())).rejects.toThrow(
      FileLockTimeoutError,
    );
    const old = new Date(Date.now() - 120_000);
    await utimes(lockPath, old, old);
    await expect(new FileLock(lockPath, options).withLock(() => Promise.resolve('ok'))).resolves.toBe('ok');
  });

  it('does not remove a lock that was taken over from it', async () => {
    const lock = new FileLock(lockPath, options);
    await lock.withLock(async () => {
      await writeFile(lockPath, JSON.stringify({ pid: process.pid, host: hostname(), token: 'newer' }));
    });
    expect(JSON.parse(await readFile(lockPath, 'utf8'))).toMatchObject({ token: 'newer' });
  });
});
