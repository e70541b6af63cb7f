/**
 * The `RiskGate` the order side uses: the risk actor's shell. Admits are decided in the actor's mailbox, one
 * at a time; the store (trading states, run-time limits) feeds its changes into the same mailbox, so a change
 * takes effect for the next order decided after it.
 */
import { TRADING_STATES, type RiskScopeKind, type TradingState, type TradingStateEntry } from '#contracts';
import { Actor, type Clock } from '#actors';
import type { JsonLogger } from '#observability';
import type {
  LateFill,
  RiskDecision,
  RiskGate,
  RiskOrder,
  RiskOrderEvent,
  RiskRefusal,
  UndoneFill,
} from './risk-gate.js';
import { limitsFor, tradingStateRefusal, type ScopedLimits } from './checks.js';
import { RiskBook } from './risk-book.js';
import { utilisationOf } from './utilisation.js';
import type { RiskPositionsStore, StoredRiskPositions } from './risk-positions.js';
import type { Limits, LimitsConfig, ScopeKey } from './limits.js';
import {
  riskTransition,
  type PeerAdmission,
  type RiskEffect,
  type RiskEnv,
  type RiskEvent,
  type RiskState,
} from './risk-machine.js';
import type { RiskMetrics } from './risk-metrics.js';
import { unreadableStates, type TradingStates } from './trading-states.js';

export interface RiskEngineDeps {
  clock: Clock;
  metrics?: RiskMetrics;
  logger?: JsonLogger;
}

/** The other execution instances of the account (see RiskBookSync): told what this one admits and learns. */
export interface RiskPeers {
  /** An admission published in sequence: stored, overtaken by others' (read back), or not sequenced. */
  publishAdmission(order: RiskOrder, admittedAt: number, expectedLast: number): Promise<AdmissionAnswer>;
  /** An admission published without sequence (the stream could not take it in sequence). */
  admitted(order: RiskOrder, admittedAt: number): void;
  recorded(event: RiskOrderEvent): void;
}

export type AdmissionAnswer =
  | { kind: 'stored'; seq: number }
  | { kind: 'overtaken'; missed: readonly PeerAdmission[]; last: number }
  | { kind: 'unsequenced'; reason: string };

export class RiskEngine implements RiskGate {
  private readonly actor: Actor<RiskState, RiskEvent, RiskEffect, RiskEnv>;
  private peers: RiskPeers | undefined;
  private positions: RiskPositionsStore | undefined;
  private readonly tradingStateListeners: Array<(entry: TradingStateEntry) => void> = [];
  /** The limits of each scope that traded: their use is read at scrape time (the gauge's maximum per scope kind). */
  private readonly utilised = new Map<ScopeKey, ScopedLimits>();

  constructor(
    limits: LimitsConfig,
    private readonly deps: RiskEngineDeps,
    /** Until the store has been read, every order is refused (fail closed). */
    states: TradingStates = unreadableStates,
  ) {
    this.actor = new Actor<RiskState, RiskEvent, RiskEffect, RiskEnv>({
      name: 'risk',
      initial: { book: new RiskBook(), limits, states },
      transition: riskTransition,
      environment: () => ({ now: deps.clock.now() }),
      execute: (effect) => this.execute(effect),
      onError: (error) =>
        deps.logger?.error('risk actor failed on an event', {
          error: error instanceof Error ? error.message : String(error),
        }),
    });
    deps.metrics?.watchUtilisation(() => this.utilisationNow().values());
  }

  admit(order: RiskOrder, now: number): Promise<RiskDecision> {
    return new Promise((reply) => this.actor.send({ kind: 'admit', order, now, reply }));
  }

  haltRefusal(order: Pick<RiskOrder, 'strategyId' | 'accountGroup'>): RiskRefusal | undefined {
    const refusal = tradingStateRefusal(this.state.states, order);
    // a refusal like admit's: counted under its code (an operator checks TRADING_HALTED there during a halt)
    if (refusal !== undefined) this.deps.metrics?.refusals.inc({ code: refusal.code });
    return refusal;
  }

  record(event: RiskOrderEvent): void {
    this.actor.send({ kind: 'record', event, from: 'local' });
    this.reportOpenOrders();
  }

  undo(event: UndoneFill): Promise<void> {
    return this.recordDurably(event);
  }

  lateFill(event: LateFill): Promise<void> {
    return this.recordDurably(event);
  }

  /** Resolves once the event's durable effect is done (or rejects with why it was ignored). */
  private recordDurably(event: UndoneFill | LateFill): Promise<void> {
    return new Promise((resolve, reject) => {
      const settled = (error?: string): void => (error === undefined ? resolve() : reject(new Error(error)));
      this.actor.send({ kind: 'record', event, from: 'local', settled });
    });
  }

