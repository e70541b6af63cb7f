/**
 * A SIGTERM in the second or more an app spends loading its modules, before runApp takes signals (a rolling
 * restart that stops the new process at once, a launcher stopping one just restarted): the app holds nothing yet
 * and must exit 0, as at any other moment — not die by the signal (exit 143). (hC: account-sync stopped again
 * while loading read "stopped (SIGTERM)" at the launcher.) The loading is held at the app's bootstrap module by an
 * injected slow module resolution, which also says when the process is there.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { existsSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { eventually } from '#testing';
import { AppProcess, type AppName } from './app-process.js';

/** Holds the resolution of `./bootstrap.js` (the app's own code) for a minute, after writing LOAD_MARKER. */
const HOOKS = `
import { writeFileSync } from 'node:fs';
export async function resolve(specifier, context, next) {
  if (specifier === './bootstrap.js') {
    writeFileSync(process.env.LOAD_MARKER, 'loading');
    await new Promise((done) => setTimeout(done, 60_000));
  }
  return next(specifier, context);
}
`;

describe('a signal while an app loads its modules', () => {
  let dir = '';
  let register = '';
  const started: AppProcess[] = [];

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'gw-slow-load-'));
    await writeFile(join(dir, 'hooks.mjs'), HOOKS);
    register = join(dir, 'register.mjs');
    await writeFile(
      register,
      `import { register } from 'node:module';\nregister(${JSON.stringify(pathToFileURL(join(dir, 'hooks.mjs')).href)});\n`,
    );
  });
  afterAll(async () => {
    for (const app of started) await app.stop();
    await rm(dir, { recursive: true, force: true });
  });

  it.each<AppName>(['connector', 'execution', 'account-sync'])(
    '%s: SIGTERM while loading exits 0',
    async (name) => {
      const marker = join(dir, `${name}.loading`);
      const app = AppProcess.command(
        process.execPath,
        ['--import', pathToFileURL(register).href, join(process.cwd(), 'dist/apps', name, 'src/main.js')],
        { LOAD_MARKER: marker },
      );
      started.push(app);
      await eventually(() => (existsSync(marker) ? true : undefined), { what: `${name} loading its modules` });
      app.signal('SIGTERM');
      expect(await app.exited).toEqual({ code: 0, signal: null });
    },
    30_000,
  );
});
