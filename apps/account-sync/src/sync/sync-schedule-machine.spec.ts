import { describe, expect, it } from '@jest/globals';
import {
  ageOf,
  freshnessOf,
  initialSchedule,
  scheduleTransition,
  staleResources,
  type ScheduleEffect,
  type ScheduleEvent,
  type ScheduleSettings,
  type ScheduleState,
} from './sync-schedule-machine.js';
import { SYNC_RESOURCES, type SyncResource } from './sync-triggers.js';

const settings: ScheduleSettings = {
  fastIntervalMs: 10_000,
  slowIntervalMs: 60_000,
  triggerDelayMs: 200,
  triggerMinGapMs: 0,
  staleIntervals: 3,
};

/** Feeds events through the transition at `now`, collecting every effect. */
function play(events: ScheduleEvent[], now = 1_000, from: ScheduleState = initialSchedule()) {
  let state = from;
  const effects: ScheduleEffect[] = [];
  for (const event of events) {
    const step = scheduleTransition(state, event, { now, settings });
    state = step.state;
    effects.push(...step.effects);
  }
  return { state, effects };
}

const runs = (effects: readonly ScheduleEffect[]) =>
  effects.flatMap((e) => (e.type === 'run' ? [`${e.resource}:${e.mode}`] : []));
const ok = (resource: SyncResource, mode: 'full' | 'incremental' | 'recent' = 'full'): ScheduleEvent => ({
  type: 'finished',
  resource,
  mode,
  result: { kind: 'ok' },
});

