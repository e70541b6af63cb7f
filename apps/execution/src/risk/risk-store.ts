/**
 * Trading states and run-time limit overrides in one NATS KV bucket shared by every execution instance of an
 * account. Each instance reads the bucket and watches it, feeding every change into its risk actor, so a halt
 * written by one instance is in effect at the others as soon as the watch delivers it (milliseconds).
 *
 * Writes are compare-and-set on the key's revision. While the bucket cannot be read (NATS down, the watch
 * ended) the risk actor is told the store is unreadable and refuses every order (fail closed); when NATS is
 * back the bucket is read afresh before orders are taken again, so a change made meanwhile is never missed.
 *
 * A bucket found declared afresh (its stream's creation time changed: NATS lost it, and an empty bucket reads
 * "all ACTIVE") is noticed at the reload that follows the outage, or by the periodic read when no outage was
 * seen; before the snapshot is applied and orders are taken again, the states and limit overrides this instance
 * last knew are handed to `restore` (written back where the new bucket holds nothing: see store-loss.ts).
 *
 * Keys: `state.global`, `state.strategy.<id>`, `state.accountGroup.<id>`, and the same under `limits.`; ids are
 * base64url-encoded (a strategy id may hold characters a key may not).
 */
import {
  TRADING_STATES,
  type RiskLimitOverride,
  type RiskLimitSet,
  type RiskScopeKind,
  type TradingState,
  type TradingStateEntry,
} from '#contracts';
import type { KvBucket, KvChange, KvWatch } from '#bus';
import type { Cancel, Clock } from '#actors';
import type { JsonLogger } from '#observability';
import { parseLimitSet, scopeKey, type Limits, type ScopeKey } from './limits.js';
import type { RiskEngine } from './risk-engine.js';
import type { KnownControls } from './store-loss.js';

export type StoredState = Omit<TradingStateEntry, 'revision'>;
/** A limit override as stored; `limits: null` records its removal (who and why are kept). */
export type StoredLimits = Omit<RiskLimitOverride, 'revision' | 'limits'> & { limits: RiskLimitSet | null };

export interface RiskStoreOptions {
  /** How often the connection is looked at for the fail-closed switch (ms). */
  checkIntervalMs?: number;
  /**
   * How often the global state is read directly (ms): NATS may be connected while JetStream does not answer
   * (a cluster without quorum), and then the watch is silent rather than broken. A failed read fails closed;
   * a newer global state than the one held (a missed delivery) is applied.
   */
  probeIntervalMs?: number;
  /** Least time between two attempts to read the bucket afresh while it cannot be read (ms). */
  reloadIntervalMs?: number;
}

export type StoreWrite<T> = { ok: true; revision: number; before: T | undefined } | { ok: false; conflict: true };

export interface RiskStoreDeps {
  connection: { readonly isUp: boolean };
  clock: Clock;
  logger: JsonLogger;
  /**
   * Writes back what this instance knew when the bucket is found declared afresh (RiskControl.restoreAfterLoss:
   * written, audited); throws when it could not write (the store stays unreadable and the next reload tries again).
   */
  restore: (known: KnownControls) => Promise<{ restored: number; kept: number }>;
}

export class RiskStore {
  private bucket: KvBucket | undefined;
  private watch: KvWatch | undefined;
  private watching = false;
  /** Counts reloads: each has its own watch, and only the newest one's changes are applied. */
  private generation = 0;
  private readable = false;
  private reloading: Promise<void> | undefined;
  private stopped = false;
  private timer: Cancel | undefined;
  private readonly overrides = new Map<ScopeKey, RiskLimitOverride>();
  private probeOk = true;
  private probing = false;
  private lastProbe = 0;
  private lastReload = Number.NEGATIVE_INFINITY;
  /** The creation time of the bucket's stream as last read: another one is a bucket declared afresh (lost). */
  private bucketCreated: string | undefined;

  constructor(
    /** Opens the bucket (creating it when absent): called at every reload, so a NATS that lost it gets it back. */
    private readonly openBucket: () => Promise<KvBucket>,
    private readonly engine: RiskEngine,
    private readonly deps: RiskStoreDeps,
    private readonly options: RiskStoreOptions = {},
  ) {}

  /** Reads the bucket and starts watching it; throws when it cannot be read (the caller decides). */
  async start(): Promise<void> {
    await this.reload();
    this.timer = this.deps.clock.setInterval(() => this.check(), this.options.checkIntervalMs ?? 250);
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.timer?.();
    this.watch?.stop();
    await this.reloading?.catch(() => undefined);
  }

  /** Run-time limit overrides with who set them (for the limits query). */
  get limitOverrides(): RiskLimitOverride[] {
    return [...this.overrides.values()];
  }

  /** Compare-and-set of one scope's trading state (`expectedRevision` absent: retried on a concurrent write). */
  async writeState(stored: StoredState, expectedRevision?: number): Promise<StoreWrite<TradingStateEntry>> {
    return this.write<StoredState, TradingStateEntry>(
      keyOf('state', stored.scope, stored.id),
      stored,
      expectedRevision,
      (value, revision) => stateEntryOf(value, revision),
    );
  }

