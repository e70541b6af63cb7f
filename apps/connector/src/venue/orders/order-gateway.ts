import { type Observable, Subject } from 'rxjs';
import { Actor, BoundedMap, type ActorRef } from '#actors';
import {
  canFollow,
  contradicts,
  isFinalStatus,
  RECALLED,
  SEND_DEADLINE_PASSED,
  type OrderCommand,
  type OrderNotSentCode,
  type OrderContradiction,
  type OrderOutcome,
  type OrderOutcomeSource,
  type OrderOutcomeStatus,
} from '#contracts';
import { InvalidClientMessageError, type OrderReply, type ServiceMessage } from '#venue-api';
import type { JsonLogger } from '#observability';
import type { Cancel, VenueClock } from '../clock.js';
import type { OutboundLimiter } from '../outbound/outbound-limiter.js';
import type { OrderStateSource } from '../rest/venue-sources.js';
import { safeReason } from '../session/socket-url.js';
import type { VenueChannel } from '../session/venue-channel.js';
import type { VenueMetrics } from '../venue-metrics.js';
import { OrderIndex } from './order-index.js';
import {
  isSettled,
  newOrder,
  type OrderEffect,
  type OrderEnv,
  type OrderEvent,
  type OrderFacts,
  type OrderPolicy,
  type OrderState,
  orderTransition,
  saysUnsubscribed,
} from './order-machine.js';

export interface OrderGatewayOptions {
  sessionId: string;
  orderReplyTimeoutMs: number;
  orderSendTimeoutMs: number;
  redeliveryGraceMs: number;
  /** Order-state checks of an unresolved order: first delay, doubled each time up to the max. */
  reconcileInitialMs: number;
  reconcileMaxMs: number;
  /** The venue keeps order state 24 h (§4.10); after it the execution app settles from the trade list. */
  reconcileHorizonMs: number;
}

/** What is known of an order this process did not send itself (a redelivered command, a start-up mark). */
/**
 * Asked once, right before an order frame leaves (after the waits for the session and the order gap): 'send',
 * or 'hold-back' to leave it unsent. It may throw (its store unreachable): the order is then not sent.
 */
export type SendGate = () => Promise<'send' | 'hold-back'>;

export interface ReconcileHints {
  quoteId?: string;
  side?: 'BUY' | 'SELL';
  /** Epoch ms when the order was marked for sending: the 24 h horizon counts from here. */
  markedAt?: number;
}

/** The order frame never left the process: the order was certainly not placed and may be sent again. */
export class OrderNotSentError extends Error {
  override readonly name = 'OrderNotSentError';
  constructor(
    readonly clientRequestId: string,
    readonly code: Exclude<OrderNotSentCode, typeof OrderNotSentCode.InvalidRequest> | 'SHUTTING_DOWN',
  ) {
    super(`order ${clientRequestId} not sent: ${code}`);
  }
}

type OrderActor = Actor<OrderState, OrderEvent, OrderEffect, OrderEnv>;

interface OrderCell {
  readonly actor: OrderActor;
  cancelTimer: Cancel | undefined;
}

/** How many finished orders are remembered, so a late duplicate redelivery is not published twice. */
const RECENT_LIMIT = 10_000;

/**
 * Order frames and their outcomes: one actor per order (order-machine.ts), created when its frame leaves,
 * when a command for it is redelivered, or when the venue speaks of it. This class sends, routes venue
 * frames to the right actor (by clientRequestId, else transactionId, else quoteId: the order reply's fields
 * are not shown by the spec) and executes the actors' effects. Each clientRequestId is sent at most once
 * per process and never re-placed.
 */
export class OrderGateway {
  private readonly cells = new Map<string, OrderCell>();
  private readonly index = new OrderIndex();
  private readonly submitting = new Set<string>();
  private readonly recent = new BoundedMap<string, OrderOutcomeStatus | undefined>(RECENT_LIMIT);
  /** Orders recalled before their frames left (OrderRecall): never sent. Kept as long as `recent`. */
  private readonly recalled = new BoundedMap<string, true>(RECENT_LIMIT);
  private readonly outcomeSubject = new Subject<OrderOutcome>();
  private readonly contradictionSubject = new Subject<OrderContradiction>();
  private readonly openWaiters: Array<() => void> = [];
  private readonly settledWaiters: Array<() => void> = [];
  private readonly policy: OrderPolicy;
  private readonly log: JsonLogger;
  private stopping = false;
  private closed = false;

