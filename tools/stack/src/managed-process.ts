/**
 * One component of the stack as a child process: its output (stdout and stderr, through pipes the launcher
 * drains) appended line by line to `<data>/logs/<name>.log`, rotated by size (component-log.ts), in its own
 * process group (a Ctrl-C in the terminal reaches only the launcher, which stops the components in reverse
 * order), stopped with SIGTERM and killed if it outlasts the stop timeout.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import type { Readable } from 'node:stream';
import { ComponentLog, LineJoiner, type LogRotation } from './component-log.js';
import type { ChildRecord } from './leftovers.js';

/** How long the rest of a child's output may take to arrive once it has exited (a grandchild may hold the pipe). */
const OUTPUT_DRAIN_MS = 2_000;

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
    rotation: LogRotation,
    /** How it is asked to stop: SIGTERM for the apps; nats-server exits 0 on SIGINT (1 on SIGTERM). */
    private readonly stopSignal: NodeJS.Signals = 'SIGTERM',
  ) {
    const log = new ComponentLog(logFile, rotation);
    this.child = spawn(command, args, { env, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
    const output = [this.child.stdout, this.child.stderr].map((stream) => drain(stream, log));
    const ended = async (exit: ProcessExit): Promise<ProcessExit> => {
      await Promise.race([Promise.all(output), new Promise((r) => setTimeout(r, OUTPUT_DRAIN_MS).unref())]);
      log.close(); // its last lines are in the file before anyone reads its tail
      this.done = true;
      return exit;
    };
    this.exited = new Promise((resolve) => {
      this.child.once('error', () => resolve(ended({ code: 127, signal: null })));
      this.child.once('exit', (code, signal) => resolve(ended({ code, signal })));
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

/**
 * Reads `stream` for as long as it runs, never paused (the child must not stall on a full pipe), into `log` in
 * whole lines; resolves once it has ended, with what was held flushed.
 */
function drain(stream: Readable | null, log: ComponentLog): Promise<void> {
  if (stream === null) return Promise.resolve();
  const lines = new LineJoiner((text) => log.append(text));
  stream.on('data', (chunk: Buffer) => lines.push(chunk));
  return new Promise((resolve) => {
    const end = (): void => {
      lines.flush();
      resolve();
    };
    stream.once('end', end);
    stream.once('close', end);
    stream.once('error', end);
  });
}
