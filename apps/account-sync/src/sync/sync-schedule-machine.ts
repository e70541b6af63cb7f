/**
 * When each resource is read, as a pure transition (sync-scheduler.ts is its shell). A full read of everything
 * at start — the per-group resources after the first balances read (it lists the groups), transactions after
 * the first trades read (the two long histories one after the other, each with the whole spare budget) — then
 * each resource on its interval (fast or slow: an `incremental` run, the periodic one), and soon when a trigger
 * names it (a `recent` run: what is new only, read-context.ts). Triggers coalesce: the first arms a short delay
 * (`triggerDelayMs`), the others within it or during the run join it, and a triggered run of a resource starts at
 * least `triggerMinGapMs` after its previous run started — so a stream of order outcomes costs at most one
 * `recent` run per resource per gap, whatever the order rate. Triggers never push the periodic run out: a
 * trigger's run that finds the interval elapsed since the last periodic run is the periodic run, and after a
 * `recent` run the timer is set for what is left of the interval. One run per resource at a time: a request
 * during a run, or while the resource waits for its prerequisite, is remembered and runs after it (full wins
 * over incremental, incremental over recent). A failed run is counted and logged, and the resource is tried
 * again 1 s later, then after twice as long each time, up to its interval (as a periodic run).
 *
 * A lane: `waiting` (its first read waits for its prerequisite's) → `idle` ⇄ `running`. Timers are effects
 * (`arm`, `disarm`); time comes in `env.now`.
 */
import type { SyncMode } from './sync-engine.js';
import { SYNC_RESOURCES, type SyncResource } from './sync-triggers.js';

export interface ScheduleSettings {
  fastIntervalMs: number;
  slowIntervalMs: number;
  triggerDelayMs: number;
  /** A triggered (`recent`) run of a resource starts at least this long after its previous run started. */
  triggerMinGapMs: number;
  staleIntervals: number;
}

const SLOW: ReadonlySet<SyncResource> = new Set(['accountDetails', 'beneficiaries', 'senders', 'pairs']);

/** A resource whose first full read waits for the first read of another (ended either way). */
const PREREQUISITE: Readonly<Partial<Record<SyncResource, SyncResource>>> = {
  accountDetails: 'balances',
  beneficiaries: 'balances',
  senders: 'balances',
  transactions: 'trades',
};

export interface Lane {
  readonly phase: 'waiting' | 'idle' | 'running';
  /** What runs once the current run ends (or the prerequisite's first read). */
  readonly queued: SyncMode | undefined;
  readonly lastOkAt: number | undefined;
  /** Of the newest failed run, cleared by a good one (bounded: 200 chars). */
  readonly lastError: string | undefined;
  /** Its timer is a trigger's (due within the coalescing delay): later triggers leave it be, never push it out. */
  readonly triggerArmed: boolean;
  /** Failed runs in a row (0 after a good one): the next is tried after 1 s, doubling, at most the interval. */
  readonly failures: number;
  /** When the current or last run started (the trigger gap counts from it). */
  readonly startedAt: number | undefined;
  /** When the last good full or periodic (`incremental`) run ended: the next is due an interval after it. */
  readonly periodicAt: number | undefined;
}

/** A failed run is tried again this soon at first, then after twice as long each time, up to the interval. */
export const RETRY_FIRST_MS = 1_000;

export interface ScheduleState {
  readonly started: boolean;
  readonly stopped: boolean;
  /** When the sync started: a resource never read ages from here. */
  readonly startedAt: number | undefined;
  readonly lanes: Readonly<Record<SyncResource, Lane>>;
}

export type RunResult = { kind: 'ok' } | { kind: 'failed'; error: string } | { kind: 'stopped' };

export type ScheduleEvent =
  | { readonly type: 'start' }
  /** A trigger named these resources: each is read soon. */
  | { readonly type: 'touched'; readonly resources: readonly SyncResource[] }
  /** A resource's timer (interval or trigger delay) fired. */
  | { readonly type: 'due'; readonly resource: SyncResource }
  | { readonly type: 'finished'; readonly resource: SyncResource; readonly mode: SyncMode; readonly result: RunResult }
  | { readonly type: 'stop' };

export type ScheduleEffect =
  | { readonly type: 'run'; readonly resource: SyncResource; readonly mode: SyncMode }
  /** (Re)sets the resource's one timer; `due` follows after `delayMs`. */
  | { readonly type: 'arm'; readonly resource: SyncResource; readonly delayMs: number }
  | { readonly type: 'disarm'; readonly resource: SyncResource }
  | { readonly type: 'counted'; readonly resource: SyncResource; readonly mode: SyncMode; readonly ok: boolean }
  /** `failures`: failed runs in a row, this one included (1: the first of a spell). */
  | {
      readonly type: 'failed';
      readonly resource: SyncResource;
      readonly mode: SyncMode;
      readonly error: string;
      readonly failures: number;
    }
  /** A good run after `failures` failed ones in a row. */
  | { readonly type: 'recovered'; readonly resource: SyncResource; readonly mode: SyncMode; readonly failures: number }
  /** Runs in progress should end now (the engine aborts its reads). */
  | { readonly type: 'abort' };