  /** Every outcome, including ones for orders this process never sent (redelivered after a restart). */
  readonly outcomes$: Observable<OrderOutcome>;
  /** Venue evidence contradicting a final outcome published (K7): told to execution, which reads the trade list. */
  readonly contradictions$: Observable<OrderContradiction>;

  constructor(
    private readonly channel: VenueChannel,
    private readonly limiter: OutboundLimiter,
    private readonly orderStates: OrderStateSource,
    private readonly metrics: VenueMetrics,
    logger: JsonLogger,
    private readonly clock: VenueClock,
    options: OrderGatewayOptions,
  ) {
    this.log = logger.child('OrderGateway');
    this.outcomes$ = this.outcomeSubject.asObservable();
    this.contradictions$ = this.contradictionSubject.asObservable();
    this.policy = {
      sessionId: options.sessionId,
      replyTimeoutMs: options.orderReplyTimeoutMs,
      redeliveryGraceMs: options.redeliveryGraceMs,
      checkInitialMs: options.reconcileInitialMs,
      checkMaxMs: options.reconcileMaxMs,
      horizonMs: options.reconcileHorizonMs,
      unsubscribeTimeoutMs: options.orderReplyTimeoutMs,
    };
    this.sendTimeoutMs = options.orderSendTimeoutMs;
    metrics.watchUnresolvedOrders(() => this.unresolved());
    channel.addFrameListener((message) => this.onFrame(message));
    channel.connection$.subscribe((event) => {
      if (event.up) for (const wake of this.openWaiters.splice(0)) wake();
    });
  }

  private readonly sendTimeoutMs: number;

  /** Resolves when the frame has left. Rejects with `OrderNotSentError` when it certainly did not. */
  async submit(cmd: OrderCommand, gate?: SendGate): Promise<'sent' | 'held-back'> {
    const id = cmd.clientRequestId;
    if (this.cells.has(id) || this.recent.has(id) || this.submitting.has(id)) {
      this.log.warn('order already sent by this process; not sending again', { clientRequestId: id });
      return 'held-back';
    }
    this.submitting.add(id);
    try {
      if (this.stopping) throw new OrderNotSentError(id, 'SHUTTING_DOWN');
      this.checkSendable(cmd);
      // A session that closes while the order waits for its gap is waited for again, within the same send timeout
      // (outside tester: such an order failed NOT_CONNECTED 0.2 s after a drop the session recovered from in 1 s).
      const waitUntil = this.clock.now() + this.sendTimeoutMs;
      let sentOn: number | undefined;
      while (sentOn === undefined) {
        const open = await this.waitOpen(Math.max(0, waitUntil - this.clock.now()));
        if (this.stopping) throw new OrderNotSentError(id, 'SHUTTING_DOWN');
        this.checkSendable(cmd);
        if (!open) throw new OrderNotSentError(id, 'NOT_CONNECTED');
        const slot = await this.limiter.acquireOrder();
        // the slot is settled on every path: an order that never left must not hold up the next one's pace
        try {
          if (this.stopping) throw new OrderNotSentError(id, 'SHUTTING_DOWN');
          // the last moment before the frame leaves: the wait for the session and for the order gap is behind us
          this.checkSendable(cmd);
          // the caller's last word (its durable send mark), taken only now: a process killed while the order
          // waited for its gap leaves no mark, and the command is sent after its restart (outside tester)
          if (gate !== undefined) {
            const decision = await gate();
            gate = undefined;
            if (decision === 'hold-back') return 'held-back';
            if (this.stopping) throw new OrderNotSentError(id, 'SHUTTING_DOWN');
          }
          const connection = this.channel.openConnection;
          if (connection !== undefined && this.sendOrderFrame(cmd)) sentOn = connection;
        } finally {
          if (sentOn !== undefined) slot.sent(id);
          else slot.unused();
        }
        if (sentOn !== undefined) break;
        if (this.clock.now() >= waitUntil) throw new OrderNotSentError(id, 'NOT_CONNECTED');
      }
      this.index.quote(cmd.quoteId, id);
      this.cell(id, this.clock.now(), { quoteId: cmd.quoteId, side: cmd.side }).actor.send({
        type: 'sent',
        connection: sentOn,
      });
      return 'sent';
    } catch (error) {
      if (error instanceof OrderNotSentError) {
        this.metrics.countOrder('NOT_SENT', 'NOT_SENT');
        this.log.warn('order not sent', { clientRequestId: id, code: error.code });
      }
      throw error;
    } finally {
      this.submitting.delete(id);
    }
  }

