import { afterEach, beforeEach, describe, expect, it } from '@jest/globals';
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig } from '#observability';
import { configProblems } from '#testing';
import { ComponentLog, LineJoiner, MAX_HELD_LINE_BYTES } from './component-log.js';
import { ManagedProcess } from './managed-process.js';
import { StackConfig } from './stack-config.js';

const line = (i: number): string => `{"level":"info","msg":"order outcome","i":${String(i).padStart(4, '0')}}\n`;

describe("a component's log rotated by size (T1 F4)", () => {
  let dir: string;
  let path: string;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'gw-stack-log-'));
    path = join(dir, 'connector.log');
  });
  afterEach(() => rm(dir, { recursive: true, force: true }));

  const files = async (): Promise<string[]> => (await readdir(dir)).sort();

  it('passing the size, <name>.log becomes .1, .1 becomes .2 …, the oldest beyond `keep` is dropped; no line lost or split', async () => {
    const log = new ComponentLog(path, { maxBytes: 10 * line(0).length, keep: 2 });
    for (let i = 0; i < 45; i += 1) log.append(Buffer.from(line(i)));
    log.close();
    expect(await files()).toEqual(['connector.log', 'connector.log.1', 'connector.log.2']);
    const [current, newer, older] = await Promise.all(
      ['', '.1', '.2'].map((suffix) => readFile(`${path}${suffix}`, 'utf8')),
    );
    // 45 lines of 10 a file: 0–9 and 10–19 dropped, 20–29 in .2, 30–39 in .1, 40–44 current
    expect(older).toBe(Array.from({ length: 10 }, (_, i) => line(20 + i)).join(''));
    expect(newer).toBe(Array.from({ length: 10 }, (_, i) => line(30 + i)).join(''));
    expect(current).toBe(Array.from({ length: 5 }, (_, i) => line(40 + i)).join(''));
  });

  it('appends to what an earlier start left and counts it toward the size; one append longer than the size gets a file of its own', async () => {
    await writeFile(path, line(0).repeat(3));
    const log = new ComponentLog(path, { maxBytes: 4 * line(0).length, keep: 3 });
    log.append(Buffer.from(line(1)));
    expect(existsSync(`${path}.1`)).toBe(false);
    log.append(Buffer.from(line(2).repeat(6))); // one chunk of whole lines, never cut
    log.append(Buffer.from(line(3)));
    log.close();
    expect(await readFile(`${path}.2`, 'utf8')).toBe(line(0).repeat(3) + line(1));
    expect(await readFile(`${path}.1`, 'utf8')).toBe(line(2).repeat(6));
    expect(await readFile(path, 'utf8')).toBe(line(3));
  });

  it('a line that arrives in pieces, from two streams interleaved, is written whole once its newline arrives', () => {
    const written: string[] = [];
    const out = (text: Buffer): void => void written.push(text.toString());
    const stdout = new LineJoiner(out);
    const stderr = new LineJoiner(out);
    stdout.push(Buffer.from('{"a":1}\n{"a":'));
    stderr.push(Buffer.from('panic: '));
    stdout.push(Buffer.from('2}\n'));
    stderr.push(Buffer.from('boom\ngoroutine 1'));
    stderr.flush(); // the stream ended without its last newline
    expect(written).toEqual(['{"a":1}\n', '{"a":2}\n', 'panic: boom\n', 'goroutine 1']);
    // a line without a newline is held only up to a bound
    written.length = 0;
    stdout.push(Buffer.alloc(MAX_HELD_LINE_BYTES, 'x'));
    expect(written.map((text) => text.length)).toEqual([MAX_HELD_LINE_BYTES]);
  });

  it("a child's output through the launcher: drained while it writes fast, rotated, every line once (not stalled on a full pipe)", async () => {
    // 20 000 lines of ~70 bytes (1.4 MB: far beyond a 64 KB pipe), on stdout and stderr both, as fast as it can
    const script = `for (let i = 0; i < 10000; i += 1) { process.stdout.write('out ' + i + ' ' + 'x'.repeat(60) + '\\n'); process.stderr.write('err ' + i + '\\n'); }`;
    const child = new ManagedProcess('fake', process.execPath, ['-e', script], process.env, path, {
      maxBytes: 100_000,
      keep: 100,
    });
    expect(await child.exited).toEqual({ code: 0, signal: null });
    const names = (await files()).filter((name) => name.startsWith('connector.log'));
    expect(names.length).toBeGreaterThan(10);
    const texts = await Promise.all(names.map((name) => readFile(join(dir, name), 'utf8')));
    for (const text of texts) {
      expect(text.endsWith('\n')).toBe(true); // no line cut at a rotation
      expect(Buffer.byteLength(text)).toBeLessThanOrEqual(100_000);
    }
    const lines = texts.flatMap((text) => text.trimEnd().split('\n'));
    expect(lines.filter((l) => /^out \d+ x{60}$/.test(l))).toHaveLength(10_000);
    expect(new Set(lines.filter((l) => /^err \d+$/.test(l)))).toHaveProperty('size', 10_000);
    expect(child.tail(1)).toMatch(/^(out|err) 9999/);
  }, 30_000);

  it('the settings: defaults, and a bad value refused by name at start-up', () => {
    expect(loadConfig(StackConfig, {})).toMatchObject({ STACK_LOG_MAX_BYTES: 50_000_000, STACK_LOG_FILES: 5 });
    expect(configProblems(StackConfig, { STACK_LOG_MAX_BYTES: '10MB', STACK_LOG_FILES: '0' })).toEqual([
      expect.stringMatching(/^STACK_LOG_MAX_BYTES must be a decimal integer .* from 1000 to 1000000000000/),
      expect.stringMatching(/^STACK_LOG_FILES must be from 1 to 100/),
    ]);
  });
});