  /** From here on, what this instance admits and learns is told to the other instances. */
  attachPeers(peers: RiskPeers | undefined): void {
    this.peers = peers;
  }

  /** The durable positions read at start (they replace the book's), and where later fills are added. */
  positionsLoaded(stored: StoredRiskPositions, store?: RiskPositionsStore): void {
    this.actor.send({ kind: 'positions-loaded', positions: stored.positions, applied: stored.applied });
    this.positions = store;
  }

  /** From now on admissions are published in sequence after `last` (the last one the stream holds). */
  startSequence(last: number): void {
    this.actor.send({ kind: 'sequence-started', last });
  }

  /** An order another instance admitted (`seq`: where the stream stored it, when followed there). */
  peerAdmitted(order: RiskOrder, admittedAt: number, seq?: number): void {
    this.actor.send({ kind: 'peer-admitted', order, admittedAt, ...(seq !== undefined ? { seq } : {}) });
    this.reportOpenOrders();
  }

  /** This instance's own admission, seen stored at `seq` on the stream: the sequence moves on. */
  sequenceSeen(seq: number): void {
    this.actor.send({ kind: 'sequence-seen', seq });
  }

  /** An event another instance learnt (it may own an order this instance admitted, after a takeover). */
  peerRecorded(event: RiskOrderEvent): void {
    this.actor.send({ kind: 'record', event, from: 'peer' });
    this.reportOpenOrders();
  }

  restore(orders: ReadonlyArray<{ order: RiskOrder; admittedAt: number; event?: RiskOrderEvent }>): void {
    this.actor.send({ kind: 'restore', orders });
    this.reportOpenOrders();
  }

  /** The admissions of the last minute (all instances'), read back at start: the rolling windows count them. */
  restoreWindow(orders: ReadonlyArray<{ order: RiskOrder; admittedAt: number; traded: boolean }>): void {
    this.actor.send({ kind: 'restore-window', orders });
  }

  /** What risk holds now (for the control queries and tests). */
  get state(): RiskState {
    return this.actor.state;
  }

  stateStored(entry: TradingStateEntry): void {
    this.actor.send({ kind: 'state-stored', entry });
    this.reportStates();
    this.tellTradingState(entry);
  }

  onTradingState(listener: (entry: TradingStateEntry) => void): void {
    this.tradingStateListeners.push(listener);
  }

  private tellTradingState(entry: TradingStateEntry): void {
    for (const listener of this.tradingStateListeners) {
      try {
        listener(entry);
      } catch (error) {
        this.deps.logger?.error('a trading state listener failed', {
          error: error instanceof Error ? error.message : String(error),
        });
      }
    }
  }

  stateRemoved(scope: RiskScopeKind, id?: string): void {
    this.actor.send({ kind: 'state-removed', scope, ...(id !== undefined ? { id } : {}) });
    this.reportStates();
  }

  storeReadable(readable: boolean): void {
    this.actor.send({ kind: 'store-readable', readable });
    this.deps.metrics?.storeReadable.set(readable ? 1 : 0);
  }

  storeSnapshot(states: readonly TradingStateEntry[], overrides: ReadonlyArray<[ScopeKey, Limits | 'invalid']>): void {
    this.actor.send({ kind: 'store-snapshot', states, overrides });
    this.deps.metrics?.storeReadable.set(1);
    this.reportStates();
    for (const entry of states) this.tellTradingState(entry);
  }

  limitsChanged(key: ScopeKey, limits: Limits | 'invalid' | null): void {
    this.actor.send({ kind: 'limits-changed', key, limits });
  }

  stop(): Promise<void> {
    return this.actor.stop();
  }