  /** A command recalled, or past its `sendBy` (OrderCommand.sendBy), is never sent. */
  private checkSendable(cmd: OrderCommand): void {
    if (this.recalled.has(cmd.clientRequestId)) throw new OrderNotSentError(cmd.clientRequestId, RECALLED);
    if (cmd.sendBy !== undefined && this.clock.now() > cmd.sendBy) {
      throw new OrderNotSentError(cmd.clientRequestId, SEND_DEADLINE_PASSED);
    }
  }

  /**
   * Orders not to send (OrderRecall): a command for one of them, now waiting or still to come, is refused before
   * its frame leaves. One already sent is not affected. Returns how many were already sent.
   */
  recall(clientRequestIds: readonly string[]): { alreadySent: number } {
    let alreadySent = 0;
    for (const id of clientRequestIds) {
      if (this.cells.has(id) || this.recent.has(id)) alreadySent += 1;
      else this.recalled.set(id, true);
    }
    return { alreadySent };
  }

  /** The codec refuses a frame it cannot write (nothing leaves): the order certainly was not placed. */
  private sendOrderFrame(cmd: OrderCommand): boolean {
    const { clientRequestId, quoteId, side } = cmd;
    try {
      return this.channel.send({ messageType: 'order', quoteId, side, clientRequestId, autoSubscribe: true });
    } catch (error) {
      if (error instanceof InvalidClientMessageError) throw new OrderNotSentError(clientRequestId, 'INVALID_ORDER');
      throw error;
    }
  }

  /**
   * Resolves an order whose frame may have left (never re-sends it): redelivery, then the order-state
   * endpoint again and again with backoff until a final answer or the 24 h horizon. Returns at once.
   */
  reconcile(clientRequestId: string, hints: ReconcileHints = {}): Promise<void> {
    if (this.closed || this.recent.has(clientRequestId)) return Promise.resolve();
    if (hints.quoteId !== undefined) this.index.quote(hints.quoteId, clientRequestId);
    const known = {
      ...(hints.quoteId !== undefined && { quoteId: hints.quoteId }),
      ...(hints.side !== undefined && { side: hints.side }),
    };
    this.cell(clientRequestId, hints.markedAt ?? this.clock.now(), known).actor.send({ type: 'reconcile' });
    return Promise.resolve();
  }

  /** How long each order waiting to be sent holds the ones behind it now (OutboundLimiter.orderQueuePaceMs). */
  orderQueuePaceMs(): number {
    return this.limiter.orderQueuePaceMs;
  }

  /**
   * The execution app settled an order this gateway still reconciles (from the venue's trade list): it is no longer
   * looked up here nor counted unresolved. Only a reconciling order (its frame answered UNKNOWN/INDETERMINATE, or
   * never answered); one awaiting its reply keeps waiting. True when it was settled here.
   */
  settledElsewhere(clientRequestId: string, status: 'SUCCESS' | 'FAILED'): boolean {
    const cell = this.cells.get(clientRequestId);
    if (cell === undefined || !settleableElsewhere(cell.actor.state)) return false;
    this.settle(clientRequestId, status);
    // the venue may still hold its outcome for us: without this it redelivers it at every reconnect for 24 h
    this.orderUnsubscribe(clientRequestId);
    return true;
  }

  /** Orders whose outcome is not final yet, and the age of the oldest (for metrics and alerts). */
  private unresolved(): { count: number; oldestAgeMs: number | undefined } {
    const now = this.clock.now();
    let count = 0;
    let oldest: number | undefined;
    for (const { actor } of this.cells.values()) {
      const { phase, since } = actor.state;
      if (phase !== 'new' && phase !== 'awaiting' && phase !== 'reconciling') continue;
      count += 1;
      oldest = oldest === undefined ? since : Math.min(oldest, since);
    }
    return { count, oldestAgeMs: oldest === undefined ? undefined : now - oldest };
  }

  /** Orders sent or seen and not settled. */
  get inFlight(): number {
    return this.cells.size;
  }

  /** The order actor's state, for diagnostics and tests. */
  stateOf(clientRequestId: string): OrderState | undefined {
    return this.cells.get(clientRequestId)?.actor.state;
  }