describe('sync schedule (pure)', () => {
  it('starts a full read of what needs nothing first; the per-group resources and transactions wait', () => {
    const { state, effects } = play([{ type: 'start' }]);
    expect(runs(effects).sort()).toEqual(
      ['balances', 'trades', 'transfers', 'creditLimits', 'pairs'].map((r) => `${r}:full`).sort(),
    );
    expect(state.lanes.transactions.phase).toBe('waiting');
    expect(state.lanes.beneficiaries.phase).toBe('waiting');
  });

  it('the first balances read, good or failed, releases the per-group reads; the first trades read, transactions', () => {
    const started = play([{ type: 'start' }]).state;
    const afterBalances = play(
      [{ type: 'finished', resource: 'balances', mode: 'full', result: { kind: 'failed', error: 'Error: 500' } }],
      2_000,
      started,
    );
    expect(runs(afterBalances.effects).sort()).toEqual(['accountDetails:full', 'beneficiaries:full', 'senders:full']);
    expect(afterBalances.state.lanes.transactions.phase).toBe('waiting');
    expect(runs(play([ok('trades')], 2_000, afterBalances.state).effects)).toEqual(['transactions:full']);
  });

  it('a trigger arms the coalescing delay; a due resource runs incrementally, once at a time', () => {
    const idle = play([{ type: 'start' }, ...SYNC_RESOURCES.map((r) => ok(r))]).state;
    const touched = play([{ type: 'touched', resources: ['balances', 'trades'] }], 2_000, idle);
    expect(touched.effects).toEqual([
      { type: 'arm', resource: 'balances', delayMs: 200 },
      { type: 'arm', resource: 'trades', delayMs: 200 },
    ]);
    const due = play([{ type: 'due', resource: 'balances' }], 2_200, idle);
    expect(due.effects).toEqual([
      { type: 'disarm', resource: 'balances' },
      { type: 'run', resource: 'balances', mode: 'incremental' },
    ]);
    // two more requests during the run: one queued run after it, no second run now
    const during = play(
      [
        { type: 'due', resource: 'balances' },
        { type: 'due', resource: 'balances' },
      ],
      2_300,
      due.state,
    );
    expect(runs(during.effects)).toEqual([]);
    expect(during.state.lanes.balances.queued).toBe('incremental');
    const after = play([ok('balances', 'incremental')], 2_400, during.state);
    expect(runs(after.effects)).toEqual(['balances:incremental']);
  });

  it('a trigger during a run is not lost when the run ends before the trigger delay: a read follows the run', () => {
    // The run in progress may have read the venue before the change the trigger announces (an order's trade).
    const idle = play([{ type: 'start' }, ...SYNC_RESOURCES.map((r) => ok(r))]).state;
    const running = play([{ type: 'due', resource: 'trades' }], 2_000, idle).state;
    const touched = play([{ type: 'touched', resources: ['trades'] }], 2_010, running);
    expect(touched.state.lanes.trades.queued).toBe('recent');
    const ended = play([ok('trades', 'incremental')], 2_020, touched.state);
    expect(runs(ended.effects)).toEqual(['trades:recent']);
    expect(ended.effects).not.toContainEqual(expect.objectContaining({ type: 'arm', resource: 'trades' }));
  });

  it('a steady stream of triggers does not push the read out: the first one armed it, the others leave it', () => {
    const idle = play([{ type: 'start' }, ...SYNC_RESOURCES.map((r) => ok(r))]).state;
    const touches = play(
      Array.from({ length: 5 }, () => ({ type: 'touched' as const, resources: ['balances' as const] })),
      2_000,
      idle,
    );
    expect(touches.effects).toEqual([{ type: 'arm', resource: 'balances', delayMs: 200 }]);
    const due = play([{ type: 'due', resource: 'balances' }], 2_200, touches.state);
    expect(runs(due.effects)).toEqual(['balances:recent']);
    expect(due.state.lanes.balances.triggerArmed).toBe(false);
    // after the run, a new trigger arms again
    const next = play([ok('balances', 'recent'), { type: 'touched', resources: ['balances'] }], 2_300, due.state);
    expect(next.effects).toContainEqual({ type: 'arm', resource: 'balances', delayMs: 200 });
  });

  it('a trigger for a resource waiting for its prerequisite is kept for its first read', () => {
    const started = play([{ type: 'start' }]).state;
    const touched = play([{ type: 'touched', resources: ['transactions'] }], 1_100, started);
    expect(touched.effects).toEqual([]);
    expect(touched.state.lanes.transactions).toMatchObject({ phase: 'waiting', queued: 'full' });
  });

  it('a full request queued behind an incremental run wins', () => {
    const idle = play([{ type: 'start' }, ...SYNC_RESOURCES.map((r) => ok(r))]).state;
    const running = play([{ type: 'due', resource: 'trades' }], 2_000, idle).state;
    const queued = scheduleTransition(
      { ...running, lanes: { ...running.lanes, trades: { ...running.lanes.trades, queued: 'full' } } },
      { type: 'due', resource: 'trades' },
      { now: 2_100, settings },
    ).state;
    expect(queued.lanes.trades.queued).toBe('full');
    expect(runs(play([ok('trades', 'incremental')], 2_200, queued).effects)).toEqual(['trades:full']);
  });

  it('after a run with nothing queued, the next read is armed on the interval (slow resources on the slow one)', () => {
    const started = play([{ type: 'start' }]).state;
    expect(play([ok('balances')], 2_000, started).effects).toContainEqual({
      type: 'arm',
      resource: 'balances',
      delayMs: 10_000,
    });
    expect(play([ok('pairs')], 2_000, started).effects).toContainEqual({
      type: 'arm',
      resource: 'pairs',
      delayMs: 60_000,
    });
  });

  it('a failed run is counted and reported with a bounded error, and the resource keeps its last good time', () => {
    const read = play([{ type: 'start' }, ok('balances')], 5_000).state;
    const failed = play(
      [
        { type: 'due', resource: 'balances' },
        {
          type: 'finished',
          resource: 'balances',
          mode: 'incremental',
          result: { kind: 'failed', error: 'x'.repeat(1_000) },
        },
      ],
      9_000,
      read,
    );
    expect(failed.effects).toContainEqual({ type: 'counted', resource: 'balances', mode: 'incremental', ok: false });
    expect(failed.state.lanes.balances.lastError).toHaveLength(200);
    expect(failed.state.lanes.balances.lastOkAt).toBe(5_000);
    // tried again soon, not a whole interval later
    expect(failed.effects).toContainEqual({ type: 'arm', resource: 'balances', delayMs: 1_000 });
  });

  it('failed runs in a row are tried again after 1 s, 2 s, 4 s … up to the interval; a good one resets it', () => {
    let state = play([{ type: 'start' }, ok('balances')], 5_000).state;
    const fail: ScheduleEvent = {
      type: 'finished',
      resource: 'balances',
      mode: 'incremental',
      result: { kind: 'failed', error: 'venue unreachable' },
    };
    const delays: number[] = [];
    for (let i = 0; i < 6; i += 1) {
      const step = play([{ type: 'due', resource: 'balances' }, fail], 6_000 + i, state);
      state = step.state;
      const arm = step.effects.find((e) => e.type === 'arm');
      delays.push(arm?.type === 'arm' ? arm.delayMs : -1);
    }
    expect(delays).toEqual([1_000, 2_000, 4_000, 8_000, 10_000, 10_000]);
    const good = play([{ type: 'due', resource: 'balances' }, ok('balances')], 7_000, state);
    expect(good.state.lanes.balances.failures).toBe(0);
    expect(good.effects).toContainEqual({ type: 'arm', resource: 'balances', delayMs: 10_000 });
  });

  it('a failed run says how many failed in a row; the good run after them says it recovered, once', () => {
    let state = play([{ type: 'start' }, ok('balances')], 5_000).state;
    const fail: ScheduleEvent = {
      type: 'finished',
      resource: 'balances',
      mode: 'incremental',
      result: { kind: 'failed', error: 'Error: 500' },
    };
    const told: number[] = [];
    for (let i = 0; i < 3; i += 1) {
      const step = play([{ type: 'due', resource: 'balances' }, fail], 6_000 + i, state);
      state = step.state;
      for (const e of step.effects) if (e.type === 'failed') told.push(e.failures);
    }
    expect(told).toEqual([1, 2, 3]);
    const good = play([{ type: 'due', resource: 'balances' }, ok('balances', 'incremental')], 7_000, state);
    expect(good.effects).toContainEqual({ type: 'recovered', resource: 'balances', mode: 'incremental', failures: 3 });
    const again = play([{ type: 'due', resource: 'balances' }, ok('balances', 'incremental')], 8_000, good.state);
    expect(again.effects.filter((e) => e.type === 'recovered')).toEqual([]);
  });

  it('stop aborts, disarms every timer, drops what was queued; a run ending after it still counts but starts nothing', () => {
    const running = play([{ type: 'start' }]).state;
    const stopped = play([{ type: 'stop' }], 2_000, running);
    expect(stopped.effects[0]).toEqual({ type: 'abort' });
    expect(stopped.effects.filter((e) => e.type === 'disarm')).toHaveLength(SYNC_RESOURCES.length);
    const late = play(
      [ok('balances'), { type: 'touched', resources: ['balances'] }, { type: 'due', resource: 'trades' }],
      2_500,
      stopped.state,
    );
    expect(late.effects).toEqual([{ type: 'counted', resource: 'balances', mode: 'full', ok: true }]);
    expect(late.state.lanes.balances.lastOkAt).toBe(2_500);
    expect(late.state.lanes.beneficiaries.phase).toBe('waiting');
  });

  it('a run ended by the stop is neither good nor failed', () => {
    const running = play([{ type: 'start' }]).state;
    const ended = play(
      [{ type: 'stop' }, { type: 'finished', resource: 'balances', mode: 'full', result: { kind: 'stopped' } }],
      2_000,
      running,
    );
    expect(ended.effects.filter((e) => e.type === 'counted' || e.type === 'failed')).toEqual([]);
  });

  it('triggers before the start are ignored', () => {
    expect(play([{ type: 'touched', resources: ['balances'] }]).effects).toEqual([]);
  });

  it('ages from the start until a first good read, then from that read; stale after staleIntervals intervals', () => {
    expect(ageOf(initialSchedule(), 'balances', 5_000)).toBeUndefined();
    const started = play([{ type: 'start' }], 1_000).state;
    expect(ageOf(started, 'balances', 201_000)).toBe(200_000);
    expect(staleResources(started, 1_000, settings).map((s) => s.detail)).toContain('first read not finished');
    const read = play([ok('balances')], 3_000, started).state;
    expect(ageOf(read, 'balances', 8_000)).toBe(5_000);
    expect(staleResources(read, 3_000 + 30_000, settings).map((s) => s.resource)).not.toContain('balances');
    expect(staleResources(read, 3_000 + 30_001, settings)).toContainEqual({
      resource: 'balances',
      detail: 'last read 30 s ago',
    });
  });

  it('freshness (what query replies carry): stale until a first good read, and past the bound /health uses', () => {
    expect(freshnessOf(initialSchedule(), 'balances', 5_000, settings)).toEqual({ asOf: undefined, stale: true });
    const started = play([{ type: 'start' }], 1_000).state;
    expect(freshnessOf(started, 'balances', 1_000, settings)).toEqual({ asOf: undefined, stale: true });
    const read = play([ok('balances')], 3_000, started).state;
    expect(freshnessOf(read, 'balances', 3_000 + 30_000, settings)).toEqual({ asOf: 3_000, stale: false });
    expect(freshnessOf(read, 'balances', 3_000 + 30_001, settings)).toEqual({ asOf: 3_000, stale: true });
    // a failed read keeps the last good one's time: still stale past the bound, fresh only after a good read
    const failed = play(
      [
        {
          type: 'finished',
          resource: 'balances',
          mode: 'incremental',
          result: { kind: 'failed', error: 'Error: 503' },
        },
      ],
      40_000,
      { ...read, lanes: { ...read.lanes, balances: { ...read.lanes.balances, phase: 'running' } } },
    ).state;
    expect(freshnessOf(failed, 'balances', 40_000, settings)).toEqual({ asOf: 3_000, stale: true });
    const again = play([ok('balances', 'incremental')], 41_000, {
      ...failed,
      lanes: { ...failed.lanes, balances: { ...failed.lanes.balances, phase: 'running' } },
    }).state;
    expect(freshnessOf(again, 'balances', 41_000, settings)).toEqual({ asOf: 41_000, stale: false });
    // the slow resources are judged on their own (slow) interval
    const pairs = play([ok('pairs')], 3_000, started).state;
    expect(freshnessOf(pairs, 'pairs', 3_000 + 180_000, settings).stale).toBe(false);
    // every resource the sync reads and /health judges is stale exactly when freshness says so
    for (const resource of SYNC_RESOURCES) {
      const stale = staleResources(read, 3_000 + 30_001, settings).some((s) => s.resource === resource);
      expect(freshnessOf(read, resource, 3_000 + 30_001, settings).stale).toBe(stale);
    }
  });
});