  /** Compare-and-set of one scope's limit override; `limits: null` removes it (the file's entry applies again). */
  async writeLimits(stored: StoredLimits, expectedRevision?: number): Promise<StoreWrite<RiskLimitSet>> {
    return this.write<StoredLimits, RiskLimitSet>(
      keyOf('limits', stored.scope, stored.id),
      stored,
      expectedRevision,
      (value) => value.limits ?? undefined,
    );
  }

  private async write<V extends object, B>(
    key: string,
    value: V,
    expectedRevision: number | undefined,
    beforeOf: (value: V, revision: number) => B | undefined,
  ): Promise<StoreWrite<B>> {
    const bucket = this.bucket ?? (await this.openBucket());
    for (let attempt = 0; attempt < 10; attempt += 1) {
      const current = await bucket.get<V>(key);
      const revision = current?.revision ?? 0;
      if (expectedRevision !== undefined && expectedRevision !== revision) return { ok: false, conflict: true };
      const written = await bucket.compareAndSet(key, value, revision);
      if (written === 'conflict') {
        if (expectedRevision !== undefined) return { ok: false, conflict: true };
        continue;
      }
      // applied here at once, not only when the watch brings it back: the next order on this instance sees it
      this.apply({ key, value, revision: written });
      return { ok: true, revision: written, before: current ? beforeOf(current.value, current.revision) : undefined };
    }
    return { ok: false, conflict: true };
  }

  private check(): void {
    if (this.stopped) return;
    const now = this.deps.clock.now();
    if (this.readable && !this.probing && now - this.lastProbe >= (this.options.probeIntervalMs ?? 2_000)) {
      this.lastProbe = now;
      this.probing = true;
      void this.probe().finally(() => {
        this.probing = false;
      });
    }
    const healthy = this.deps.connection.isUp && this.watching && this.probeOk;
    if (!healthy && this.readable) {
      this.readable = false;
      this.engine.storeReadable(false);
      this.deps.logger.warn('trading states cannot be read: orders are refused until they can (fail closed)');
    }
    const due = now - this.lastReload >= (this.options.reloadIntervalMs ?? 1_000);
    if (!this.readable && due && this.deps.connection.isUp && this.reloading === undefined) {
      this.lastReload = now;
      this.reloading = this.reload()
        .then(() => this.deps.logger.info('trading states read again; orders are taken'))
        .catch((error: unknown) =>
          this.deps.logger.warn('trading states still cannot be read', {
            error: error instanceof Error ? error.message : String(error),
          }),
        )
        .finally(() => {
          this.reloading = undefined;
        });
    }
  }

  /** Reads the global state directly; a failure fails closed at the next check, a newer state is applied. */
  private async probe(): Promise<void> {
    const bucket = this.bucket;
    if (bucket === undefined) return;
    const key = keyOf('state', 'global');
    try {
      // a bucket declared afresh while this instance stayed connected: fail closed, and the reload restores
      if ((await bucket.created()) !== this.bucketCreated) {
        this.probeOk = false;
        this.deps.logger.warn('the trading-state store was declared afresh (NATS lost it): reading it again');
        return;
      }
      const entry = await bucket.get<unknown>(key);
      const held = this.engine.state.states.entries.get('global')?.revision ?? 0;
      if (entry !== undefined && entry.revision > held) {
        this.deps.logger.warn('the global trading state was read directly, newer than the watch had delivered');
        this.apply({ key, value: entry.value, revision: entry.revision });
      }
    } catch (error) {
      this.probeOk = false;
      this.deps.logger.warn('the trading-state store does not answer', {
        error: error instanceof Error ? error.message : String(error),
      });
    }
  }

  private async reload(): Promise<void> {
    this.watch?.stop();
    this.watch = undefined;
    this.watching = false;
    const bucket = await this.openBucket();
    this.bucket = bucket;
    const created = await bucket.created();
    if (this.bucketCreated !== undefined && created !== this.bucketCreated) await this.restoreAfterLoss(created);
    this.bucketCreated = created;
    // Changes the new watch delivers before the snapshot is applied would be overwritten by it: held back until then.
    const early: KvChange<unknown>[] = [];
    let held = true;
    const generation = (this.generation += 1);
    const { initial, watch } = await bucket.watch<unknown>('>', (change) => {
      if (generation !== this.generation) return; // a late delivery of a watch this reload replaced
      if (held) early.push(change);
      else this.apply(change);
    });
    if (this.stopped) {
      watch.stop();
      return;
    }
    this.watch = watch;
    this.watching = true;
    void watch.ended.then(
      () => this.watchEnded(watch),
      () => this.watchEnded(watch),
    );
    const states: TradingStateEntry[] = [];
    const overrides: [ScopeKey, Limits | 'invalid'][] = [];
    this.overrides.clear();
    for (const change of initial) {
      const parsed = parseKey(change.key);
      if (parsed === undefined) continue;
      if (parsed.kind === 'state') {
        states.push(stateEntryOf(change.value, change.revision, parsed));
      } else if (!isRemoval(change.value)) {
        const override = this.overrideOf(change, parsed);
        overrides.push([scopeKey(parsed.scope, parsed.id), override ? parseLimitSet(override.limits) : 'invalid']);
      }
    }
    this.engine.storeSnapshot(states, overrides);
    held = false;
    for (const change of early) this.apply(change);
    this.probeOk = true;
    this.readable = true;
  }

