/**
 * jest globalSetup of the e2e project: builds `dist/` once (tsc, a few seconds) so that suites can run an
 * app as a real child process — signals, `kill -9`, exit codes and start-up errors need a real process.
 */
import { execFileSync } from 'node:child_process';
import { rmSync } from 'node:fs';
import { createRequire } from 'node:module';

export default function buildDist(): void {
  rmSync('dist', { recursive: true, force: true }); // no stale output from an earlier layout
  const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
  execFileSync(process.execPath, [tsc, '-p', 'tsconfig.build.json'], { stdio: 'inherit' });
}
