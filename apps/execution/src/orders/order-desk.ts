/**
 * The orders this instance handles: one actor per order (mailbox + `orderTransition`), and the shell that
 * executes their effects — the command to the connector's durable stream, compare-and-set writes to the
 * journal, state events, risk records, positions, reconciliation reads and timers.
 *
 * Failure handling is one rule: when a journal write or an event cannot be stored, the actor is dropped
 * and the order stays open in the journal; the ownership sweep resumes it from there (resume = reconcile
 * only, never send). When a write is refused by compare-and-set, another instance owns the order now:
 * the actor is fenced and does nothing more.
 */
import { performance } from 'node:perf_hooks';
import {
  isFinalStatus,
  type ExecutionSubjects,
  type OrderCommand,
  type OrderEvent,
  type OrderOutcome,
  type OrderState,
  type Subjects,
  type Topics,
} from '#contracts';
import type { BusPublisher, BusStreams } from '#bus';
import { Actor, type Cancel, type Clock } from '#actors';
import type { JsonLogger } from '#observability';
import type { ExecutionMetrics, ResumeWay } from '../metrics/execution-metrics.js';
import type { RiskGate } from '../risk/risk-gate.js';
import type { VenueRecords } from '../venue/venue-evidence.js';
import { JournalConflictError, type OrderJournal } from './order-journal.js';
import {
  initialOrderState,
  type Contradiction,
  orderTransition,
  type OrderEffect,
  type OrderEnv,
  type OrderMachineEvent,
  type OrderMachineState,
  type OrderTimings,
  type VenueEvidence,
} from './order-machine.js';
import { commandSendBy, isFinalState, unresolvedSince, type OrderRecord } from './order-record.js';
import type { QuoteClaims } from '../quotes/quote-claims.js';
import type { Positions } from './positions.js';
import { SettledOrders } from './settled-orders.js';
import { riskRestoreOf } from './risk-restore.js';

/** Test-only fault injection: the process kills itself (SIGKILL) right after this step of a new order. */
export type CrashPoint = 'after-key-claim' | 'after-intent' | 'after-send';

/** How long a new order's command is published again through a NATS outage before the order is left to evidence. */
const COMMAND_PUBLISH_WINDOW_MS = 30_000;
const COMMAND_PUBLISH_RETRY_MS = 500;

export interface OrderDeskDeps {
  instanceId: string;
  subjects: Subjects;
  execSubjects: ExecutionSubjects;
  topics: Topics;
  outcomeStream: string;
  /** The execution app's own order event stream. */
  eventStream: string;
  journal: OrderJournal;
  /** Quote shares across instances: an order known not executed gives its share back. */
  claims: QuoteClaims;
  publisher: BusPublisher;
  streams: BusStreams;
  venue: VenueRecords;
  risk: RiskGate;
  positions: Positions;
  metrics: ExecutionMetrics;
  clock: Clock;
  logger: JsonLogger;
  timings: OrderTimings;
  /** The command's `sendBy`: acceptance + this, at most the quote's expiry and the algo's own `sendBy`. */
  sendDeadlineMs: number;
  crashAt?: CrashPoint;
}

interface ManagedOrder {
  readonly orderId: string;
  readonly actor: Actor<OrderMachineState, OrderMachineEvent, OrderEffect, OrderEnv>;
  /** The journal revision this instance last wrote or read (undefined: read before the first write). */
  revision: number | undefined;
  timer: Cancel | undefined;
  /** When the place request arrived (performance.now()), for the hop histogram; new orders only. */
  receivedAt: number | undefined;
  /** Set when the actor must do nothing more (fenced, dropped or closed). */
  done: boolean;
}

export class OrderDesk {
  private readonly orders = new Map<string, ManagedOrder>();
  private readonly byClientRequestId = new Map<string, ManagedOrder>();
  /** Orders resumed at start-up and not yet checked against the venue (nor final): new orders wait for them. */
  private readonly startupPending = new Set<string>();
  /** Final states of orders closed lately: a later connector outcome is checked against them. */
  private readonly settled = new SettledOrders();
  private readonly logger: JsonLogger;

  constructor(private readonly deps: OrderDeskDeps) {
    this.logger = deps.logger.child('orders');
  }

  /** Orders being placed right now (journal writes in flight): the sweep must not resume them. */
  private readonly placing = new Set<string>();
  /** New orders placed here whose command is not stored in its stream yet (intake counts them as queued). */
  private readonly unpublished = new Set<string>();

  /** Commands of new orders this instance has stored in their stream, ever (intake's backlog reading). */
  private published = 0;