  /**
   * The bucket was declared afresh: what this instance knew (its view is kept while the store is unreadable) is
   * written back before the snapshot is read. Throws when it could not be: orders stay refused, the next reload
   * finds the bucket still new to it and tries again (what was written meanwhile is kept).
   */
  private async restoreAfterLoss(created: string): Promise<void> {
    const known: KnownControls = {
      states: [...this.engine.state.states.entries.values()],
      overrides: [...this.overrides.values()],
    };
    this.deps.logger.error('the trading-state store was declared afresh: NATS lost it; writing back what was known', {
      createdBefore: this.bucketCreated,
      createdNow: created,
      states: known.states.filter((entry) => entry.state !== 'ACTIVE').length,
      overrides: known.overrides.length,
    });
    const { restored, kept } = await this.deps.restore(known);
    this.deps.logger.warn('trading states and limit overrides written back after the store was lost', {
      restored,
      keptNewer: kept,
    });
  }

  private watchEnded(watch: KvWatch): void {
    if (this.watch === watch) this.watching = false;
  }

  private apply(change: KvChange<unknown>): void {
    const parsed = parseKey(change.key);
    if (parsed === undefined) return;
    if (parsed.kind === 'state') {
      if (change.value === undefined && !change.malformed) this.engine.stateRemoved(parsed.scope, parsed.id);
      else this.engine.stateStored(stateEntryOf(change.value, change.revision, parsed));
      return;
    }
    const key = scopeKey(parsed.scope, parsed.id);
    if ((change.value === undefined && !change.malformed) || isRemoval(change.value)) {
      this.overrides.delete(key);
      this.engine.limitsChanged(key, null);
      return;
    }
    const override = this.overrideOf(change, parsed);
    this.engine.limitsChanged(key, override === undefined ? 'invalid' : parseLimitSet(override.limits));
  }

  private overrideOf(
    change: KvChange<unknown>,
    scope: { scope: RiskScopeKind; id?: string },
  ): RiskLimitOverride | undefined {
    const key = scopeKey(scope.scope, scope.id);
    const value = change.value as Partial<StoredLimits> | undefined;
    if (
      value === undefined ||
      typeof value !== 'object' ||
      value === null ||
      parseLimitSet(value.limits) === 'invalid'
    ) {
      this.deps.logger.warn('a stored limit override does not validate: orders of its scope are refused', {
        key: change.key,
      });
      this.overrides.delete(key);
      return undefined;
    }
    const override: RiskLimitOverride = {
      scope: scope.scope,
      ...(scope.id !== undefined ? { id: scope.id } : {}),
      limits: value.limits as RiskLimitSet,
      by: String(value.by ?? ''),
      reason: String(value.reason ?? ''),
      at: String(value.at ?? ''),
      revision: change.revision,
    };
    this.overrides.set(key, override);
    return override;
  }
}

/**
 * A stored state entry as the risk actor takes it. An entry that is not a valid state (written by hand, or by a
 * newer version) is taken as HALTED: an unreadable state must not let orders through.
 */
function stateEntryOf(
  value: unknown,
  revision: number,
  scope?: { scope: RiskScopeKind; id?: string },
): TradingStateEntry {
  const stored = (value ?? {}) as Partial<StoredState>;
  const where = scope ?? { scope: stored.scope ?? 'global', ...(stored.id !== undefined ? { id: stored.id } : {}) };
  const valid = typeof stored.state === 'string' && (TRADING_STATES as readonly string[]).includes(stored.state);
  return {
    scope: where.scope,
    ...(where.id !== undefined ? { id: where.id } : {}),
    state: valid ? (stored.state as TradingState) : 'HALTED',
    by: String(stored.by ?? ''),
    reason: valid ? String(stored.reason ?? '') : 'the stored trading state is not readable (taken as HALTED)',
    at: String(stored.at ?? ''),
    revision,
  };
}

function isRemoval(value: unknown): boolean {
  return typeof value === 'object' && value !== null && (value as { limits?: unknown }).limits === null;
}

export function keyOf(kind: 'state' | 'limits', scope: RiskScopeKind, id?: string): string {
  return scope === 'global' ? `${kind}.global` : `${kind}.${scope}.${Buffer.from(id ?? '').toString('base64url')}`;
}

function parseKey(key: string): { kind: 'state' | 'limits'; scope: RiskScopeKind; id?: string } | undefined {
  const [kind, scope, encoded] = key.split('.');
  if (kind !== 'state' && kind !== 'limits') return undefined;
  if (scope === 'global') return { kind, scope };
  if ((scope === 'strategy' || scope === 'accountGroup') && encoded) {
    return { kind, scope, id: Buffer.from(encoded, 'base64url').toString() };
  }
  return undefined;
}
