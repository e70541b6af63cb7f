/**
 * jest globalSetup of the e2e project: builds `dist/` once (tsc, a few seconds) so that suites can run an
 * app as a real child process — signals, `kill -9`, exit codes and start-up errors need a real process.
 * `GW_DIST_BUILT=1`: `dist/` was built from this tree by the command that runs jest (`npm run ci` builds it
 * beside the type check and the lint; `npm test` builds it once for both of its jest runs), so it is not again.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';

export default function buildDist(): void {
  if (process.env['GW_DIST_BUILT'] === '1') {
    if (!existsSync('dist/.tsbuildinfo')) throw new Error('GW_DIST_BUILT=1 but dist/ is not built');
    return;
  }
  rmSync('dist', { recursive: true, force: true }); // no stale output from an earlier layout
  const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
  execFileSync(process.execPath, [tsc, '-p', 'tsconfig.build.json'], { stdio: 'inherit' });
}
