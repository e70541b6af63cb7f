/**
 * The account's single-writer lease (docs/account-sync.md#one-writer-per-account): one key per account in the
 * lease bucket, written only by compare-and-set. This shell reads and writes the key and keeps time; what to
 * do with what it read is decided by lease-decision.ts. `begin()` takes the lease or finds it held (standby,
 * retried every second); `held()` settles when it is taken; while held it renews and, when the lease is taken
 * by someone else or cannot be renewed in time, reports it lost (the app then stops at once). `release()` is
 * a clean stop's last step.
 */
import type { KvBucket } from '#bus';
import { systemClock, type Cancel, type Clock } from '#actors';
import type { JsonLogger } from '#observability';
import {
  decideAcquire,
  decideConflict,
  holderLiveness,
  holderStep,
  leaseTimings,
  type LeaseHolder,
  type LeaseTimings,
  type SeenLease,
  type TakeReason,
} from './lease-decision.js';
import { instancesInProcess, pidAlive, type LeaseSelf } from './lease-identity.js';

export type LeaseStatus =
  | { readonly kind: 'reading' }
  | { readonly kind: 'standby'; readonly seen: SeenLease }
  | { readonly kind: 'holding' }
  | { readonly kind: 'lost'; readonly reason: string }
  | { readonly kind: 'stopped' };

export interface LeaseEvents {
  statusChanged(status: LeaseStatus): void;
  taken(reason: TakeReason): void;
}

export interface AccountLeaseOptions {
  readonly key: string;
  readonly leaseMs: number;
  readonly self: LeaseSelf;
  readonly logger: JsonLogger;
  readonly events?: LeaseEvents;
  /** Timers; `monotonicNow` measures every duration (never compared with another host's clock). */
  readonly clock?: Clock;
  readonly monotonicNow?: () => number;
  /** Whether a process of this host runs (the default probes it with signal 0). */
  readonly pidAlive?: (pid: number) => boolean;
}

interface Held {
  revision: number;
  lastRenewalSentAt: number;
  lastAttemptAt: number;
  renewal: Promise<void> | undefined;
}

export class AccountLease {
  private current: LeaseStatus = { kind: 'reading' };
  private held: Held | undefined;
  private observed: { revision: number; since: number } | undefined;
  private reportedHolder: string | undefined;
  private unreadable = false;
  private timer: Cancel | undefined;
  private readonly timings: LeaseTimings;
  private readonly clock: Clock;
  private readonly now: () => number;
  private readonly lostListeners: Array<(reason: string) => void> = [];
  private settleHeld: (held: boolean) => void = () => undefined;
  private readonly heldPromise: Promise<boolean>;

  constructor(
    private readonly bucket: Pick<KvBucket, 'get' | 'compareAndSet'>,
    private readonly options: AccountLeaseOptions,
  ) {
    this.timings = leaseTimings(options.leaseMs);
    this.clock = options.clock ?? systemClock;
    this.now = options.monotonicNow ?? (() => performance.now());
    this.heldPromise = new Promise((resolve) => (this.settleHeld = resolve));
  }

  get status(): LeaseStatus {
    return this.current;
  }

  /** Takes the lease, or finds it held by a live holder and goes on waiting: 'held' or 'standby'. */
  async begin(): Promise<'held' | 'standby'> {
    instancesInProcess.add(this.options.self.instanceId);
    await this.attempt();
    return this.current.kind === 'holding' ? 'held' : 'standby';
  }

  /** True once held; false when stopped (or lost) before. */
  whenHeld(): Promise<boolean> {
    return this.heldPromise;
  }

  onLost(listener: (reason: string) => void): void {
    this.lostListeners.push(listener);
  }

  /** A clean stop's last step: marks the lease released (compare-and-set), so a standby takes it at once. */
  async release(): Promise<void> {
    const held = this.held;
    this.timer?.(); // no renewal starts from here on; the one in flight ends first (its revision is the one to release)
    this.timer = undefined;
    await held?.renewal;
    this.stop();
    if (held === undefined) return;
    const written = await this.bucket
      .compareAndSet(this.options.key, this.value({ released: true }), held.revision)
      .catch((error: unknown) => messageOf(error));
    if (typeof written === 'number') this.options.logger.info('account lease released', this.described());
    else
      this.options.logger.warn('account lease not released: a standby takes over after the lease time', {
        problem: written,
      });
  }

  /** Stops waiting or renewing, without releasing (a standby stopping; a holder that lost the lease). */
  stop(): void {
    this.timer?.();
    this.timer = undefined;
    this.held = undefined;
    instancesInProcess.remove(this.options.self.instanceId);
    if (this.current.kind !== 'lost') this.setStatus({ kind: 'stopped' });
    this.settleHeld(false);
  }

  /** One read and, when the lease is free, released, lapsed or its holder gone, one compare-and-set. */
  private async attempt(): Promise<void> {
    if (this.current.kind === 'stopped') return;
    try {
      const seen = await this.read();
      const decision = decideAcquire(seen, {
        self: this.options.self,
        liveness: seen === undefined ? 'unknown' : this.liveness(seen.holder),
        unchangedForMs: seen === undefined ? 0 : this.unchangedFor(seen.revision),
        leaseMs: this.options.leaseMs,
      });
      if (decision.kind !== 'wait') {
        const revision = decision.kind === 'create' ? 0 : decision.revision;
        const sentAt = this.now();
        const written = await this.bucket.compareAndSet(this.options.key, this.value(), revision);
        if (typeof written === 'number')
          return this.hold(written, sentAt, decision.kind === 'create' ? 'free' : decision.reason, seen);
        return this.retry(0); // someone wrote it between the read and the write: read again now
      }
      if (seen !== undefined) this.standby(seen);
      this.unreadable = false;
    } catch (error) {
      // once per streak of failures (NATS down: every second otherwise)
      if (!this.unreadable)
        this.options.logger.warn('account lease not readable: retrying every second', { problem: messageOf(error) });
      this.unreadable = true;
    }
    this.retry(this.timings.retryEveryMs);
  }

