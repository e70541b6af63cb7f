/**
 * One component of the stack as a child process: its output appended to `<data>/logs/<name>.log`, in its own
 * process group (a Ctrl-C in the terminal reaches only the launcher, which stops the components in reverse
 * order), stopped with SIGTERM and killed if it outlasts the stop timeout. The log is the child's own descriptor,
 * never a pipe through the launcher (a launcher killed outright must leave it running and logging); it is rotated
 * by copy and truncate (log-rotator.ts).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import type { ChildRecord } from './leftovers.js';
import { closeSync, openSync, readFileSync } from 'node:fs';

export interface ProcessExit {
  code: number | null;
  signal: NodeJS.Signals | null;
}

export class ManagedProcess {
  readonly exited: Promise<ProcessExit>;
  private readonly child: ChildProcess;
  private done = false;

  constructor(
    readonly name: string,
    command: string,
    args: string[],
    env: NodeJS.ProcessEnv,
    readonly logFile: string,
    /** How it is asked to stop: SIGTERM for the apps; nats-server exits 0 on SIGINT (1 on SIGTERM). */
    private readonly stopSignal: NodeJS.Signals = 'SIGTERM',
  ) {
    const log = openSync(logFile, 'a');
    try {
      this.child = spawn(command, args, { env, stdio: ['ignore', log, log], detached: true });
    } finally {
      closeSync(log);
    }
    this.exited = new Promise((resolve) => {
      this.child.once('error', () => {
        this.done = true;
        resolve({ code: 127, signal: null });
      });
      this.child.once('exit', (code, signal) => {
        this.done = true;
        resolve({ code, signal });
      });
    });
  }

  get running(): boolean {
    return !this.done;
  }

  /** Its pid and command line, for the record of what this launcher started (leftovers.ts). */
  get record(): ChildRecord | undefined {
    const pid = this.child.pid;
    return pid === undefined ? undefined : { name: this.name, pid, command: this.child.spawnargs.join(' ') };
  }

  /** The stop signal, then SIGKILL after `timeoutMs`; resolves with how it ended. */
  async stop(timeoutMs: number): Promise<ProcessExit & { killed: boolean }> {
    if (this.done) return { ...(await this.exited), killed: false };
    this.child.kill(this.stopSignal);
    let killed = false;
    const timer = setTimeout(() => {
      killed = true;
      this.kill();
    }, timeoutMs);
    const exit = await this.exited;
    clearTimeout(timer);
    return { ...exit, killed };
  }

  /** The whole process group, at once (the launcher itself is going away). */
  kill(): void {
    const pid = this.child.pid;
    if (pid === undefined || this.done) return;
    try {
      process.kill(-pid, 'SIGKILL');
    } catch {
      // already gone
    }
  }

  /** The last lines of its log, for an error message. */
  tail(lines = 15): string {
    try {
      return readFileSync(this.logFile, 'utf8').trimEnd().split('\n').slice(-lines).join('\n');
    } catch {
      return '';
    }
  }
}
