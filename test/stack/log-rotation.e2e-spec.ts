/**
 * The launcher's log rotation (docs/operations.md "Logs") with a real child writing continuously to its log
 * through the O_APPEND descriptor the launcher hands it: the log is copied and truncated in place at the size,
 * at most STACK_LOG_FILES files are kept, the child's later lines land in the emptied log; and a launcher killed
 * outright (SIGKILL) while it rotates leaves the child running and logging — no pipe between them to break.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from '@jest/globals';
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { eventually } from '#testing';
import { AppProcess } from '../kit/app-process.js';
import { LogRotator } from '../../tools/stack/src/log-rotator.js';
import { ManagedProcess } from '../../tools/stack/src/managed-process.js';

/** One numbered line (≈ 90 bytes) a millisecond, on stdout, for ever. */
const WRITER = `let n = 0; setInterval(() => process.stdout.write('line ' + n++ + ' ${'x'.repeat(80)}\\n'), 1);`;
const SETTINGS = { maxBytes: 20_000, files: 3 };
const LINE = /^line (\d+) x{80}$/;

/** The line numbers of one log file; every line whole (no line split, no NUL from a write past a hole). */
async function lineNumbers(file: string): Promise<number[]> {
  const text = await readFile(file, 'utf8');
  const lines = text.split('\n');
  if (lines.pop() !== '') throw new Error(`${file} does not end with a whole line`);
  return lines.map((line) => {
    const match = LINE.exec(line);
    if (match === null) throw new Error(`${file}: not a whole line: ${JSON.stringify(line.slice(0, 120))}`);
    return Number(match[1]);
  });
}

/** The number of the last whole line of a log still being written. */
async function lastLine(file: string): Promise<number> {
  const whole = (await readFile(file, 'utf8')).split('\n').slice(0, -1);
  return Number(LINE.exec(whole.at(-1) ?? '')?.[1] ?? -1);
}

const consecutive = (numbers: number[]): boolean => numbers.every((n, i) => i === 0 || n === (numbers[i - 1] ?? 0) + 1);

describe('log rotation by the launcher (copy and truncate; the child keeps its descriptor)', () => {
  let dir: string;
  let writer: ManagedProcess | undefined;
  let rotator: LogRotator | undefined;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'gw-log-rotation-'));
  });
  afterEach(async () => {
    await rotator?.stop();
    await writer?.stop(5_000);
    rotator = writer = undefined;
  });
  afterAll(() => rm(dir, { recursive: true, force: true }));

  it('rotates a log written continuously at the size, keeps at most STACK_LOG_FILES files, later lines in the fresh log', async () => {
    const log = join(dir, 'writer.log');
    writer = new ManagedProcess('writer', process.execPath, ['-e', WRITER], process.env, log);
    const said: string[] = [];
    rotator = new LogRotator(
      SETTINGS,
      () => [log],
      (line) => said.push(line),
      100,
    );
    rotator.start();

    // the oldest kept file starts past what four full logs hold: older files were removed, not kept
    const linesPerLog = SETTINGS.maxBytes / 90;
    await eventually(
      async () =>
        existsSync(`${log}.2`) && ((await lineNumbers(`${log}.2`))[0] ?? 0) > 4 * linesPerLog ? true : undefined,
      { what: 'the log rotated several times', timeoutMs: 30_000, intervalMs: 50 },
    );
    await rotator.stop();
    rotator = undefined;
    // the child writes on into the emptied log, at its (new) end
    const sizeAfter = (await stat(log)).size;
    await eventually(async () => ((await stat(log)).size > sizeAfter ? true : undefined), { what: 'more lines' });
    await writer.stop(5_000);
    writer = undefined;

    expect(existsSync(`${log}.3`)).toBe(false); // three files: the log, .1 and .2
    const [older, old, live] = [await lineNumbers(`${log}.2`), await lineNumbers(`${log}.1`), await lineNumbers(log)];
    // each file holds consecutive lines (the copy took what was written during it), in order across the files
    for (const numbers of [older, old, live]) expect(consecutive(numbers)).toBe(true);
    expect(old[0]).toBeGreaterThan(older.at(-1) ?? Infinity);
    expect(live[0]).toBeGreaterThan(old.at(-1) ?? Infinity);
    // each rotated file was rotated at the size (a check may come late: more, never less)
    for (const file of [`${log}.1`, `${log}.2`])
      expect((await stat(file)).size).toBeGreaterThanOrEqual(SETTINGS.maxBytes);
    // the files together hold a small part of what was written: the rest was removed
    const kept = older.length + old.length + live.length;
    expect(kept).toBeLessThan((live.at(-1) ?? 0) / 2);
    expect(said).toEqual([]);
  }, 60_000);

  it('a launcher killed outright (SIGKILL) while rotating leaves its component running, logging to the same file', async () => {
    const log = join(dir, 'orphan.log');
    const dist = (file: string): string => join(process.cwd(), 'dist/tools/stack/src', file);
    // a launcher in miniature: the launcher's own ManagedProcess and LogRotator, from dist/
    const launcher = AppProcess.command(
      process.execPath,
      [
        '--input-type=module',
        '-e',
        `import { ManagedProcess } from ${JSON.stringify(dist('managed-process.js'))};
         import { LogRotator } from ${JSON.stringify(dist('log-rotator.js'))};
         const child = new ManagedProcess('orphan', process.execPath, ['-e', ${JSON.stringify(WRITER)}], process.env, ${JSON.stringify(log)});
         new LogRotator(${JSON.stringify(SETTINGS)}, () => [${JSON.stringify(log)}], console.log, 100).start();
         setInterval(() => undefined, 60_000);
         console.log('child ' + child.record.pid);`,
      ],
      {},
    );
    let pid: number | undefined;
    try {
      const started = await eventually(() => launcher.lines.find((line) => line.startsWith('child ')), {
        what: 'the child started',
      });
      pid = Number(started.split(' ')[1]);
      await eventually(() => (existsSync(`${log}.1`) ? true : undefined), { what: 'a rotation', timeoutMs: 30_000 });
      launcher.signal('SIGKILL');
      expect((await launcher.exited).signal).toBe('SIGKILL');

      // no pipe to break: the child runs on, and its lines keep landing in the log
      const lastBefore = await lastLine(log);
      await eventually(async () => ((await lastLine(log)) > lastBefore + 100 ? true : undefined), {
        what: 'the child logging after the launcher died',
      });
      expect(() => process.kill(pid ?? 0, 0)).not.toThrow();
    } finally {
      await launcher.stop();
      if (pid !== undefined) process.kill(-pid, 'SIGKILL');
    }
  }, 60_000);
});
