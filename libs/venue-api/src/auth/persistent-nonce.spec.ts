import { describe, it, expect, beforeAll, beforeEach, afterAll, afterEach } from '@jest/globals';
import { spawn } from 'node:child_process';
import { mkdtemp, readFile, readdir, rm, unlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { NonceStoreCorruptError, PersistentNonceSource, nonceFileName } from './persistent-nonce.js';

const API_KEY = 'key-ABCDEF-0123456789';

function fixedClock(start: bigint): { clock: () => bigint; set: (v: bigint) => void } {
  let now = start;
  return { clock: () => now, set: (v) => (now = v) };
}

describe('PersistentNonceSource', () => {
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'nonce-'));
  });
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('sends nonce values and names the file by a hash of the key, never the key', async () => {
    const source = new PersistentNonceSource({ directory: dir, apiKey: API_KEY, clock: () => 1000n });
    await expect(source.next()).resolves.toEqual({ field: 'nonce', value: 1000n });
    const files = await readdir(dir);
    expect(files).toEqual([nonceFileName(API_KEY)]);
    expect(files[0]).toMatch(/^nonce-[0-9a-f]{32}\.hwm$/);
    expect(files.join()).not.toContain('ABCDEF');
    expect(nonceFileName('other')).not.toBe(nonceFileName(API_KEY));
    expect(await readFile(join(dir, nonceFileName(API_KEY)), 'utf8')).toBe('1000\n');
  });

  it('is strictly increasing within one microsecond and across a clock step back', async () => {
    const time = fixedClock(1000n);
    const source = new PersistentNonceSource({ directory: dir, apiKey: API_KEY, clock: time.clock });
    const values = [(await source.next()).value, (await source.next()).value];
    time.set(10n);
    values.push((await source.next()).value);
    time.set(5000n);
    values.push((await source.next()).value);
    expect(values).toEqual([1000n, 1001n, 1002n, 5000n]);
  });

  it('never reuses a value after a restart with the clock set back', async () => {
    const time = fixedClock(1000n);
    const first = new PersistentNonceSource({ directory: dir, apiKey: API_KEY, clock: time.clock });
    for (let i = 0; i < 3; i++) await first.next();
    time.set(1n);
    const restarted = new PersistentNonceSource({ directory: dir, apiKey: API_KEY, clock: time.clock });
    await expect(restarted.next()).resolves.toEqual({ field: 'nonce', value: 1003n });
  });

  it('keeps to the clock floor when the file is deleted', async () => {
    const time = fixedClock(1000n);
    const source = new PersistentNonceSource({ directory: dir, apiKey: API_KEY, clock: time.clock });
    await source.next();
    await unlink(source.path);
    time.set(2000n);
    const fresh = new PersistentNonceSource({ directory: dir, apiKey: API_KEY, clock: time.clock });
    await expect(fresh.next()).resolves.toEqual({ field: 'nonce', value: 2000n });
  });

  it('keeps separate sequences per key', async () => {
    const a = new PersistentNonceSource({ directory: dir, apiKey: 'a', clock: () => 7n });
    const b = new PersistentNonceSource({ directory: dir, apiKey: 'b', clock: () => 7n });
    await a.next();
    await a.next();
    await expect(b.next()).resolves.toEqual({ field: 'nonce', value: 7n });
  });

  it('returns concurrent calls in call order, strictly increasing', async () => {
    const source = new PersistentNonceSource({ directory: dir, apiKey: API_KEY, clock: () => 1n });
    const values = (await Promise.all(Array.from({ length: 20 }, () => source.next()))).map((v) => v.value);
    expect(values).toEqual(Array.from({ length: 20 }, (_, i) => BigInt(i + 1)));
  });

  it('refuses a corrupt file instead of guessing, and recovers for the next call once fixed', async () => {
    const source = new PersistentNonceSource({ directory: dir, apiKey: API_KEY, clock: () => 1n });
    await writeFile(source.path, 'garbage');
    await expect(source.next()).rejects.toThrow(NonceStoreCorruptError);
    await writeFile(source.path, '41\n');
    await expect(source.next()).resolves.toEqual({ field: 'nonce', value: 42n });
  });

  it('creates the directory', async () => {
    const nested = join(dir, 'a', 'b');
    const source = new PersistentNonceSource({ directory: nested, apiKey: API_KEY });
    await source.next();
    expect(await readdir(nested)).toEqual([nonceFileName(API_KEY)]);
  });
});