describe('sync schedule under a stream of triggers (pure, simulated time)', () => {
  const gapped: ScheduleSettings = { ...settings, triggerMinGapMs: 1_000 };

  /**
   * Plays the machine with its timers: `touched` for trades at each of `triggerAt`, every run ending `runMs` after
   * it started, until `untilMs`. Returns the runs of trades as [start, mode].
   */
  function simulate(triggerAt: number[], untilMs: number, runMs = 50): Array<[number, string]> {
    let state = initialSchedule();
    const timers = new Map<SyncResource, number>();
    const ends: Array<{ at: number; resource: SyncResource; mode: 'full' | 'incremental' | 'recent' }> = [];
    const started: Array<[number, string]> = [];
    const feed = (event: ScheduleEvent, now: number) => {
      const step = scheduleTransition(state, event, { now, settings: gapped });
      state = step.state;
      for (const effect of step.effects) {
        if (effect.type === 'arm') timers.set(effect.resource, now + effect.delayMs);
        if (effect.type === 'disarm') timers.delete(effect.resource);
        if (effect.type === 'run') {
          ends.push({ at: now + runMs, resource: effect.resource, mode: effect.mode });
          if (effect.resource === 'trades') started.push([now, effect.mode]);
        }
      }
    };
    feed({ type: 'start' }, 0);
    const triggers = [...triggerAt];
    for (let now = 0; now <= untilMs; now += 10) {
      while (triggers.length > 0 && (triggers[0] as number) <= now) {
        triggers.shift();
        feed({ type: 'touched', resources: ['trades'] }, now);
      }
      for (const end of ends.filter((e) => e.at <= now)) {
        ends.splice(ends.indexOf(end), 1);
        feed({ type: 'finished', resource: end.resource, mode: end.mode, result: { kind: 'ok' } }, now);
      }
      for (const [resource, at] of [...timers]) {
        if (at > now) continue;
        timers.delete(resource);
        feed({ type: 'due', resource }, now);
      }
    }
    return started;
  }

  it('four outcomes a second for a minute: at most one recent read a second, and the periodic read every interval', () => {
    const triggers = Array.from({ length: 240 }, (_, i) => 1_000 + i * 250);
    const runs = simulate(triggers, 61_000);
    const recent = runs.filter(([, mode]) => mode === 'recent');
    const periodic = runs.filter(([, mode]) => mode === 'incremental').map(([at]) => at);
    // 240 outcomes → at most one read a gap (1 s), not one per outcome
    expect(recent.length).toBeLessThanOrEqual(61);
    expect(recent.length).toBeGreaterThanOrEqual(50);
    for (let i = 1; i < runs.length; i += 1) {
      expect((runs[i] as [number, string])[0] - (runs[i - 1] as [number, string])[0]).toBeGreaterThanOrEqual(1_000);
    }
    // the triggers never push the periodic read (10 s) out: the full read at 0 s, then every ~10 s
    expect(periodic.length).toBeGreaterThanOrEqual(5);
    for (let i = 1; i < periodic.length; i += 1) {
      expect((periodic[i] as number) - (periodic[i - 1] as number)).toBeLessThanOrEqual(10_000 + 1_100);
    }
  });

  it('without triggers only the periodic read runs, once an interval', () => {
    const runs = simulate([], 35_000);
    expect(runs.map(([, mode]) => mode)).toEqual(['full', 'incremental', 'incremental', 'incremental']);
  });

  it('a trigger within the gap after a run waits for the rest of the gap; the trigger delay otherwise', () => {
    const idle = play([{ type: 'start' }, ...SYNC_RESOURCES.map((r) => ok(r))]).state;
    const running = scheduleTransition(idle, { type: 'due', resource: 'trades' }, { now: 2_000, settings: gapped });
    const ended = scheduleTransition(running.state, ok('trades', 'incremental'), { now: 2_100, settings: gapped });
    const touched = scheduleTransition(
      ended.state,
      { type: 'touched', resources: ['trades'] },
      { now: 2_300, settings: gapped },
    );
    expect(touched.effects).toEqual([{ type: 'arm', resource: 'trades', delayMs: 700 }]);
    const later = scheduleTransition(
      ended.state,
      { type: 'touched', resources: ['trades'] },
      { now: 5_000, settings: gapped },
    );
    expect(later.effects).toEqual([{ type: 'arm', resource: 'trades', delayMs: 200 }]);
  });

  it('after a recent read the timer is set for what is left of the interval since the periodic read', () => {
    const idle = play([{ type: 'start' }, ...SYNC_RESOURCES.map((r) => ok(r))], 1_000).state;
    const touched = play([{ type: 'touched', resources: ['trades'] }], 4_000, idle).state;
    const due = play([{ type: 'due', resource: 'trades' }], 4_200, touched);
    expect(runs(due.effects)).toEqual(['trades:recent']);
    const ended = play([ok('trades', 'recent')], 4_300, due.state);
    expect(ended.effects).toContainEqual({ type: 'arm', resource: 'trades', delayMs: 6_700 });
    // a trigger whose timer fires once the interval has passed runs the periodic read
    const late = play(
      [
        { type: 'touched', resources: ['trades'] },
        { type: 'due', resource: 'trades' },
      ],
      11_500,
      ended.state,
    );
    expect(runs(late.effects)).toEqual(['trades:incremental']);
  });
});