  /** Shutdown begins: no order frame leaves from now on (an order waiting to be sent is refused, unsent). */
  stopSending(): void {
    this.stopping = true;
    for (const wake of this.openWaiters.splice(0)) wake();
  }

  /**
   * Drain hook (bounded by the session's drain timeout): send no more orders; wait for the replies of
   * orders whose frame left and for the orderUnsubscribes in flight, so their outcomes are stored now.
   */
  async drain(): Promise<void> {
    this.stopSending();
    while (this.waitingOnVenue()) await new Promise<void>((resolve) => this.settledWaiters.push(resolve));
  }

  close(): void {
    this.closed = true;
    for (const cell of this.cells.values()) {
      cell.cancelTimer?.();
      void cell.actor.stop();
    }
    this.outcomeSubject.complete();
    this.contradictionSubject.complete();
  }

  // ------------------------------------------------------------------ venue frames

  private onFrame(message: ServiceMessage): void {
    if (message.messageType === 'order') this.onReply(message);
    else if (message.messageType === 'orderUnsubscribe') {
      this.cells.get(message.clientRequestId)?.actor.send({ type: 'unsubscribed' });
    }
  }

  private onReply(reply: OrderReply): void {
    const id = this.index.correlate(reply);
    // A transaction is bound to an order only on a reply that names the order itself, never on a guess.
    if (reply.clientRequestId !== undefined && reply.transactionId !== undefined)
      this.index.transaction(reply.transactionId, reply.clientRequestId);
    if (id === undefined) {
      this.metrics.uncorrelatedReplies.inc();
      this.log.warn('order reply matches no order; left to the order-state checks', {
        transactionId: reply.transactionId?.slice(0, 64),
        quoteId: reply.quoteId?.slice(0, 64),
        orderStatus: reply.orderStatus,
      });
      return;
    }
    if (!this.cells.has(id) && this.recent.has(id)) {
      const finished = this.recent.get(id);
      if (finished !== undefined && !canFollow(finished, reply.orderStatus)) {
        // A late duplicate of a finished order: the venue may still deliver it; stop that again.
        if (contradicts(finished, reply.orderStatus)) this.contradicted(id, finished, reply.orderStatus, 'redelivery');
        // K7: a reply that does not say (the minimal reply has no subscriptionStatus) is taken as still subscribed
        if (isFinalStatus(reply.orderStatus) && !saysUnsubscribed(reply.subscriptionStatus)) this.orderUnsubscribe(id);
        return;
      }
      this.recent.delete(id);
    }
    this.cell(id, this.clock.now()).actor.send({ type: 'reply', reply, connection: this.channel.openConnection });
  }

  // ------------------------------------------------------------------ actors

  private cell(id: string, since: number, known: OrderFacts = {}): OrderCell {
    const existing = this.cells.get(id);
    if (existing !== undefined) return existing;
    const actor: OrderActor = new Actor({
      name: `order:${id}`,
      initial: newOrder(id, since, known),
      transition: orderTransition,
      environment: () => ({ now: this.clock.now(), policy: this.policy }),
      execute: (effect, self) => this.execute(id, effect, self),
      onError: (error) => this.log.error('order actor failed', { clientRequestId: id, reason: safeReason(error) }),
    });
    const cell: OrderCell = { actor, cancelTimer: undefined };
    this.cells.set(id, cell);
    return cell;
  }

  private execute(id: string, effect: OrderEffect, self: ActorRef<OrderEvent>): void {
    const cell = this.cells.get(id);
    if (cell === undefined) return;
    this.run(id, cell, effect, self);
    this.wakeSettledWaiters(); // a drain waiting on this order looks again
  }

  private run(id: string, cell: OrderCell, effect: OrderEffect, self: ActorRef<OrderEvent>): void {
    switch (effect.type) {
      case 'publish':
        return this.publish(id, effect.outcome);
      case 'orderUnsubscribe':
        return this.orderUnsubscribe(id);
      case 'queryState':
        return this.queryState(id, self);
      case 'arm':
        cell.cancelTimer?.();
        cell.cancelTimer = this.clock.setTimeout(() => self.send({ type: effect.timer }), effect.ms);
        return;
      case 'disarm':
        cell.cancelTimer?.();
        cell.cancelTimer = undefined;
        return;
      case 'latency':
        return this.metrics.orderReplySeconds.observe({ phase: effect.phase }, effect.ms / 1000);
      case 'firstAnswer':
        return this.limiter.orderAnswered(id, effect.code);
      case 'conflict':
        return this.contradicted(id, effect.kept, effect.status, effect.source);
      case 'expired':
        this.metrics.reconciliationsExpired.inc();
        this.log.error('order still unresolved at the end of the venue retention; the trade list decides', {
          clientRequestId: id,
        });
        return this.settle(id, undefined);
      case 'finished':
        return this.settle(id, cell.actor.state.published);
    }
  }

