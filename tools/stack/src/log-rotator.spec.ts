import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { existsSync } from 'node:fs';
import { appendFile, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { LogRotator } from './log-rotator.js';

describe('log rotator: the steps carried out on real files', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'gw-log-rotator-'));
  });
  afterAll(() => rm(dir, { recursive: true, force: true }));

  it('copies a full log to .1, shifts the older ones up, drops the oldest, empties the log in place', async () => {
    const log = join(dir, 'app.log');
    const said: string[] = [];
    const rotator = new LogRotator(
      { maxBytes: 1_000, files: 3 },
      () => [log, join(dir, 'absent.log')],
      (line) => said.push(line),
    );
    const fill = (mark: string): Promise<void> => writeFile(log, `${mark}\n`.repeat(250)); // 1000 bytes
    await fill('one');
    await rotator.check();
    await appendFile(log, 'two\n'); // under the size: stays
    await rotator.check();
    expect(await readFile(log, 'utf8')).toBe('two\n');
    await fill('thr');
    await rotator.check();
    await fill('fou');
    await rotator.check();
    expect((await readFile(log)).length).toBe(0);
    expect((await readFile(`${log}.1`, 'utf8')).slice(0, 4)).toBe('fou\n');
    expect((await readFile(`${log}.2`, 'utf8')).slice(0, 4)).toBe('thr\n');
    expect(existsSync(`${log}.3`)).toBe(false);
    expect(said).toEqual([]);
  });

  it('a log it cannot rotate is said once, naming the problem, and the others are still rotated', async () => {
    const blocked = join(dir, 'blocked.log');
    const other = join(dir, 'other.log');
    await writeFile(blocked, 'x'.repeat(2_000));
    await writeFile(other, 'y'.repeat(2_000));
    await mkdir(`${blocked}.1`); // a folder where the copy must go
    const said: string[] = [];
    const rotator = new LogRotator(
      { maxBytes: 1_000, files: 2 },
      () => [blocked, other],
      (line) => said.push(line),
    );
    await rotator.check();
    await rotator.check();
    expect(said).toEqual([
      expect.stringMatching(/^stack: could not rotate .*blocked\.log \([A-Z_]+\); it keeps growing/),
    ]);
    expect((await readFile(other)).length).toBe(0);
    expect((await readFile(blocked)).length).toBe(2_000);
  });
});