type Step = { readonly state: ScheduleState; readonly effects: readonly ScheduleEffect[] };

const IDLE: Lane = {
  phase: 'idle',
  queued: undefined,
  lastOkAt: undefined,
  lastError: undefined,
  triggerArmed: false,
  failures: 0,
  startedAt: undefined,
  periodicAt: undefined,
};

export function initialSchedule(): ScheduleState {
  const lanes = {} as Record<SyncResource, Lane>;
  for (const resource of SYNC_RESOURCES) lanes[resource] = IDLE;
  return { started: false, stopped: false, startedAt: undefined, lanes };
}

export function intervalOf(resource: SyncResource, settings: ScheduleSettings): number {
  return SLOW.has(resource) ? settings.slowIntervalMs : settings.fastIntervalMs;
}

export function scheduleTransition(
  state: ScheduleState,
  event: ScheduleEvent,
  env: { now: number; settings: ScheduleSettings },
): Step {
  // After the stop only the runs still in progress report (their results still count).
  if (state.stopped && event.type !== 'finished') return { state, effects: [] };
  switch (event.type) {
    case 'start': {
      if (state.started) return { state, effects: [] };
      const effects: ScheduleEffect[] = [];
      let next: ScheduleState = { ...state, started: true, startedAt: env.now };
      for (const resource of SYNC_RESOURCES) {
        next =
          PREREQUISITE[resource] === undefined
            ? request(next, resource, 'full', effects, env.now)
            : withLane(next, resource, { ...next.lanes[resource], phase: 'waiting', queued: 'full' });
      }
      return { state: next, effects };
    }
    case 'touched': {
      if (!state.started) return { state, effects: [] };
      // An idle resource reads after the coalescing delay. A running one reads again after its run (which may
      // have read the venue before the change the trigger announces) — not on a timer, which the run's end
      // re-arms on the interval; a waiting one reads in full after its prerequisite anyway.
      const effects: ScheduleEffect[] = [];
      let next = state;
      // A trigger already armed stays: re-arming at each of a steady stream of triggers would never fire.
      for (const resource of event.resources) {
        const lane = next.lanes[resource];
        if (lane.phase !== 'idle') next = request(next, resource, 'recent', effects, env.now);
        else if (!lane.triggerArmed) {
          const delayMs = Math.max(env.settings.triggerDelayMs, gapLeft(lane, env));
          effects.push({ type: 'arm', resource, delayMs });
          next = withLane(next, resource, { ...lane, triggerArmed: true });
        }
      }
      return { state: next, effects };
    }
    case 'due': {
      const effects: ScheduleEffect[] = [];
      const lane = state.lanes[event.resource];
      // A trigger's timer reads what is new, unless the periodic run is due by now (it reads that too).
      const mode: SyncMode = lane.triggerArmed && !periodicDue(event.resource, lane, env) ? 'recent' : 'incremental';
      const fired = withLane(state, event.resource, { ...lane, triggerArmed: false });
      return { state: request(fired, event.resource, mode, effects, env.now), effects };
    }
    case 'finished':
      return onFinished(state, event, env);
    case 'stop': {
      const effects: ScheduleEffect[] = [{ type: 'abort' }];
      const lanes = {} as Record<SyncResource, Lane>;
      for (const resource of SYNC_RESOURCES) {
        effects.push({ type: 'disarm', resource });
        lanes[resource] = { ...state.lanes[resource], queued: undefined };
      }
      return { state: { ...state, stopped: true, lanes }, effects };
    }
  }
}

function onFinished(
  state: ScheduleState,
  event: Extract<ScheduleEvent, { type: 'finished' }>,
  env: { now: number; settings: ScheduleSettings },
): Step {
  const { resource, mode, result } = event;
  const lane = state.lanes[resource];
  if (lane.phase !== 'running') return { state, effects: [] };
  const effects: ScheduleEffect[] = [];
  let after: Lane = { ...lane, phase: 'idle', queued: undefined };
  if (result.kind === 'ok') {
    after = { ...after, lastOkAt: env.now, lastError: undefined, failures: 0 };
    if (mode !== 'recent') after = { ...after, periodicAt: env.now };
    effects.push({ type: 'counted', resource, mode, ok: true });
    if (lane.failures > 0) effects.push({ type: 'recovered', resource, mode, failures: lane.failures });
  } else if (result.kind === 'failed') {
    const error = result.error.slice(0, 200);
    const failures = lane.failures + 1;
    after = { ...after, lastError: error, failures };
    effects.push({ type: 'counted', resource, mode, ok: false }, { type: 'failed', resource, mode, error, failures });
  }
  let next = withLane(state, resource, after);
  if (state.stopped) return { state: next, effects };
  if (lane.queued === 'recent' && gapLeft(after, env) > 0) {
    // a trigger during the run: read again once the gap since this run's start has passed
    effects.push({ type: 'arm', resource, delayMs: gapLeft(after, env) });
    next = withLane(next, resource, { ...after, triggerArmed: true });
  } else if (lane.queued !== undefined) {
    const queued = lane.queued === 'recent' && periodicDue(resource, after, env) ? 'incremental' : lane.queued;
    next = request(next, resource, queued, effects, env.now);
  } else effects.push({ type: 'arm', resource, delayMs: nextTurnIn(resource, after, env) });
  // Its first read ended (well or not): whatever waited for it reads now.
  for (const dependent of SYNC_RESOURCES) {
    const waiting = next.lanes[dependent];
    if (PREREQUISITE[dependent] !== resource || waiting.phase !== 'waiting') continue;
    next = withLane(next, dependent, { ...waiting, phase: 'idle', queued: undefined });
    next = request(next, dependent, 'full', effects, env.now);
  }
  return { state: next, effects };
}