/**
 * Real processes: each child transpiles nothing itself; the test transpiles this folder's sources to
 * plain ESM in a temporary directory (typescript.transpileModule, no new dependency) and runs a worker.
 */
describe('PersistentNonceSource across processes', () => {
  const here = dirname(fileURLToPath(import.meta.url));
  let buildDir: string;
  let nonceDir: string;

  beforeAll(async () => {
    buildDir = await mkdtemp(join(tmpdir(), 'nonce-build-'));
    nonceDir = await mkdtemp(join(tmpdir(), 'nonce-shared-'));
    for (const name of ['anti-replay', 'lock-file', 'persistent-nonce']) {
      const source = await readFile(join(here, `${name}.ts`), 'utf8');
      const { outputText } = ts.transpileModule(source, {
        compilerOptions: { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022 },
      });
      await writeFile(join(buildDir, `${name}.js`), outputText);
    }
    await writeFile(join(buildDir, 'package.json'), '{"type":"module"}');
    // argv: directory, count, clock ('real' or a frozen microsecond value: a clock far in the past).
    await writeFile(
      join(buildDir, 'worker.js'),
      `import { PersistentNonceSource } from './persistent-nonce.js';
const [directory, count, clockArg] = process.argv.slice(2);
const clock = clockArg === 'real' ? undefined : () => BigInt(clockArg);
const source = new PersistentNonceSource({ directory, apiKey: 'shared-key', clock, lockRetryMs: 1, lockTimeoutMs: 15_000 });
const values = [];
for (let i = 0; i < Number(count); i += 4) {
  const batch = await Promise.all([source.next(), source.next(), source.next(), source.next()]);
  for (const v of batch) values.push(v.value.toString());
}
process.stdout.write(JSON.stringify(values));
`,
    );
  });

  afterAll(async () => {
    await rm(buildDir, { recursive: true, force: true });
    await rm(nonceDir, { recursive: true, force: true });
  });

  function runWorker(count: number, clock: string): Promise<bigint[]> {
    return new Promise((resolve, reject) => {
      const child = spawn(process.execPath, [join(buildDir, 'worker.js'), nonceDir, String(count), clock], {
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let out = '';
      let err = '';
      child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
      child.stderr.on('data', (chunk: Buffer) => (err += chunk.toString()));
      child.on('error', reject);
      child.on('close', (code) => {
        if (code !== 0) reject(new Error(`worker exited ${code}: ${err}`));
        else resolve((JSON.parse(out) as string[]).map((v) => BigInt(v)));
      });
    });
  }

  it('four processes sharing one key never draw the same nonce and each sees a rising sequence', async () => {
    const perWorker = 40;
    const results = await Promise.all([
      runWorker(perWorker, 'real'),
      runWorker(perWorker, 'real'),
      runWorker(perWorker, '1000'), // a clock stepped far back: values come only from the shared file
      runWorker(perWorker, '1000'),
    ]);
    for (const values of results) {
      expect(values).toHaveLength(perWorker);
      for (let i = 1; i < values.length; i++) {
        expect((values[i] ?? 0n) > (values[i - 1] ?? 0n)).toBe(true);
      }
    }
    const all = results.flat();
    expect(new Set(all.map(String)).size).toBe(all.length);
    const mark = BigInt((await readFile(join(nonceDir, nonceFileName('shared-key')), 'utf8')).trim());
    expect(all.every((v) => v <= mark)).toBe(true);
    expect(all).toContain(mark);
    expect((await readdir(nonceDir)).sort()).toEqual([nonceFileName('shared-key')]);
  });
});
