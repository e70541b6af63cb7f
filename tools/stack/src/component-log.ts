/**
 * A component's log file, `<data>/logs/<name>.log`, rotated by size (tester T1 F4: connector.log grew ~31 KB a
 * minute, ~1.3 GB a month, and nothing capped it). The child writes into a pipe the launcher reads at once and
 * for ever (a full pipe would stall the child: Node's stdout on a pipe is synchronous on Linux); whole lines are
 * appended here synchronously — the same disk write the child made itself when it held the file — so nothing
 * piles up in memory. Before an append would take the file past `maxBytes`, `<name>.log` becomes `<name>.log.1`,
 * `.1` becomes `.2` … and the oldest beyond `keep` is dropped; a line is never split across two files.
 */
import { closeSync, fstatSync, openSync, renameSync, writeSync } from 'node:fs';

export interface LogRotation {
  /** A file is rotated before an append would take it past this size (one longer append gets a file of its own). */
  maxBytes: number;
  /** Rotated files kept: `<name>.log.1` (newest) … `<name>.log.<keep>`. */
  keep: number;
}

/** A line longer than this without its newline is written as it stands (memory stays bounded). */
export const MAX_HELD_LINE_BYTES = 1_048_576;
const NEWLINE = 0x0a;

export class ComponentLog {
  private fd: number | undefined;
  private size = 0;
  private closed = false;
  /** Bytes that could not be written (a full disk); said in the file once writing works again. */
  private lostBytes = 0;

  constructor(
    readonly path: string,
    private readonly rotation: LogRotation,
    private readonly now: () => Date = () => new Date(),
  ) {
    this.open();
  }

  /** Appends `text`, whole lines (the caller's LineJoiner holds a line until its newline arrives). */
  append(text: Buffer): void {
    if (this.closed) return;
    if (this.fd === undefined) this.open(); // its last opening failed
    if (this.size > 0 && this.size + text.length > this.rotation.maxBytes) this.rotate();
    if (this.lostBytes > 0 && this.write(this.lostNotice())) this.lostBytes = 0;
    if (!this.write(text)) this.lostBytes += text.length;
  }

  close(): void {
    this.closed = true;
    if (this.fd !== undefined) closeSync(this.fd);
    this.fd = undefined;
  }

  private open(): void {
    try {
      this.fd = openSync(this.path, 'a');
      this.size = fstatSync(this.fd).size;
    } catch {
      this.fd = undefined; // no file (EMFILE, the folder gone): the lines are counted as lost until one opens
    }
  }

  private write(text: Buffer): boolean {
    const fd = this.fd;
    if (fd === undefined) return false;
    try {
      let done = 0;
      while (done < text.length) done += writeSync(fd, text, done, text.length - done);
      this.size += text.length;
      return true;
    } catch {
      return false; // ENOSPC and the like: the launcher runs on, the loss is said once a write succeeds
    }
  }

  private rotate(): void {
    try {
      if (this.fd !== undefined) closeSync(this.fd);
      this.fd = undefined;
      for (let n = this.rotation.keep - 1; n >= 1; n -= 1) renameIfThere(`${this.path}.${n}`, `${this.path}.${n + 1}`);
      renameSync(this.path, `${this.path}.1`);
    } catch {
      // a rename refused: append to whatever <name>.log is now rather than lose the lines
    }
    this.open();
  }

  private lostNotice(): Buffer {
    const line = {
      time: this.now().toISOString(),
      level: 'warn',
      app: 'stack',
      msg: 'log lines lost: could not be written',
      bytes: this.lostBytes,
    };
    return Buffer.from(`${JSON.stringify(line)}\n`);
  }
}

/** One output stream of a child (stdout or stderr), cut into whole lines for a ComponentLog shared by both. */
export class LineJoiner {
  private held: Buffer[] = [];
  private heldBytes = 0;

  constructor(private readonly out: (lines: Buffer) => void) {}

  push(chunk: Buffer): void {
    const end = chunk.lastIndexOf(NEWLINE);
    if (end === -1) {
      this.held.push(chunk);
      this.heldBytes += chunk.length;
      if (this.heldBytes >= MAX_HELD_LINE_BYTES) this.flush();
      return;
    }
    const whole = chunk.subarray(0, end + 1);
    this.out(this.heldBytes > 0 ? Buffer.concat([...this.held, whole]) : whole);
    this.held = [];
    this.heldBytes = 0;
    if (end + 1 < chunk.length) this.push(chunk.subarray(end + 1));
  }

  /** What is held without its newline (the stream ended, or the line outgrew the bound). */
  flush(): void {
    if (this.heldBytes === 0) return;
    this.out(Buffer.concat(this.held));
    this.held = [];
    this.heldBytes = 0;
  }
}

function renameIfThere(from: string, to: string): void {
  try {
    renameSync(from, to);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
}
