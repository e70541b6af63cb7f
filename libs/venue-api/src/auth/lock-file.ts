/**
 * A cross-process exclusive lock made of one file created with O_EXCL (`open(path, 'wx')`).
 *
 * The file holds its owner: `{pid, host, token}`. A lock is taken over when it is stale: its owner is a
 * process on this host that no longer exists, or the file is older than `staleMs` (owner hung, or on
 * another host). Takeover is compare-and-delete: rename the file we judged stale to a private name, check
 * it is still the same file (inode, mtime, content) and delete it; if we moved a newer lock by mistake we
 * link it back. Limits, accepted because a holder keeps the lock for milliseconds: a holder paused for
 * longer than `staleMs` loses the lock while still working, and two takeovers racing a third process can
 * in theory leave two holders; both need a crash or a pause of many seconds to happen at all.
 * Works on local filesystems; on network filesystems O_EXCL and rename atomicity depend on the server.
 */
import { randomUUID } from 'node:crypto';
import { link, open, readFile, rename, stat, unlink } from 'node:fs/promises';
import { hostname } from 'node:os';

export interface FileLockOptions {
  /** A lock older than this is taken over even if its owner looks alive. */
  staleMs: number;
  /** Give up waiting after this long. */
  timeoutMs: number;
  /** Pause between attempts (a random extra of the same size is added to spread contenders). */
  retryMs: number;
}

export class FileLockTimeoutError extends Error {
  override readonly name = 'FileLockTimeoutError';
  constructor(
    readonly lockPath: string,
    timeoutMs: number,
  ) {
    super(`could not acquire lock ${lockPath} within ${timeoutMs} ms`);
  }
}

interface LockOwner {
  pid: number;
  host: string;
  token: string;
}

/** Node's system-error code. No `instanceof Error`: errors can come from another realm (e.g. jest's vm). */
export function errorCode(error: unknown): string | undefined {
  return typeof error === 'object' && error !== null && 'code' in error && typeof error.code === 'string'
    ? error.code
    : undefined;
}

function parseOwner(content: string): LockOwner | undefined {
  try {
    const value: unknown = JSON.parse(content);
    if (value === null || typeof value !== 'object') return undefined;
    const { pid, host, token } = value as Record<string, unknown>;
    if (typeof pid !== 'number' || typeof host !== 'string' || typeof token !== 'string') return undefined;
    return { pid, host, token };
  } catch {
    return undefined; // empty (owner between create and write) or garbage: judged by age only
  }
}

/** Whether a process with this pid exists on this machine (also one of another user). */
export function processExists(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return errorCode(error) === 'EPERM'; // exists, owned by another user
  }
}

function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

export class FileLock {
  private readonly host = hostname();

  constructor(
    readonly lockPath: string,
    private readonly options: FileLockOptions,
  ) {}

  /** Runs `work` while holding the lock; always releases it. */
  async withLock<T>(work: () => Promise<T>): Promise<T> {
    const token = await this.acquire();
    try {
      return await work();
    } finally {
      await this.release(token);
    }
  }

  private async acquire(): Promise<string> {
    const token = randomUUID();
    const content = JSON.stringify({ pid: process.pid, host: this.host, token });
    const deadline = performance.now() + this.options.timeoutMs;
    for (;;) {
      try {
        const handle = await open(this.lockPath, 'wx');
        try {
          await handle.writeFile(content, 'utf8');
        } finally {
          await handle.close();
        }
        return token;
      } catch (error) {
        if (errorCode(error) !== 'EEXIST') throw error;
      }
      if (await this.takeOverIfStale()) continue;
      if (performance.now() > deadline) throw new FileLockTimeoutError(this.lockPath, this.options.timeoutMs);
      await delay(this.options.retryMs + Math.random() * this.options.retryMs);
    }
  }

  /** True when the lock file is gone (removed by us or its owner): try to create it again at once. */
  private async takeOverIfStale(): Promise<boolean> {
    let seen: { ino: number; mtimeMs: number; content: string };
    try {
      const info = await stat(this.lockPath);
      seen = { ino: info.ino, mtimeMs: info.mtimeMs, content: await readFile(this.lockPath, 'utf8') };
    } catch (error) {
      if (errorCode(error) === 'ENOENT') return true;
      throw error;
    }
    const owner = parseOwner(seen.content);
    const ownerDead = owner !== undefined && owner.host === this.host && !processExists(owner.pid);
    if (!ownerDead && Date.now() - seen.mtimeMs <= this.options.staleMs) return false;

    const grave = `${this.lockPath}.stale-${process.pid}-${randomUUID()}`;
    try {
      await rename(this.lockPath, grave);
    } catch (error) {
      if (errorCode(error) === 'ENOENT') return true;
      throw error;
    }
    const moved = await stat(grave);
    const same =
      moved.ino === seen.ino && moved.mtimeMs === seen.mtimeMs && (await readFile(grave, 'utf8')) === seen.content;
    if (!same) {
      // We moved a lock acquired after our look: give it back unless a newer one already exists.
      await link(grave, this.lockPath).catch(() => undefined);
    }
    await unlink(grave).catch(() => undefined);
    return true;
  }

  private async release(token: string): Promise<void> {
    try {
      const owner = parseOwner(await readFile(this.lockPath, 'utf8'));
      // Only our own lock: after a takeover the file belongs to someone else.
      if (owner?.token === token) await unlink(this.lockPath);
    } catch (error) {
      if (errorCode(error) !== 'ENOENT') throw error;
    }
  }
}