/**
 * When the resource is read next after a run: an interval after the last periodic run; after failed runs, sooner —
 * 1 s, 2 s, 4 s … up to the interval (a page that failed mid-way through a long history is not left for a whole
 * interval).
 */
function nextTurnIn(resource: SyncResource, lane: Lane, env: { now: number; settings: ScheduleSettings }): number {
  const interval = intervalOf(resource, env.settings);
  if (lane.failures > 0) return Math.min(interval, RETRY_FIRST_MS * 2 ** Math.min(lane.failures - 1, 30));
  return lane.periodicAt === undefined ? interval : Math.max(0, lane.periodicAt + interval - env.now);
}

/** Whether the periodic run of the resource is due: an interval since the last one (or none yet). */
function periodicDue(resource: SyncResource, lane: Lane, env: { now: number; settings: ScheduleSettings }): boolean {
  return lane.periodicAt === undefined || env.now - lane.periodicAt >= intervalOf(resource, env.settings);
}

/** How long a triggered run must still wait for the gap since the resource's last run started (0: none). */
function gapLeft(lane: Lane, env: { now: number; settings: ScheduleSettings }): number {
  return lane.startedAt === undefined ? 0 : Math.max(0, lane.startedAt + env.settings.triggerMinGapMs - env.now);
}

const MODE_RANK: Readonly<Record<SyncMode, number>> = { recent: 0, incremental: 1, full: 2 };

/** A read of `resource` now, or after the run in progress / the prerequisite's read (the wider mode wins). */
function request(
  state: ScheduleState,
  resource: SyncResource,
  mode: SyncMode,
  effects: ScheduleEffect[],
  now: number,
): ScheduleState {
  const lane = state.lanes[resource];
  if (lane.phase !== 'idle') {
    const queued: SyncMode =
      lane.queued !== undefined && MODE_RANK[lane.queued] >= MODE_RANK[mode] ? lane.queued : mode;
    return queued === lane.queued ? state : withLane(state, resource, { ...lane, queued });
  }
  effects.push({ type: 'disarm', resource }, { type: 'run', resource, mode });
  return withLane(state, resource, { ...lane, phase: 'running', queued: undefined, startedAt: now });
}

function withLane(state: ScheduleState, resource: SyncResource, lane: Lane): ScheduleState {
  return { ...state, lanes: { ...state.lanes, [resource]: lane } };
}

/**
 * Milliseconds since the resource's last good read — or, before the first, since the sync started (a venue
 * unreadable from the start grows stale like one lost later); undefined before the start.
 */
export function ageOf(state: ScheduleState, resource: SyncResource, now: number): number | undefined {
  const at = state.lanes[resource].lastOkAt ?? state.startedAt;
  return at === undefined ? undefined : now - at;
}

/** How current a resource's mirrored records are, as query replies carry it (`Freshness`, libs/contracts). */
export interface ResourceFreshness {
  /** End of this process's last good read of the resource; undefined: none since the sync started. */
  readonly asOf: number | undefined;
  /** No good read since the start, or none within `staleIntervals` of its interval: the bound /health uses. */
  readonly stale: boolean;
}

/** The one staleness judgement: /health's `sync` check and the query replies both use it. */
export function freshnessOf(
  state: ScheduleState,
  resource: SyncResource,
  now: number,
  settings: ScheduleSettings,
): ResourceFreshness {
  const asOf = state.lanes[resource].lastOkAt;
  return {
    asOf,
    stale: asOf === undefined || now - asOf > intervalOf(resource, settings) * settings.staleIntervals,
  };
}

/** Resources never read yet, or read longer ago than `staleIntervals` of their interval. */
export function staleResources(
  state: ScheduleState,
  now: number,
  settings: ScheduleSettings,
): Array<{ resource: SyncResource; detail: string }> {
  const stale: Array<{ resource: SyncResource; detail: string }> = [];
  for (const resource of SYNC_RESOURCES) {
    const lane = state.lanes[resource];
    const { asOf, stale: isStale } = freshnessOf(state, resource, now, settings);
    if (!isStale) continue;
    if (asOf === undefined) {
      stale.push({ resource, detail: lane.lastError ?? 'first read not finished' });
    } else {
      const error = lane.lastError ? `: ${lane.lastError}` : '';
      stale.push({ resource, detail: `last read ${Math.round((now - asOf) / 1000)} s ago${error}` });
    }
  }
  return stale;
}
