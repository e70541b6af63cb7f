/**
 * Who this instance is, for the account lease, and what this host can tell about another holder: its
 * process, and — for a holder in this very process (tests start several instances in one) — whether that
 * instance is still running.
 */
import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';

export interface LeaseSelf {
  readonly instanceId: string;
  readonly host: string;
  readonly pid: number;
}

/** Instances of this process that hold or wait for a lease now (removed when they stop or release). */
const liveInProcess = new Set<string>();

/** A new instance id (random per start), on this host and process. */
export function newLeaseSelf(): LeaseSelf {
  return { instanceId: randomUUID(), host: hostname(), pid: process.pid };
}

export const instancesInProcess = {
  add: (instanceId: string): void => void liveInProcess.add(instanceId),
  remove: (instanceId: string): void => void liveInProcess.delete(instanceId),
  has: (instanceId: string): boolean => liveInProcess.has(instanceId),
};

/** Signal 0 probes a process: ESRCH means none has that pid; EPERM means one runs (another user's). */
export function pidAlive(pid: number): boolean {
  if (!Number.isSafeInteger(pid) || pid <= 0) return true; // not a process id: never "gone" (0 and -n are groups)
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}