  private retry(delayMs: number): void {
    if (this.current.kind === 'stopped') return;
    this.timer = this.clock.setTimeout(() => void this.attempt(), delayMs);
  }

  private hold(revision: number, sentAt: number, reason: TakeReason, previous: SeenLease | undefined): void {
    if (this.current.kind === 'stopped') {
      // stopped while this write was under way: give it back at once rather than leave it to lapse
      void this.bucket.compareAndSet(this.options.key, this.value({ released: true }), revision).catch(() => undefined);
      return;
    }
    this.held = { revision, lastRenewalSentAt: sentAt, lastAttemptAt: sentAt, renewal: undefined };
    this.options.logger.info('account lease taken: this instance writes for the account', {
      ...this.described(),
      reason,
      ...(previous === undefined || reason === 'own' ? {} : { previous: holderFields(previous) }),
    });
    this.options.events?.taken(reason);
    this.setStatus({ kind: 'holding' });
    this.timer = this.clock.setInterval(() => this.watch(), this.timings.watchdogEveryMs);
    this.settleHeld(true);
  }

  private watch(): void {
    const held = this.held;
    if (held === undefined) return;
    const now = this.now();
    // a renewal unanswered for a retry period (sent to a server that went away) does not hold up the next
    const inFlight = held.renewal !== undefined && now - held.lastAttemptAt < this.timings.retryEveryMs;
    const step = holderStep(now, { ...held, inFlight }, this.timings);
    if (step === 'fence') this.lose(`not renewed for more than ${this.timings.fenceAfterMs} ms`);
    if (step === 'renew') {
      const renewal = this.renew(held).finally(() => {
        if (held.renewal === renewal) held.renewal = undefined;
      });
      held.renewal = renewal;
    }
  }

  private async renew(held: Held): Promise<void> {
    const sentAt = this.now();
    held.lastAttemptAt = sentAt;
    try {
      const written = await this.bucket.compareAndSet(this.options.key, this.value(), held.revision);
      if (typeof written === 'number') return this.renewed(held, written, sentAt);
      const conflict = decideConflict(await this.read(), this.options.self);
      if (conflict.kind === 'lost') return this.lose(`taken by ${describeHolder(conflict.holder)}`);
      if (conflict.kind === 'adopt') {
        held.revision = conflict.revision;
        held.lastAttemptAt = 0; // renew from that revision at the next tick
        return;
      }
      const recreated = await this.bucket.compareAndSet(this.options.key, this.value(), 0);
      if (typeof recreated === 'number') {
        this.options.logger.warn('account lease was gone (NATS store emptied?): written again', this.described());
        this.renewed(held, recreated, sentAt);
      }
    } catch (error) {
      this.options.logger.warn('account lease renewal failed', { problem: messageOf(error) });
    }
  }

  private renewed(held: Held, revision: number, sentAt: number): void {
    // released or lost meanwhile, or the late answer of an earlier renewal (the next one conflicts and adopts)
    if (this.held !== held || sentAt < held.lastRenewalSentAt) return;
    held.revision = revision;
    held.lastRenewalSentAt = sentAt;
  }

  private lose(reason: string): void {
    if (this.held === undefined) return;
    this.setStatus({ kind: 'lost', reason });
    this.stop();
    this.options.logger.error('account lease lost: this instance must stop writing at once', {
      ...this.described(),
      reason,
    });
    for (const listener of this.lostListeners) listener(reason);
  }

  private standby(seen: SeenLease): void {
    this.setStatus({ kind: 'standby', seen });
    if (this.reportedHolder === seen.holder.instanceId) return;
    this.reportedHolder = seen.holder.instanceId;
    this.options.logger.warn(
      `standby: account held by ${describeHolder(seen.holder)}; this instance waits and takes over when it is released or not renewed for ${this.options.leaseMs} ms`,
      { ...this.described(), holder: holderFields(seen) },
    );
  }

  private async read(): Promise<SeenLease | undefined> {
    const entry = await this.bucket.get<LeaseHolder>(this.options.key);
    return entry === undefined
      ? undefined
      : { holder: entry.value, revision: entry.revision, storedAt: entry.storedAt };
  }

  private unchangedFor(revision: number): number {
    const now = this.now();
    if (this.observed?.revision !== revision) this.observed = { revision, since: now };
    return now - this.observed.since;
  }

  private liveness(holder: LeaseHolder) {
    return holderLiveness(holder, this.options.self, instancesInProcess.has, this.options.pidAlive ?? pidAlive);
  }

  private value(extra: { released?: true } = {}): LeaseHolder {
    const { instanceId, host, pid } = this.options.self;
    return { instanceId, host, pid, renewedAt: new Date().toISOString(), ...extra };
  }

  private setStatus(status: LeaseStatus): void {
    this.current = status;
    this.options.events?.statusChanged(status);
  }

  private described(): Record<string, unknown> {
    const { instanceId, host, pid } = this.options.self;
    return { lease: this.options.key, instanceId, host, pid };
  }
}

export function describeHolder(holder: LeaseHolder): string {
  return `instance ${holder.instanceId} on host ${holder.host} (pid ${holder.pid})`;
}

function holderFields(seen: SeenLease): Record<string, unknown> {
  const { instanceId, host, pid } = seen.holder;
  return { instanceId, host, pid, renewedAt: new Date(seen.storedAt).toISOString(), revision: seen.revision };
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
