/**
 * Carries out log-rotation.ts's decision: every few seconds each component's log is measured and, once past
 * STACK_LOG_MAX_BYTES, rotated by copy and truncate (the child keeps its O_APPEND descriptor; the launcher holds
 * no pipe, so a launcher killed outright leaves its components running and logging — only unrotated).
 */
import { appendFileSync, closeSync, fstatSync, ftruncateSync, openSync, readSync } from 'node:fs';
import { copyFile, rename, rm, stat, truncate } from 'node:fs/promises';
import { rotationSteps, type LogRotationSettings, type RotationStep } from './log-rotation.js';

/** How often the logs are measured: a log may pass the size by what its component writes in this time. */
export const LOG_CHECK_MS = 3_000;

/** What is read at most after the bulk copy, before the truncate (a child outpacing local reads: never seen). */
const CATCH_UP_MAX_BYTES = 64 * 1024 * 1024;

export class LogRotator {
  private timer: NodeJS.Timeout | undefined;
  private checking: Promise<void> | undefined;
  /** The last problem said for each log (said once, not every check). */
  private readonly problems = new Map<string, string>();

  constructor(
    private readonly settings: LogRotationSettings,
    /** The log files to watch, asked at each check (components are started, and restarted, over time). */
    private readonly logs: () => readonly string[],
    private readonly say: (line: string) => void,
    private readonly everyMs: number = LOG_CHECK_MS,
  ) {}

  start(): void {
    if (this.settings.maxBytes === 0 || this.timer !== undefined) return;
    this.timer = setInterval(() => void this.check(), this.everyMs);
    this.timer.unref();
  }

  /** No more checks; resolves once a check under way is done. */
  async stop(): Promise<void> {
    clearInterval(this.timer);
    this.timer = undefined;
    await this.checking;
  }

  /** One pass over every log (skipped while the previous one still runs). */
  check(): Promise<void> {
    this.checking ??= (async () => {
      for (const file of new Set(this.logs())) await this.checkOne(file);
    })().finally(() => (this.checking = undefined));
    return this.checking;
  }

  private async checkOne(file: string): Promise<void> {
    try {
      const size = await stat(file).then(
        (s) => s.size,
        () => 0, // not written yet
      );
      for (const step of rotationSteps(file, size, this.settings)) await carryOut(step);
      this.problems.delete(file);
    } catch (error) {
      const problem = (error as NodeJS.ErrnoException).code ?? String(error);
      if (this.problems.get(file) === problem) return;
      this.problems.set(file, problem);
      this.say(`stack: could not rotate ${file} (${problem}); it keeps growing until this is fixed`);
    }
  }
}

export async function carryOut(step: RotationStep): Promise<void> {
  switch (step.kind) {
    case 'remove':
      return rm(step.file, { force: true });
    case 'rename':
      return rename(step.from, step.to).catch((error: NodeJS.ErrnoException) => {
        if (error.code !== 'ENOENT') throw error; // not rotated that often yet
      });
    case 'truncate':
      return truncate(step.file, 0);
    case 'copy-truncate':
      await copyFile(step.from, step.to); // the bulk, off the event loop
      return catchUpAndTruncate(step.from, step.to);
  }
}

/**
 * What the child appended while the copy ran, read and appended to the copy, then the log truncated right after
 * the read that found its end — synchronously, no turn of the event loop in between. Lost: only what the child
 * writes between that last read and the truncate (two system calls apart).
 */
function catchUpAndTruncate(log: string, copy: string): void {
  const source = openSync(log, 'r+');
  try {
    const target = openSync(copy, 'a');
    try {
      const buffer = Buffer.allocUnsafe(64 * 1024);
      const copied = fstatSync(target).size;
      let position = copied;
      while (position - copied < CATCH_UP_MAX_BYTES) {
        const read = readSync(source, buffer, 0, buffer.length, position);
        if (read === 0) break;
        appendFileSync(target, buffer.subarray(0, read));
        position += read;
      }
    } finally {
      closeSync(target);
    }
    ftruncateSync(source, 0);
  } finally {
    closeSync(source);
  }
}
