/**
 * Calls a module's date parser on `text` in a child node whose TZ is `timeZone`, beside `Date.parse(text)` there
 * (the host-local reading, to prove the zone took effect). Node reads TZ once, at the first use of Date, and
 * jest's `process.env` is a copy: only a fresh process sees another zone. The module must be self-contained (no
 * imports): it is transpiled alone, TypeScript types stripped.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * The TypeScript compiler, loaded at the first call, not with #testing: every suite importing the test kit would
 * otherwise load and evaluate the whole compiler into its module registry (seconds per suite).
 */
const typescript = (): typeof import('typescript') => createRequire(import.meta.url)('typescript');

export function parseInTimeZone(
  timeZone: string,
  modulePath: string,
  parser: string,
  text: string,
): { parsed: unknown; local: number } {
  const call = `[m[${JSON.stringify(parser)}](${JSON.stringify(text)}), Date.parse(${JSON.stringify(text)})]`;
  const dir = mkdtempSync(join(tmpdir(), 'tz-'));
  try {
    const ts = typescript();
    const { outputText } = ts.transpileModule(readFileSync(modulePath, 'utf8'), {
      compilerOptions: { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022 },
    });
    writeFileSync(join(dir, 'module.mjs'), outputText);
    writeFileSync(
      join(dir, 'main.mjs'),
      `import * as m from './module.mjs';\nprocess.stdout.write(JSON.stringify(${call}));\n`,
    );
    const run = spawnSync(process.execPath, [join(dir, 'main.mjs')], {
      env: { PATH: process.env['PATH'] ?? '', TZ: timeZone },
      encoding: 'utf8',
      timeout: 10_000,
    });
    if (run.status !== 0) throw new Error(`node in ${timeZone} failed: ${run.stderr.slice(0, 500)}`);
    const [parsed, local] = JSON.parse(run.stdout) as [unknown, number];
    return { parsed, local };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
