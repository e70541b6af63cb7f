import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';

const CLOCK_TICKS = Number(execFileSync('getconf', ['CLK_TCK']).toString().trim()) || 100;

/** User and system CPU time of a process so far, in microseconds (Linux /proc; tick resolution). */
export function processCpuSplit(pid: number): { user: number; system: number } {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return {
    user: (Number(fields[11]) * 1_000_000) / CLOCK_TICKS,
    system: (Number(fields[12]) * 1_000_000) / CLOCK_TICKS,
  };
}

/** User + system CPU time of a process so far, in microseconds. */
export function processCpuMicros(pid: number): number {
  const { user, system } = processCpuSplit(pid);
  return user + system;
}