  /** New orders being placed or placed here whose command is not in its stream yet: queued ahead of the next. */
  get commandsUnpublished(): number {
    return this.placing.size + this.unpublished.size;
  }

  get commandsPublished(): number {
    return this.published;
  }

  handles(orderId: string): boolean {
    return this.orders.has(orderId) || this.placing.has(orderId);
  }

  /** Before a new order's intent is written: from now on this instance handles it (or `release`s it). */
  reserve(orderId: string): void {
    this.placing.add(orderId);
  }

  release(orderId: string): void {
    this.placing.delete(orderId);
  }

  /** A new order whose intent is durable: the only way a command is ever published. */
  place(record: OrderRecord, receivedAt: number): void {
    this.unpublished.add(record.orderId);
    this.placing.delete(record.orderId);
    const managed = this.spawn(record, undefined, receivedAt);
    managed.actor.send({ type: 'start' });
  }

  /** An order of an earlier life or of a dead instance: reconciled, never sent. */
  resume(record: OrderRecord, revision: number, how: ResumeWay): void {
    if (this.orders.has(record.orderId)) return;
    if (how === 'startup' && !isFinalState(record.state)) this.startupPending.add(record.orderId);
    // taken over from a dead instance after start-up: risk learns it here (the start-up restore held every open order)
    if (how === 'takeover' && !isFinalState(record.state)) this.deps.risk.restore([riskRestoreOf(record)]);
    this.deps.metrics.resumed.inc({ how });
    this.logger.debug('order resumed', { orderId: record.orderId, how, state: record.state });
    const managed = this.spawn(record, revision, undefined);
    managed.actor.send({ type: 'resume' });
  }

  /** An outcome the connector published (live subscription): to the order's actor, if this instance has it. */
  onOutcome(outcome: OrderOutcome): void {
    const managed = this.byClientRequestId.get(outcome.clientRequestId);
    this.logger.debug('connector outcome', {
      orderId: managed?.orderId,
      status: outcome.status,
      mine: managed !== undefined,
    });
    if (managed !== undefined) return managed.actor.send({ type: 'outcome', outcome });
    const contradiction = this.settled.contradiction(outcome);
    if (contradiction !== undefined) this.contradicted(outcome.clientRequestId, contradiction);
  }

  /** Venue evidence contradicts an order's final state: the state stands (never a second final), counted and logged. */
  private contradicted(clientRequestId: string, contradiction: Contradiction): void {
    this.deps.metrics.outcomeContradictions.inc({ source: contradiction.source });
    this.logger.warn('venue evidence contradicts the final state of an order; the first one stands', {
      clientRequestId: clientRequestId.slice(0, 64),
      ...contradiction,
    });
  }

  records(): OrderRecord[] {
    return [...this.orders.values()].map((m) => m.actor.state.record);
  }

  /** Orders resumed at start-up still waiting for their first venue check. */
  get startupUnchecked(): number {
    for (const orderId of this.startupPending) {
      const managed = this.orders.get(orderId);
      if (managed === undefined) continue; // dropped: the sweep resumes it, still pending
      const { record, venueChecked } = managed.actor.state;
      if (venueChecked || isFinalState(record.state)) this.startupPending.delete(orderId);
    }
    return this.startupPending.size;
  }

  ordersByState(): Record<string, number> {
    const counts: Partial<Record<OrderState, number>> = {};
    for (const managed of this.orders.values()) {
      const state = managed.actor.state.record.state;
      counts[state] = (counts[state] ?? 0) + 1;
    }
    return counts;
  }

  /** Orders of unknown outcome (`unresolvedSince`), and how old the oldest is. */
  unresolved(): { count: number; oldestAgeMs: number } {
    const now = this.deps.clock.now();
    let count = 0;
    let oldest = now;
    for (const managed of this.orders.values()) {
      const since = unresolvedSince(managed.actor.state.record, this.deps.sendDeadlineMs, now);
      if (since === undefined) continue;
      count += 1;
      oldest = Math.min(oldest, since);
    }
    return { count, oldestAgeMs: count === 0 ? 0 : now - oldest };
  }

  /** Stops every actor after its mailbox drained (bounded by the caller); timers are cancelled. */
  async stop(): Promise<void> {
    const all = [...this.orders.values()];
    for (const managed of all) managed.timer?.();
    await Promise.all(all.map((m) => m.actor.idle()));
    for (const managed of all) {
      managed.done = true;
      await managed.actor.stop();
    }
    this.orders.clear();
    this.byClientRequestId.clear();
  }