  /**
   * The venue contradicts the final outcome published: the first one stands (never a second), counted, logged and
   * told to execution (`OrderContradiction`), which reads the venue's trade list for the truth.
   */
  private contradicted(
    id: string,
    kept: OrderOutcomeStatus,
    status: OrderOutcomeStatus,
    source: OrderOutcomeSource,
  ): void {
    this.metrics.outcomeContradictions.inc({ source });
    this.log.warn('venue evidence contradicts the final outcome published; the first one stands', {
      clientRequestId: id.slice(0, 64),
      kept,
      status,
      source,
    });
    this.contradictionSubject.next({ v: 1, clientRequestId: id, kept, status, source, at: this.clock.now() });
  }

  private publish(id: string, outcome: OrderOutcome): void {
    this.metrics.countOrder(outcome.status, outcome.code);
    if (outcome.transactionId !== undefined) this.index.transaction(outcome.transactionId, id);
    this.log.info('order outcome', {
      clientRequestId: id,
      status: outcome.status,
      code: outcome.code.slice(0, 64),
      source: outcome.source,
    });
    this.outcomeSubject.next(outcome);
  }

  private queryState(id: string, self: ActorRef<OrderEvent>): void {
    if (this.closed) return; // no REST call after shutdown: the next start resolves it
    this.orderStates.orderState(id).then(
      (records) => self.send({ type: 'stateRecords', records }),
      (error: unknown) => {
        this.log.warn('order-state lookup failed', { clientRequestId: id, reason: safeReason(error) });
        self.send({ type: 'stateFailed' });
      },
    );
  }

  private settle(id: string, published: OrderOutcomeStatus | undefined): void {
    const cell = this.cells.get(id);
    cell?.cancelTimer?.();
    this.cells.delete(id);
    this.index.forget(id);
    if (published !== undefined) {
      this.recent.set(id, published);
    }
  }

  private orderUnsubscribe(clientRequestId: string): void {
    void this.limiter.acquire('orderUnsubscribe').then(() => {
      // Not sent (no connection): the venue redelivers the outcome after a reconnect and we ask again.
      this.channel.send({ messageType: 'orderUnsubscribe', clientRequestId });
    });
  }

  /** Frames of ours whose reply is still awaited: an order sent, or an orderUnsubscribe. */
  private waitingOnVenue(): boolean {
    for (const cell of this.cells.values()) {
      const state = cell.actor.state;
      if (isSettled(state)) continue;
      if (state.phase === 'unsubscribing') return true;
      if (state.phase === 'awaiting' && (state.published === undefined || !isFinalStatus(state.published))) return true;
    }
    return false;
  }

  private waitOpen(timeoutMs: number): Promise<boolean> {
    if (this.channel.isOpen) return Promise.resolve(true);
    return new Promise<boolean>((resolve) => {
      let done = false;
      const wake = (): void => {
        if (done) return;
        done = true;
        cancel();
        resolve(true);
      };
      const cancel = this.clock.setTimeout(() => {
        if (done) return;
        done = true;
        const index = this.openWaiters.indexOf(wake);
        if (index >= 0) this.openWaiters.splice(index, 1);
        resolve(this.channel.isOpen);
      }, timeoutMs);
      this.openWaiters.push(wake);
    });
  }

  private wakeSettledWaiters(): void {
    for (const wake of this.settledWaiters.splice(0)) wake();
  }
}

/**
 * Whether another component's final word (the execution app's, from the venue's trade list) may end this order
 * here: once the venue has shown it holds the order — reconciling, or awaiting its final reply after a first one
 * (PENDING). Outside tester: a PENDING order whose final reply was lost was settled SUCCESS by execution while the
 * connector still awaited; the connector went on to reconcile it as INDETERMINATE for up to 24 h. An order sent
 * and not yet answered keeps waiting for its reply.
 */
function settleableElsewhere(state: OrderState): boolean {
  return state.phase === 'reconciling' || (state.phase === 'awaiting' && state.replied);
}