  private execute(effect: RiskEffect): void {
    const { metrics, logger } = this.deps;
    switch (effect.kind) {
      case 'reply':
        if (effect.decision.ok) {
          metrics?.admitted.inc();
        } else {
          metrics?.refusals.inc({ code: effect.decision.code });
          logger?.info('order refused by pre-trade risk', {
            orderId: effect.order.orderId,
            strategyId: effect.order.strategyId,
            code: effect.decision.code,
            values: effect.decision.values,
          });
        }
        effect.reply(effect.decision);
        this.reportOpenOrders();
        this.reportUtilisation(effect.order);
        return;
      case 'share-admitted':
        this.peers?.admitted(effect.order, effect.admittedAt);
        return;
      case 'publish-admission':
        this.publishAdmission(effect.order, effect.admittedAt, effect.expectedLast);
        return;
      case 'admission-retried':
        metrics?.admissionRetries.inc();
        return;
      case 'admission-unsequenced':
        metrics?.admissionsUnsequenced.inc();
        logger?.warn('order admitted without sequence: other instances may have admitted against the same headroom', {
          orderId: effect.orderId,
          reason: effect.reason.slice(0, 200),
        });
        return;
      case 'share-event':
        this.peers?.recorded(effect.event);
        return;
      case 'persist-fill': {
        const stored = this.positions?.applyFill(effect.scopes, effect.orderId, effect.deltas) ?? Promise.resolve();
        stored.then(
          () => effect.settled?.(),
          (error: unknown) => {
            const reason = error instanceof Error ? error.message : String(error);
            metrics?.positionWriteFailures.inc();
            logger?.error('a fill could not be added to the durable risk positions', {
              orderId: effect.orderId,
              error: reason,
            });
            effect.settled?.(reason);
          },
        );
        return;
      }
      case 'event-ignored':
        metrics?.eventsIgnored.inc();
        logger?.warn('order event ignored by pre-trade risk', { orderId: effect.orderId, reason: effect.reason });
        effect.settled?.(effect.reason);
        return;
      case 'restored':
        logger?.info(
          `risk book restored from the ${effect.from === 'journal' ? 'journal' : 'admissions of the last minute'}`,
          {
            orders: effect.orders,
            skipped: effect.skipped,
          },
        );
        return;
    }
  }

  /** The publication's answer back into the mailbox, as the event the transition expects. */
  private publishAdmission(order: RiskOrder, admittedAt: number, expectedLast: number): void {
    const orderId = order.orderId;
    const unsequenced = (reason: string): void => this.actor.send({ kind: 'admission-unsequenced', orderId, reason });
    const peers = this.peers;
    if (peers === undefined) {
      unsequenced('no other instances are followed (stopping)');
      return;
    }
    peers.publishAdmission(order, admittedAt, expectedLast).then(
      (answer) => {
        if (answer.kind === 'stored') this.actor.send({ kind: 'admission-stored', orderId, seq: answer.seq });
        else if (answer.kind === 'overtaken') {
          this.actor.send({ kind: 'admission-overtaken', orderId, missed: answer.missed, last: answer.last });
        } else unsequenced(answer.reason);
      },
      (error: unknown) => unsequenced(error instanceof Error ? error.message : String(error)),
    );
  }

  /** The order's scopes join those whose limits' use the gauge reads (at scrape time, `utilisationNow`). */
  private reportUtilisation(order: RiskOrder): void {
    if (this.deps.metrics === undefined) return;
    const scoped = limitsFor(this.actor.state.limits, order);
    if (!Array.isArray(scoped)) return;
    for (const scope of scoped) this.utilised.set(scope.key, scope);
  }

  /** Per limit and scope kind, the most used scope's share now (windows counted up to now, exposure as it stands). */
  private utilisationNow(): Map<string, [{ limit: string; scope: string }, number]> {
    const { book } = this.actor.state;
    const now = this.deps.clock.now();
    const largest = new Map<string, [{ limit: string; scope: string }, number]>();
    for (const scoped of this.utilised.values()) {
      for (const [limit, ratio] of utilisationOf(book, scoped, now)) {
        const label = `${limit}|${scoped.scope}`;
        largest.set(label, [{ limit, scope: scoped.scope }, Math.max(largest.get(label)?.[1] ?? 0, ratio)]);
      }
    }
    return largest;
  }

  /** Global: 1 for its state; account groups and strategies: how many are in each state. */
  private reportStates(): void {
    const metrics = this.deps.metrics;
    if (metrics === undefined) return;
    const counts = {
      accountGroup: { ACTIVE: 0, REDUCING: 0, HALTED: 0 },
      strategy: { ACTIVE: 0, REDUCING: 0, HALTED: 0 },
    };
    let global: TradingState = 'ACTIVE';
    for (const entry of this.actor.state.states.entries.values()) {
      if (entry.scope === 'global') global = entry.state;
      else counts[entry.scope][entry.state] += 1;
    }
    for (const state of TRADING_STATES) {
      metrics.tradingStates.set({ scope: 'global', state }, state === global ? 1 : 0);
      metrics.tradingStates.set({ scope: 'accountGroup', state }, counts.accountGroup[state]);
      metrics.tradingStates.set({ scope: 'strategy', state }, counts.strategy[state]);
    }
  }

  private reportOpenOrders(): void {
    const metrics = this.deps.metrics;
    if (metrics === undefined) return;
    const { inFlight, unknown } = this.actor.state.book.openCounts;
    metrics.openOrders.set({ status: 'in-flight' }, inFlight);
    metrics.openOrders.set({ status: 'unknown' }, unknown);
  }
}
