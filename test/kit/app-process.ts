/**
 * An app of this repository as a real child process (from `dist/`, built by test/kit/build-dist.ts):
 * its output kept line by line, its exit awaited, signals delivered to it.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { appendFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { eventually } from '#testing';

export type AppName = 'connector' | 'sandbox-venue' | 'execution' | 'account-sync';

export interface AppExit {
  code: number | null;
  signal: NodeJS.Signals | null;
}

export class AppProcess {
  readonly lines: string[] = [];
  readonly exited: Promise<AppExit>;
  private readonly child: ChildProcess;

  private constructor(command: string, args: string[], env: Record<string, string>) {
    this.child = spawn(command, args, {
      env: { PATH: process.env['PATH'] ?? '', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true, // its own process group: `stop` also ends what it started (npm → sh → node)
    });
    let pending = '';
    // E2E_LOG_DIR: every child's output is also kept in a file of its own there (diagnosing a CI run)
    const logDir = process.env['E2E_LOG_DIR'];
    const name = /(?:apps|tools)\/([^/]+)\//.exec(args[0] ?? '')?.[1] ?? basename(command);
    const logFile = logDir === undefined ? undefined : join(logDir, `${name}-${String(this.child.pid)}.log`);
    const collect = (chunk: Buffer): void => {
      if (logFile !== undefined) appendFileSync(logFile, chunk);
      pending += chunk.toString('utf8');
      const parts = pending.split('\n');
      pending = parts.pop() ?? '';
      this.lines.push(...parts.filter((line) => line !== ''));
    };
    this.child.stdout?.on('data', collect);
    this.child.stderr?.on('data', collect);
    this.exited = new Promise((resolve) => this.child.once('exit', (code, signal) => resolve({ code, signal })));
  }

  /** `node dist/apps/<app>/src/main.js` with exactly `env` (plus PATH). */
  static start(app: AppName, env: Record<string, string>): AppProcess {
    return new AppProcess(process.execPath, [join(process.cwd(), 'dist/apps', app, 'src/main.js')], env);
  }

  /** Any command, e.g. `npm run start:connector`, to check how signals reach the app through it. */
  static command(command: string, args: string[], env: Record<string, string>): AppProcess {
    return new AppProcess(command, args, env);
  }

  get pid(): number {
    if (this.child.pid === undefined) throw new Error('process did not start');
    return this.child.pid;
  }

  signal(signal: NodeJS.Signals): void {
    this.child.kill(signal);
  }

  /** Waits for a log line containing `text`, returns it. */
  waitForLine(text: string, timeoutMs = 20_000): Promise<string> {
    return eventually(() => this.lines.find((line) => line.includes(text)), { what: `log line "${text}"`, timeoutMs });
  }

  /** Kills it and everything it started, if still running (cleanup). */
  async stop(): Promise<void> {
    const pid = this.child.pid;
    if (pid !== undefined) {
      try {
        process.kill(-pid, 'SIGKILL'); // the whole group, even when the direct child has exited
      } catch {
        // nothing left in the group
      }
    }
    await this.exited;
  }
}
