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

function start(
  engine: ScriptedEngine,
  intervalMs = 60_000,
  now: () => number = Date.now,
  logger: JsonLogger = quiet,
): SyncScheduler {
  const metrics = new SyncMetrics(
    new MetricsRegistry('test', { defaultMetrics: false }),
    () => undefined,
    SYNC_RESOURCES,
  );
  scheduler = new SyncScheduler(
    engine as unknown as SyncEngine,
    {
      fastIntervalMs: intervalMs,
      slowIntervalMs: intervalMs,
      triggerMinGapMs: 0,
      triggerDelayMs: 0,
      staleIntervals: 3,
    },
    metrics,
    logger,
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

  it('one run per resource at a time: triggers during a run coalesce into one recent run after it', async () => {
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
    expect(engine.runs).toEqual([['balances', 'recent']]);
    engine.finish('balances');
    await waitFor(() => engine.runs.length === 2, 'the queued refresh');
    expect(engine.runs[1]).toEqual(['balances', 'recent']);
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

  it('a resource failing at every trigger (one per order) logs its first failure, then one line a minute with the count held back, and its recovery', async () => {
    const engine = new ScriptedEngine();
    let clock = 1_000_000;
    const lines: Array<{ level: string; msg: string; resource?: string; suppressed?: number; failedRuns?: number }> =
      [];
    const logger = new JsonLogger('test', 'scheduler', 'info', {
      write: (line: string) => lines.push(JSON.parse(line)),
    });
    const metrics = new SyncMetrics(
      new MetricsRegistry('test', { defaultMetrics: false }),
      () => undefined,
      SYNC_RESOURCES,
    );
    const s = new SyncScheduler(
      engine as unknown as SyncEngine,
      { fastIntervalMs: 60_000, slowIntervalMs: 60_000, triggerMinGapMs: 0, triggerDelayMs: 0, staleIntervals: 3 },
      metrics,
      logger,
      { ...systemClock, now: () => clock },
    );
    scheduler = s;
    const balanceRuns = async (result: 'ok' | 'failed') =>
      (await metrics.runs.get()).values
        .filter((v) => v.labels['resource'] === 'balances' && v.labels['result'] === result)
        .reduce((sum, v) => sum + v.value, 0);
    s.start();
    await waitFor(async () => {
      engine.finishAll();
      return (await balanceRuns('ok')) === 1;
    }, 'balances read well at start');
    engine.failing.add('balances');
    /** One order's trigger, its read failing; resolves to the failed runs so far. */
    const failAfterTrigger = async () => {
      const before = await balanceRuns('failed');
      s.refreshAfter({ kind: 'resources', resources: ['balances'] });
      await waitFor(async () => (await balanceRuns('failed')) > before, 'a failed balances read');
      return balanceRuns('failed');
    };
    const failures = () => lines.filter((l) => l.msg === 'sync failed; tried again on its next turn');
    // 40 orders in a minute, each one trigger, each read failing (outside tester: 43 lines in a minute)
    for (let i = 0; i < 40; i += 1) {
      await failAfterTrigger();
      clock += 1_000;
    }
    expect(failures()).toHaveLength(1);
    expect(failures()[0]).toMatchObject({ level: 'warn', resource: 'balances' });
    expect(failures()[0]?.suppressed).toBeUndefined();
    clock += 30_000; // over a minute since the first line: the next failure is written with the count held back
    const failed = await failAfterTrigger();
    expect(failures()).toHaveLength(2);
    expect(failures()[1]).toMatchObject({ resource: 'balances', suppressed: failed - 2 });
    // readable again: one line says so, with how many runs failed in a row
    engine.failing.delete('balances');
    s.refreshAfter({ kind: 'resources', resources: ['balances'] });
    await waitFor(async () => {
      engine.finishAll();
      return (await balanceRuns('ok')) === 2;
    }, 'balances read well again');
    const recovered = lines.filter((l) => l.msg === 'sync recovered');
    expect(recovered).toEqual([expect.objectContaining({ level: 'info', resource: 'balances' })]);
    expect(recovered[0]?.failedRuns).toBe(await balanceRuns('failed'));
    // a failure soon after is the first of a new spell: written at once
    engine.failing.add('balances');
    await failAfterTrigger();
    expect(failures()).toHaveLength(3);
    expect(failures()[2]?.suppressed).toBeUndefined();
  });
});