  private spawn(record: OrderRecord, revision: number | undefined, receivedAt: number | undefined): ManagedOrder {
    const { clock, timings } = this.deps;
    const managed: ManagedOrder = {
      orderId: record.orderId,
      revision,
      timer: undefined,
      receivedAt,
      done: false,
      actor: new Actor({
        name: `order-${record.orderId}`,
        initial: initialOrderState(record),
        transition: orderTransition,
        environment: () => ({ now: clock.now(), timings }),
        execute: (effect, self) => this.execute(managed, effect, self),
        onError: (error, where) => this.failed(managed, error, where.effect),
      }),
    };
    this.orders.set(record.orderId, managed);
    this.byClientRequestId.set(record.clientRequestId, managed);
    return managed;
  }

  /** In the background: the claim of an order not executed only blocks its quote until the quote expires. */
  private giveBackQuote(record: OrderRecord): void {
    this.deps.claims.release(record.quoteId, record.orderId).catch((error: unknown) =>
      this.logger.warn('quote claim of an order not executed not given back', {
        orderId: record.orderId,
        quoteId: record.quoteId,
        error: error instanceof Error ? error.message : String(error),
      }),
    );
  }

  private execute(
    managed: ManagedOrder,
    effect: OrderEffect,
    self: { send(event: OrderMachineEvent): void },
  ): void | Promise<void> {
    if (managed.done) return;
    const record = managed.actor.state.record;
    switch (effect.type) {
      case 'publish-command':
        return this.publishCommand(managed, record, self);
      case 'persist':
        return this.persist(managed, effect.record, self);
      case 'emit':
        return this.emit(effect.event.order.strategyId, effect.event.order.orderId, effect, record);
      case 'risk':
        this.deps.risk.record(effect.event);
        if (effect.event.kind === 'not-executed') this.giveBackQuote(record);
        return;
      case 'apply-position':
        return this.deps.positions
          .apply(record.strategyId, record.orderId, record.side, effect.fill)
          .then(() => undefined);
      case 'close':
        return this.close(managed);
      case 'contradiction': {
        const { type: _type, ...contradiction } = effect;
        return this.contradicted(record.clientRequestId, contradiction);
      }
      case 'read-outcome':
        void this.readOutcome(record, self);
        return;
      case 'query-venue':
        void this.deps.venue.evidence(record.clientRequestId, effect).then((evidence) => {
          this.logger.debug('venue evidence', {
            orderId: record.orderId,
            state: record.state,
            ...evidenceSummary(evidence),
          });
          self.send({ type: 'venue-evidence', evidence });
        });
        return;
      case 'schedule':
        managed.timer?.();
        managed.timer = this.deps.clock.setTimeout(() => {
          this.logger.debug('reconciliation due', { orderId: managed.orderId, ticks: managed.actor.state.ticks });
          self.send({ type: 'reconcile-due' });
        }, effect.delayMs);
        return;
    }
  }

  private async publishCommand(
    managed: ManagedOrder,
    record: OrderRecord,
    self: { send(event: OrderMachineEvent): void },
  ): Promise<void> {
    if (this.deps.crashAt === 'after-intent') crash();
    const command: OrderCommand = {
      clientRequestId: record.clientRequestId,
      quoteId: record.quoteId,
      side: record.side,
      ...(record.instrument !== undefined ? { instrument: record.instrument } : {}),
      sendBy: commandSendBy(record, this.deps.sendDeadlineMs),
    };
    // The same command under the same msgId, retried through a NATS outage or a JetStream leader election:
    // the stream deduplicates it and the connector's mark sends a clientRequestId at most once, so a retry can
    // never place the order twice — while giving up here would leave the order unsent until its quote expired.
    const giveUpAt = this.deps.clock.now() + COMMAND_PUBLISH_WINDOW_MS;
    for (;;) {
      try {
        await this.deps.publisher.publishDurableTo(this.deps.topics.orderCommand, command, {
          msgId: record.clientRequestId,
        });
        break;
      } catch (error) {
        const reason = error instanceof Error ? error.message : String(error);
        if (managed.done || this.deps.clock.now() >= giveUpAt) {
          this.logger.error('order command not stored; the order is reconciled, never sent again', {
            orderId: record.orderId,
            error: reason,
          });
          this.unpublished.delete(record.orderId);
          self.send({ type: 'command-failed' });
          return;
        }
        this.logger.warn('order command not stored yet; publishing it again', {
          orderId: record.orderId,
          error: reason,
        });
        await new Promise<void>((resolve) => this.deps.clock.setTimeout(resolve, COMMAND_PUBLISH_RETRY_MS));
      }
    }
    this.published += 1;
    this.unpublished.delete(record.orderId);
    if (managed.receivedAt !== undefined) {
      this.deps.metrics.hop.observe((performance.now() - managed.receivedAt) / 1_000);
    }
    if (this.deps.crashAt === 'after-send') crash();
    self.send({ type: 'command-published' });
  }

