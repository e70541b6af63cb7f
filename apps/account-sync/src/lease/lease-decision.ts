/**
 * The account's single-writer lease, as pure decisions (no I/O, no clock): what an instance does with the
 * lease it read, and when a holder must give up. The shell (account-lease.ts) reads and writes the KV key and
 * measures time; docs/account-sync.md#one-writer-per-account explains why the times are safe.
 */

/** Who holds (or last held) the lease: the value of the account's key in the lease bucket. */
export interface LeaseHolder {
  /** Random per instance start. */
  readonly instanceId: string;
  readonly host: string;
  readonly pid: number;
  /** The holder's own clock at its last renewal (for people; decisions never compare it with another clock). */
  readonly renewedAt: string;
  /** Written by a clean stop: the next instance takes the lease at once. */
  readonly released?: true;
}

/** The lease as read: its value and its revision (every renewal makes a new one). */
export interface SeenLease {
  readonly holder: LeaseHolder;
  readonly revision: number;
  /** The server's time of the write (epoch ms), for logs and /health. */
  readonly storedAt: number;
}

/**
 * What this host can tell of the holder: `dead` only when the holder ran on this host and its process is gone
 * (or it is an instance of this very process that is known stopped); `alive` when it is known to run here;
 * `unknown` for another host.
 */
export type HolderLiveness = 'alive' | 'dead' | 'unknown';

export interface AcquireFacts {
  readonly self: { readonly instanceId: string };
  readonly liveness: HolderLiveness;
  /** How long this instance has seen the lease at the same revision (its own monotonic clock). */
  readonly unchangedForMs: number;
  readonly leaseMs: number;
}

export const TAKE_REASONS = ['free', 'released', 'lapsed', 'holder-gone', 'own'] as const;
export type TakeReason = (typeof TAKE_REASONS)[number];

export type AcquireDecision =
  | { readonly kind: 'create' }
  | { readonly kind: 'take'; readonly revision: number; readonly reason: TakeReason }
  | { readonly kind: 'wait' };

/** Free → create; released, lapsed, its holder gone, or our own → take it by compare-and-set; else wait. */
export function decideAcquire(seen: SeenLease | undefined, facts: AcquireFacts): AcquireDecision {
  if (seen === undefined) return { kind: 'create' };
  const take = (reason: TakeReason): AcquireDecision => ({ kind: 'take', revision: seen.revision, reason });
  if (seen.holder.released === true) return take('released');
  if (seen.holder.instanceId === facts.self.instanceId) return take('own');
  if (facts.liveness === 'dead') return take('holder-gone');
  // a holder that did not renew for the lease time has fenced itself (leaseTimings), even if its process runs
  if (facts.unchangedForMs >= facts.leaseMs) return take('lapsed');
  return { kind: 'wait' };
}

/**
 * The holder's liveness as seen from `self`. A holder with this process's pid on this host is either a live
 * instance of this process (`liveHere`) or dead: this process has that pid now, so an earlier process that had
 * it (a container restarted with the same pid) has ended.
 */
export function holderLiveness(
  holder: LeaseHolder,
  self: { readonly host: string; readonly pid: number },
  liveHere: (instanceId: string) => boolean,
  pidAlive: (pid: number) => boolean,
): HolderLiveness {
  if (holder.host !== self.host) return 'unknown';
  if (holder.pid === self.pid) return liveHere(holder.instanceId) ? 'alive' : 'dead';
  return pidAlive(holder.pid) ? 'alive' : 'dead';
}

/** What a renewal that lost its compare-and-set found under the key. */
export type ConflictDecision =
  | { readonly kind: 'recreate' }
  | { readonly kind: 'adopt'; readonly revision: number }
  | { readonly kind: 'lost'; readonly holder: LeaseHolder };

/**
 * Gone (the store was emptied or purged) → write it again; ours (an earlier renewal was stored but its answer
 * lost) → go on from that revision; anyone else's, or released → lost: stop writing.
 */
export function decideConflict(seen: SeenLease | undefined, self: { readonly instanceId: string }): ConflictDecision {
  if (seen === undefined) return { kind: 'recreate' };
  if (seen.holder.instanceId === self.instanceId && seen.holder.released !== true) {
    return { kind: 'adopt', revision: seen.revision };
  }
  return { kind: 'lost', holder: seen.holder };
}

export interface LeaseTimings {
  /** A holder renews this often. */
  readonly renewEveryMs: number;
  /**
   * A holder whose last successful renewal was sent longer ago than this stops writing. Shorter than the lease
   * by one renewal period: it stops before a standby, which counts the full lease from a later moment (when it
   * first saw that revision, after it was written), can take over.
   */
  readonly fenceAfterMs: number;
  /**
   * A standby reads the lease again this often; a holder whose renewal is due and failed (or is unanswered) tries
   * again this often, so a NATS back after an outage is used at once rather than at the next renewal period.
   */
  readonly retryEveryMs: number;
  readonly watchdogEveryMs: number;
}

export function leaseTimings(leaseMs: number): LeaseTimings {
  const renewEveryMs = Math.floor(leaseMs / 4);
  return {
    renewEveryMs,
    fenceAfterMs: leaseMs - renewEveryMs,
    retryEveryMs: Math.min(1_000, renewEveryMs),
    watchdogEveryMs: Math.max(25, Math.min(250, Math.floor(leaseMs / 20))),
  };
}

/**
 * The holder's watchdog: renew when due — a renewal period after the last good one — and then every retry period
 * until one succeeds (an attempt unanswered for a retry period does not hold up the next: both write the same
 * revision, the later one adopts); fence when no renewal succeeded in time.
 */
export function holderStep(
  now: number,
  held: { readonly lastRenewalSentAt: number; readonly lastAttemptAt: number; readonly inFlight: boolean },
  timings: LeaseTimings,
): 'fence' | 'renew' | 'idle' {
  if (now - held.lastRenewalSentAt > timings.fenceAfterMs) return 'fence';
  const due = now - held.lastRenewalSentAt >= timings.renewEveryMs;
  if (due && !held.inFlight && now - held.lastAttemptAt >= timings.retryEveryMs) return 'renew';
  return 'idle';
}
