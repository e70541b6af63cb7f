/**
 * The limits file (`RISK_LIMITS_FILE`): read and validated at start-up. A file that cannot be read, is not
 * JSON or holds a bad entry is refused with every problem named (never the file's contents).
 */
import { readFileSync, statSync } from 'node:fs';
import { limitsFileProblems } from '#contracts';
import { limitsConfigFrom, LimitsFileError, type LimitsConfig } from './limits.js';

const MAX_FILE_BYTES = 16 * 1024 * 1024;

/** The limits in effect from the file, or (no file) none beyond the quote checks and trading states. */
export function loadLimitsFile(path: string | undefined): LimitsConfig {
  if (path === undefined || path === '') return limitsConfigFrom({});
  return limitsConfigFrom(readLimitsJson(path));
}

/** Problems of the file at `path` for the config's start-up check (each names the bad entry); [] when valid. */
export function limitsFileProblemsAt(path: string): string[] {
  try {
    return limitsFileProblems(readLimitsJson(path)).map((problem) => `RISK_LIMITS_FILE: ${problem}`);
  } catch (error) {
    return [
      error instanceof LimitsFileError
        ? `RISK_LIMITS_FILE: ${error.problems.join('; ')}`
        : 'RISK_LIMITS_FILE cannot be read',
    ];
  }
}

function readLimitsJson(path: string): unknown {
  let text: string;
  try {
    // judged before reading: /dev/zero or a pipe never ends, and a huge file would be read whole first
    const stat = statSync(path);
    if (!stat.isFile()) throw new LimitsFileError(['the file is not a regular file']);
    if (stat.size > MAX_FILE_BYTES) throw new LimitsFileError([`the file is larger than ${MAX_FILE_BYTES} bytes`]);
    const buffer = readFileSync(path);
    if (buffer.length > MAX_FILE_BYTES) throw new LimitsFileError([`the file is larger than ${MAX_FILE_BYTES} bytes`]);
    text = buffer.toString('utf8');
  } catch (error) {
    if (error instanceof LimitsFileError) throw error;
    throw new LimitsFileError([`the file cannot be read (${(error as NodeJS.ErrnoException).code ?? 'error'})`]);
  }
  try {
    return JSON.parse(text) as unknown;
  } catch (error) {
    throw new LimitsFileError([
      `the file is not JSON (${error instanceof Error ? error.message.slice(0, 120) : 'parse error'})`,
    ]);
  }
}
