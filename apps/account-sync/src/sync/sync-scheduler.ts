/**
 * The shell of the sync schedule (sync-schedule-machine.ts): an actor whose effects start engine runs, set
 * one timer per resource, count and log. A run's end comes back to the mailbox as an event; nothing else
 * changes the schedule.
 */
import { Actor, systemClock, type Cancel, type Clock } from '#actors';
import { LogThrottle, type JsonLogger } from '#observability';
import { SyncStoppedError, type SyncEngine } from './sync-engine.js';
import type { SyncMetrics } from './sync-metrics.js';
import {
  ageOf,
  freshnessOf,
  initialSchedule,
  scheduleTransition,
  staleResources,
  type ResourceFreshness,
  type RunResult,
  type ScheduleEffect,
  type ScheduleEvent,
  type ScheduleSettings,
  type ScheduleState,
} from './sync-schedule-machine.js';
import {
  movedTradeOf,
  resourcesTouchedBy,
  type RefreshCause,
  type SyncResource,
  type SyncTriggers,
} from './sync-triggers.js';

type Env = { now: number; settings: ScheduleSettings };

export class SyncScheduler implements SyncTriggers {
  private readonly actor: Actor<ScheduleState, ScheduleEvent, ScheduleEffect, Env>;
  private readonly timers = new Map<SyncResource, Cancel>();
  /** Engine runs in progress: `stop` waits for them. */
  private readonly running = new Set<Promise<void>>();
  private readonly log: JsonLogger;
  /**
   * A failing resource is read again at every trigger (one per order outcome, webhook, withdrawal), so its failure
   * would be logged at the order rate: after the first of a spell, one line a minute per resource, with how many
   * were held back; the recovery is always written.
   */
  private readonly failureLog: LogThrottle;

  constructor(
    private readonly engine: SyncEngine,
    private readonly settings: ScheduleSettings,
    private readonly metrics: SyncMetrics,
    logger: JsonLogger,
    private readonly clock: Clock = systemClock,
  ) {
    this.log = logger.child('SyncScheduler');
    this.failureLog = new LogThrottle(FAILURE_LOG_EVERY_MS, () => this.clock.now());
    this.actor = new Actor({
      name: 'sync-schedule',
      initial: initialSchedule(),
      transition: scheduleTransition,
      environment: () => ({ now: this.clock.now(), settings: this.settings }),
      execute: (effect) => this.execute(effect),
      onError: (error) =>
        this.log.error('sync schedule failed', { error: error instanceof Error ? error.message : String(error) }),
    });
  }

  /** Starts the full read of every resource (not awaited: the app serves while it runs). */
  start(): void {
    this.actor.send({ type: 'start' });
  }

  /** Stops the timers, takes no new run, and waits for the runs in progress to end. */
  async stop(): Promise<void> {
    this.actor.send({ type: 'stop' });
    while (this.running.size > 0) await Promise.allSettled([...this.running]);
    await this.actor.idle();
  }

  refreshAfter(cause: RefreshCause): void {
    this.metrics.triggers.inc({ cause: cause.kind });
    const tradeRef = movedTradeOf(cause);
    if (tradeRef !== undefined) this.engine.noteTradeMoved(tradeRef);
    this.actor.send({ type: 'touched', resources: resourcesTouchedBy(cause) });
  }

  /** See `ageOf` in sync-schedule-machine.ts; undefined before `start`. */
  ageOf(resource: SyncResource): number | undefined {
    return ageOf(this.actor.state, resource, this.clock.now());
  }

  /** When the resource was last read well, and whether that is too long ago (the bound /health uses). */
  freshness(resource: SyncResource): ResourceFreshness {
    return freshnessOf(this.actor.state, resource, this.clock.now(), this.settings);
  }

  /** Resources never read yet or read longer ago than `staleIntervals` of their interval. */
  staleResources(): Array<{ resource: SyncResource; detail: string }> {
    return staleResources(this.actor.state, this.clock.now(), this.settings);
  }

  private execute(effect: ScheduleEffect): void {
    switch (effect.type) {
      case 'run': {
        const { resource, mode } = effect;
        const run = this.engine.run(resource, mode).then(
          (): RunResult => ({ kind: 'ok' }),
          (error: unknown): RunResult =>
            error instanceof SyncStoppedError
              ? { kind: 'stopped' }
              : { kind: 'failed', error: error instanceof Error ? `${error.name}: ${error.message}` : 'failed' },
        );
        const done = run.then((result) => this.actor.send({ type: 'finished', resource, mode, result }));
        this.running.add(done);
        void done.finally(() => this.running.delete(done));
        return;
      }
      case 'arm': {
        this.timers.get(effect.resource)?.();
        const { resource } = effect;
        this.timers.set(
          resource,
          this.clock.setTimeout(() => {
            this.timers.delete(resource);
            this.actor.send({ type: 'due', resource });
          }, effect.delayMs),
        );
        return;
      }
      case 'disarm':
        this.timers.get(effect.resource)?.();
        this.timers.delete(effect.resource);
        return;
      case 'counted':
        this.metrics.runs.inc({ resource: effect.resource, mode: effect.mode, result: effect.ok ? 'ok' : 'failed' });
        return;
      case 'failed': {
        const { resource, mode, error, failures } = effect;
        // the first failure of a spell is written whatever an earlier spell left in the throttle
        if (failures === 1) this.failureLog.forget(resource);
        const fields = this.failureLog.pass(resource, { resource, mode, error, failedRuns: failures });
        if (fields !== undefined) this.log.warn('sync failed; tried again on its next turn', fields);
        return;
      }
      case 'recovered':
        this.log.info('sync recovered', { resource: effect.resource, mode: effect.mode, failedRuns: effect.failures });
        return;
      case 'abort':
        this.engine.abort();
        return;
    }
  }
}

/** At most one 'sync failed' line per resource this often, after the first of a spell. */
const FAILURE_LOG_EVERY_MS = 60_000;
