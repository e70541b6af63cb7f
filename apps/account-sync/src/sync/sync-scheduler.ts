/**
 * When each resource is read: a full read of everything at start, then each resource on its interval
 * (fast or slow), and at once (after a short coalescing delay) when a trigger names it. One run per resource
 * at a time; a request arriving during a run is remembered and runs after it (a later full request wins over
 * an incremental one). Failures are counted and logged; the resource is tried again on its next turn.
 */
import type { JsonLogger } from '#observability';
import { SyncStoppedError, type SyncEngine, type SyncMode } from './sync-engine.js';
import type { SyncMetrics } from './sync-metrics.js';
import {
  resourcesTouchedBy,
  SYNC_RESOURCES,
  type RefreshCause,
  type SyncResource,
  type SyncTriggers,
} from './sync-triggers.js';

export interface ScheduleSettings {
  fastIntervalMs: number;
  slowIntervalMs: number;
  triggerDelayMs: number;
  staleIntervals: number;
}

const SLOW: ReadonlySet<SyncResource> = new Set(['accountDetails', 'beneficiaries', 'senders', 'pairs']);
/** Read per account group: they wait for the first balances read (which lists the groups). */
const PER_GROUP: ReadonlySet<SyncResource> = new Set(['accountDetails', 'beneficiaries', 'senders']);

interface Lane {
  running: Promise<void> | undefined;
  queued: SyncMode | undefined;
  timer: NodeJS.Timeout | undefined;
  lastOkAt: number | undefined;
  lastError: string | undefined;
}

export class SyncScheduler implements SyncTriggers {
  private readonly lanes = new Map<SyncResource, Lane>();
  private stopped = true;
  private startedAt: number | undefined;
  private readonly log: JsonLogger;

  constructor(
    private readonly engine: SyncEngine,
    private readonly settings: ScheduleSettings,
    private readonly metrics: SyncMetrics,
    logger: JsonLogger,
    private readonly now: () => number = Date.now,
  ) {
    this.log = logger.child('SyncScheduler');
    for (const resource of SYNC_RESOURCES) {
      this.lanes.set(resource, {
        running: undefined,
        queued: undefined,
        timer: undefined,
        lastOkAt: undefined,
        lastError: undefined,
      });
    }
  }

  intervalOf(resource: SyncResource): number {
    return SLOW.has(resource) ? this.settings.slowIntervalMs : this.settings.fastIntervalMs;
  }

  /** Starts the full read of every resource (not awaited: the app serves while it runs). */
  start(): void {
    this.stopped = false;
    this.startedAt = this.now();
    const balances = this.request('balances', 'full');
    // The two long histories one after the other, trades first, so each gets the whole spare budget.
    const trades = this.request('trades', 'full');
    for (const resource of SYNC_RESOURCES) {
      if (resource === 'balances' || resource === 'trades') continue;
      if (PER_GROUP.has(resource)) void balances.finally(() => this.request(resource, 'full'));
      else if (resource === 'transactions') void trades.finally(() => this.request(resource, 'full'));
      else void this.request(resource, 'full');
    }
  }

  /** Stops timers, takes no new run, and waits for the runs in progress to end. */
  async stop(): Promise<void> {
    this.stopped = true;
    this.engine.abort();
    for (const lane of this.lanes.values()) {
      clearTimeout(lane.timer);
      lane.queued = undefined;
    }
    await Promise.allSettled([...this.lanes.values()].map((lane) => lane.running));
  }

  refreshAfter(cause: RefreshCause): void {
    this.metrics.triggers.inc({ cause: cause.kind });
    for (const resource of resourcesTouchedBy(cause)) this.soon(resource);
  }

  /**
   * Milliseconds since the resource's last successful read — or, before the first, since the sync started (a
   * venue unreadable from the start grows stale like one lost later); undefined before `start`.
   */
  ageOf(resource: SyncResource): number | undefined {
    const at = this.lanes.get(resource)?.lastOkAt ?? this.startedAt;
    return at === undefined ? undefined : this.now() - at;
  }

  /** Resources never read yet or read longer ago than `staleIntervals` of their interval. */
  staleResources(): Array<{ resource: SyncResource; detail: string }> {
    const stale: Array<{ resource: SyncResource; detail: string }> = [];
    for (const [resource, lane] of this.lanes) {
      const age = this.ageOf(resource);
      const limit = this.intervalOf(resource) * this.settings.staleIntervals;
      if (age === undefined || lane.lastOkAt === undefined)
        stale.push({ resource, detail: lane.lastError ?? 'first read not finished' });
      else if (age > limit)
        stale.push({
          resource,
          detail: `last read ${Math.round(age / 1000)} s ago${lane.lastError ? `: ${lane.lastError}` : ''}`,
        });
    }
    return stale;
  }

  /** Resolves when the resource's current and queued runs are done (tests, the first full sync). */
  async settled(resource: SyncResource): Promise<void> {
    const lane = this.laneOf(resource);
    while (lane.running !== undefined) await lane.running;
  }

  private soon(resource: SyncResource): void {
    if (this.stopped) return;
    const lane = this.laneOf(resource);
    clearTimeout(lane.timer);
    lane.timer = setTimeout(() => void this.request(resource, 'incremental'), this.settings.triggerDelayMs);
  }

  private request(resource: SyncResource, mode: SyncMode): Promise<void> {
    const lane = this.laneOf(resource);
    if (this.stopped) return Promise.resolve();
    if (lane.running !== undefined) {
      lane.queued = lane.queued === 'full' || mode === 'full' ? 'full' : 'incremental';
      return lane.running;
    }
    clearTimeout(lane.timer);
    lane.running = this.runOnce(resource, mode, lane).finally(() => {
      lane.running = undefined;
      const queued = lane.queued;
      lane.queued = undefined;
      if (this.stopped) return;
      if (queued !== undefined) void this.request(resource, queued);
      else lane.timer = setTimeout(() => void this.request(resource, 'incremental'), this.intervalOf(resource));
    });
    return lane.running;
  }

  private async runOnce(resource: SyncResource, mode: SyncMode, lane: Lane): Promise<void> {
    try {
      await this.engine.run(resource, mode);
      lane.lastOkAt = this.now();
      lane.lastError = undefined;
      this.metrics.runs.inc({ resource, mode, result: 'ok' });
    } catch (error) {
      if (error instanceof SyncStoppedError) return;
      lane.lastError = error instanceof Error ? `${error.name}: ${error.message}`.slice(0, 200) : 'failed';
      this.metrics.runs.inc({ resource, mode, result: 'failed' });
      this.log.warn('sync failed; tried again on its next turn', { resource, mode, error: lane.lastError });
    }
  }

  private laneOf(resource: SyncResource): Lane {
    return this.lanes.get(resource) as Lane;
  }
}