  private async persist(
    managed: ManagedOrder,
    record: OrderRecord,
    self: { send(event: OrderMachineEvent): void },
  ): Promise<void> {
    const { journal } = this.deps;
    if (managed.revision === undefined) {
      const current = await journal.read(record.orderId);
      if (current === undefined || current.record.owner !== this.deps.instanceId) return this.fence(managed, self);
      managed.revision = current.revision;
    }
    try {
      managed.revision = await journal.update(record, managed.revision);
    } catch (error) {
      if (!(error instanceof JournalConflictError)) throw error;
      const current = await journal.read(record.orderId);
      if (current === undefined || current.record.owner !== this.deps.instanceId) return this.fence(managed, self);
      // Our own earlier write whose answer was lost: the record is ours, write on top of it.
      managed.revision = await journal.update(record, current.revision);
    }
  }

  private fence(managed: ManagedOrder, self: { send(event: OrderMachineEvent): void }): void {
    this.deps.metrics.journalConflicts.inc();
    this.logger.warn('order taken over by another instance; this one stops handling it', { orderId: managed.orderId });
    self.send({ type: 'fenced' });
    this.forget(managed);
  }

  private async emit(
    strategyId: string,
    orderId: string,
    effect: Extract<OrderEffect, { type: 'emit' }>,
    record: OrderRecord,
  ): Promise<void> {
    const topic = this.deps.execSubjects.orderEventTopic(strategyId, orderId);
    if (effect.event.order.final) {
      // One final event per order, ever: also beyond the stream's duplicate window (a final order resumed
      // long after a crash re-announces itself only if its final event is not stored yet).
      const stored = await this.deps.streams.lastMessage<OrderEvent>(this.deps.eventStream, topic.subject);
      if (stored?.value.order.final === true) return;
    }
    const ack = await this.deps.publisher.publishDurableTo(topic, effect.event, { msgId: effect.msgId, attempts: 3 });
    // a re-announcement after a resume is stored once and counted once
    if (!ack.duplicate) this.deps.metrics.entered(effect.event.order.state, record.strategyId);
  }

  private async close(managed: ManagedOrder): Promise<void> {
    const { record } = managed.actor.state;
    if (record.status !== undefined) this.settled.settle(record.clientRequestId, record.status);
    await this.deps.journal.close(managed.orderId);
    this.startupPending.delete(managed.orderId);
    this.forget(managed);
    void managed.actor.stop();
  }

  private async readOutcome(record: OrderRecord, self: { send(event: OrderMachineEvent): void }): Promise<void> {
    const subject = this.deps.subjects.orderOutcome(record.clientRequestId);
    try {
      const stored = await this.deps.streams.lastMessage<OrderOutcome>(this.deps.outcomeStream, subject);
      this.deps.metrics.reconciliationAttempts.inc({
        source: 'connector',
        result: stored === undefined ? 'none' : isFinalStatus(stored.value.status) ? 'final' : 'found',
      });
      if (stored !== undefined) self.send({ type: 'outcome', outcome: stored.value });
    } catch {
      this.deps.metrics.reconciliationAttempts.inc({ source: 'connector', result: 'unreachable' });
    }
  }

  /** An effect failed: drop the actor; the order stays open in the journal and the sweep resumes it. */
  private failed(managed: ManagedOrder, error: unknown, effect: OrderEffect | undefined): void {
    if (managed.done) return;
    this.logger.error('order effect failed; the order will be resumed from the journal', {
      orderId: managed.orderId,
      effect: effect?.type,
      error: error instanceof Error ? error.message : String(error),
    });
    this.forget(managed);
  }

  private forget(managed: ManagedOrder): void {
    managed.done = true;
    managed.timer?.();
    if (this.orders.get(managed.orderId) === managed) this.orders.delete(managed.orderId);
    this.unpublished.delete(managed.orderId);
    const record = managed.actor.state.record;
    if (this.byClientRequestId.get(record.clientRequestId) === managed)
      this.byClientRequestId.delete(record.clientRequestId);
  }
}

/** How many records each source held (or `unreachable`), for the debug log. */
function evidenceSummary(evidence: VenueEvidence): Record<string, number | string> {
  const size = (records: unknown[] | 'unreachable' | undefined) =>
    records === undefined ? 'not asked' : records === 'unreachable' ? records : records.length;
  return { trades: size(evidence.trades), orderState: size(evidence.orderState) };
}

export function crash(): never {
  process.kill(process.pid, 'SIGKILL');
  throw new Error('unreachable');
}
