/**
 * `nonce` values that never repeat for an API key, across restarts, clock steps and several processes.
 *
 * How: the key's high-water mark lives in `<directory>/nonce-<sha256(apiKey)[0..32]>.hwm` (the file name
 * never contains the key). Each draw takes the key's exclusive lock file (lock-file.ts), reads the mark,
 * picks value = max(now in µs, mark + 1, this process's previous + 1), writes it (temporary file, fsync,
 * rename) and only then releases the lock and returns the value. So values are strictly increasing in
 * the order processes pass through the lock, survive restarts, and stay monotonic (and near the clock)
 * even if the file is deleted, because the clock floor is kept.
 *
 * Limits: the venue checks order of *arrival*. Two processes draw 100 and 101; if 101 reaches the venue
 * first, 100 is refused as an authentication failure. That refusal is definitive evidence that the request
 * was not processed, so the REST client may retry it once with a fresh nonce. See lock-file.ts for the
 * lock's own limits (a holder paused beyond `lockStaleMs`).
 */
import { createHash, randomUUID } from 'node:crypto';
import { mkdir, open, readFile, rename, unlink } from 'node:fs/promises';
import { join } from 'node:path';
import {
  type AntiReplaySource,
  type AntiReplayValue,
  type MicrosecondClock,
  systemClockMicros,
} from './anti-replay.js';
import { FileLock, errorCode } from './lock-file.js';

export interface PersistentNonceOptions {
  /** Directory shared by every process using the key (created if missing). */
  directory: string;
  apiKey: string;
  clock?: MicrosecondClock;
  /** A lock older than this is taken over (default 10 000 ms). */
  lockStaleMs?: number;
  /** Give up drawing after waiting this long for the lock (default 5 000 ms). */
  lockTimeoutMs?: number;
  /** Pause between lock attempts (default 2 ms). */
  lockRetryMs?: number;
}

/** The high-water file holds something other than a nonce; refuse rather than risk reusing values. */
export class NonceStoreCorruptError extends Error {
  override readonly name = 'NonceStoreCorruptError';
  constructor(readonly path: string) {
    super(`nonce file ${path} does not hold a whole number; fix or remove it`);
  }
}

/** The file name for a key: a hash, never the key itself. */
export function nonceFileName(apiKey: string): string {
  return `nonce-${createHash('sha256').update(apiKey, 'utf8').digest('hex').slice(0, 32)}.hwm`;
}

export class PersistentNonceSource implements AntiReplaySource {
  readonly path: string;
  private readonly lock: FileLock;
  private readonly clock: MicrosecondClock;
  private last = 0n;
  private tail: Promise<unknown> = Promise.resolve();
  private directoryReady: Promise<unknown> | undefined;

  constructor(private readonly options: PersistentNonceOptions) {
    if (options.apiKey.length === 0) throw new RangeError('apiKey is empty');
    this.path = join(options.directory, nonceFileName(options.apiKey));
    this.clock = options.clock ?? systemClockMicros;
    this.lock = new FileLock(`${this.path}.lock`, {
      staleMs: options.lockStaleMs ?? 10_000,
      timeoutMs: options.lockTimeoutMs ?? 5_000,
      retryMs: options.lockRetryMs ?? 2,
    });
  }

  /** Draws run one at a time within the process, so values come back in call order. */
  next(): Promise<AntiReplayValue> {
    const draw = this.tail.then(() => this.draw());
    this.tail = draw.catch(() => undefined);
    return draw;
  }

  private async draw(): Promise<AntiReplayValue> {
    this.directoryReady ??= mkdir(this.options.directory, { recursive: true });
    await this.directoryReady;
    const value = await this.lock.withLock(async () => {
      const stored = await this.readMark();
      let next = this.clock();
      if (stored !== undefined && stored >= next) next = stored + 1n;
      if (this.last >= next) next = this.last + 1n;
      await this.writeMark(next);
      return next;
    });
    this.last = value;
    return { field: 'nonce', value };
  }

  private async readMark(): Promise<bigint | undefined> {
    let text: string;
    try {
      text = await readFile(this.path, 'utf8');
    } catch (error) {
      if (errorCode(error) === 'ENOENT') return undefined;
      throw error;
    }
    const digits = text.trim();
    if (!/^\d{1,30}$/.test(digits)) throw new NonceStoreCorruptError(this.path);
    return BigInt(digits);
  }

  private async writeMark(value: bigint): Promise<void> {
    const temporary = `${this.path}.${process.pid}.${randomUUID()}.tmp`;
    const handle = await open(temporary, 'w');
    try {
      await handle.writeFile(`${value}\n`, 'utf8');
      await handle.sync(); // the mark must survive a crash that follows our request
    } finally {
      await handle.close();
    }
    try {
      await rename(temporary, this.path);
    } catch (error) {
      await unlink(temporary).catch(() => undefined);
      throw error;
    }
  }
}
