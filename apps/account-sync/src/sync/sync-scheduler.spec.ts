import { afterEach, describe, expect, it } from '@jest/globals';
import { systemClock } from '#actors';
import { JsonLogger, MetricsRegistry } from '#observability';
import { waitFor } from '#testing';
import type { SyncEngine, SyncMode } from './sync-engine.js';
import { SyncMetrics } from './sync-metrics.js';
import { SyncScheduler } from './sync-scheduler.js';
import { SYNC_RESOURCES, type SyncResource } from './sync-triggers.js';

/** An engine whose runs end when the test says so. */
class ScriptedEngine {
  readonly runs: Array<[SyncResource, SyncMode]> = [];
  private readonly open = new Map<SyncResource, Array<() => void>>();
  failing = new Set<SyncResource>();
  run(resource: SyncResource, mode: SyncMode): Promise<void> {
    this.runs.push([resource, mode]);
    if (this.failing.has(resource)) return Promise.reject(new Error('venue down'));
    return new Promise((resolve) => this.open.set(resource, [...(this.open.get(resource) ?? []), resolve]));
  }
  finish(resource: SyncResource): void {
    for (const resolve of this.open.get(resource) ?? []) resolve();
    this.open.delete(resource);
  }
  finishAll(): void {
    for (const resource of [...this.open.keys()]) this.finish(resource);
  }
  abort(): void {
    this.finishAll();
  }
}

const quiet = new JsonLogger('test', 'scheduler', 'error', { write: () => undefined });
let scheduler: SyncScheduler | undefined;

function start(engine: ScriptedEngine, intervalMs = 60_000, now: () => number = Date.now): SyncScheduler {
  const metrics = new SyncMetrics(
    new MetricsRegistry('test', { defaultMetrics: false }),
    () => undefined,
    SYNC_RESOURCES,
  );
  scheduler = new SyncScheduler(
    engine as unknown as SyncEngine,
    { fastIntervalMs: intervalMs, slowIntervalMs: intervalMs, triggerDelayMs: 0, staleIntervals: 3 },
    metrics,
    quiet,
    { ...systemClock, now },
  );
  return scheduler;
}

afterEach(async () => {
  await scheduler?.stop();
});

describe('SyncScheduler', () => {
  it('reads everything in full at start: trades before transactions, per-group resources after balances', async () => {
    const engine = new ScriptedEngine();
    start(engine).start();
    const started = () => engine.runs.map(([resource]) => resource);
    expect(started()).toEqual(expect.arrayContaining(['balances', 'trades', 'transfers', 'creditLimits', 'pairs']));
    expect(started()).not.toContain('transactions');
    expect(started()).not.toContain('beneficiaries');
    engine.finish('balances');
    await waitFor(() => started().includes('beneficiaries'), 'participants after balances');
    expect(started()).not.toContain('transactions');
    engine.finish('trades');
    await waitFor(() => started().includes('transactions'), 'transactions after trades');
    expect(engine.runs.every(([, mode]) => mode === 'full')).toBe(true);
  });

  it('one run per resource at a time: triggers during a run coalesce into one incremental run after it', async () => {
    const engine = new ScriptedEngine();
    const s = start(engine);
    s.start();
    await waitFor(() => {
      engine.finishAll();
      return engine.runs.length === SYNC_RESOURCES.length;
    }, 'the full reads');
    engine.finishAll();
    engine.runs.length = 0;
    s.refreshAfter({ kind: 'resources', resources: ['balances'] });
    await waitFor(() => engine.runs.length === 1, 'one refresh');
    s.refreshAfter({ kind: 'resources', resources: ['balances'] });
    s.refreshAfter({ kind: 'resources', resources: ['balances'] });
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(engine.runs).toEqual([['balances', 'incremental']]);
    engine.finish('balances');
    await waitFor(() => engine.runs.length === 2, 'the queued refresh');
    expect(engine.runs[1]).toEqual(['balances', 'incremental']);
  });

  it('after the full read, each resource is read again incrementally on its interval', async () => {
    const engine = new ScriptedEngine();
    const s = start(engine, 30);
    s.start();
    await waitFor(() => {
      engine.finishAll();
      return engine.runs.some(([resource, mode]) => resource === 'balances' && mode === 'incremental');
    }, 'a scheduled incremental balances read');
  });

  it('a failing resource is stale for /health with its error; the others are not', async () => {
    const engine = new ScriptedEngine();
    engine.failing.add('pairs');
    const s = start(engine);
    s.start();
    await waitFor(() => {
      engine.finishAll(); // also the reads that start after others end
      return s.staleResources().length === 1;
    }, 'only pairs stale');
    expect(s.staleResources()).toEqual([{ resource: 'pairs', detail: 'Error: venue down' }]);
  });

  it('ages a resource never read since the start, so a venue unreadable from the start shows as stale', async () => {
    const engine = new ScriptedEngine();
    engine.failing.add('balances');
    let clock = 1_000_000;
    const s = start(engine, 60_000, () => clock);
    expect(s.ageOf('balances')).toBeUndefined();
    s.start();
    clock += 200_000;
    expect(s.ageOf('balances')).toBe(200_000);
    expect(s.staleResources().map((r) => r.resource)).toContain('balances');
    engine.finish('trades');
    await waitFor(() => s.ageOf('trades') === 0, 'trades read: its age from that read');
    clock += 5_000;
    expect(s.ageOf('trades')).toBe(5_000);
    expect(s.ageOf('balances')).toBe(205_000);
  });
});
