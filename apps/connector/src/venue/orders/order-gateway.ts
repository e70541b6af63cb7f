import { type Observable, Subject } from 'rxjs';
import type { OrderCommand, OrderOutcome, OrderOutcomeStatus } from '#contracts';
import type { OrderReply, OrderUnsubscribeReply, ServiceMessage } from '#venue-api';
import type { JsonLogger } from '#observability';
import type { Cancel, VenueClock } from '../clock.js';
import type { OutboundLimiter } from '../outbound/outbound-limiter.js';
import type { OrderStateSource } from '../rest/venue-sources.js';
import { safeReason } from '../session/socket-url.js';
import type { VenueChannel } from '../session/venue-channel.js';
import type { VenueMetrics } from '../venue-metrics.js';
import { bestStateRecord, isFinal, outcomeFromReply, outcomeFromState, unknownOutcome } from './order-outcome.js';

export interface OrderGatewayOptions {
  sessionId: string;
  orderReplyTimeoutMs: number;
  orderSendTimeoutMs: number;
  redeliveryGraceMs: number;
}

/** The order frame never left the process: the order was certainly not placed and may be sent again. */
export class OrderNotSentError extends Error {
  override readonly name = 'OrderNotSentError';
  constructor(
    readonly clientRequestId: string,
    readonly code: 'NOT_CONNECTED' | 'SHUTTING_DOWN',
  ) {
    super(`order ${clientRequestId} not sent: ${code}`);
  }
}

interface TrackedOrder {
  readonly clientRequestId: string;
  /** performance.now() when the frame left; undefined for an order this process never sent. */
  sentAt: number | undefined;
  /** Connection generation the frame left on: replies on it are `reply`, later ones `redelivery`. */
  sentOn: number | undefined;
  lastStatus: OrderOutcomeStatus | undefined;
  repliedOnce: boolean;
  cancelTimer: Cancel | undefined;
  unsubscribing: boolean;
  reconciling: Promise<void> | undefined;
  finalWaiters: Array<() => void>;
}

/** How many finished orders are remembered, so a late duplicate redelivery is not published twice. */
const RECENT_LIMIT = 10_000;

/**
 * Order frames and their outcomes. Each clientRequestId is sent at most once per process; an order whose
 * frame may have left is never re-sent, only resolved: live reply → redelivery after a reconnect (W7) →
 * the order-state endpoint (§4.10) → UNKNOWN. FAILED is published only on the venue's word.
 */
export class OrderGateway {
  private readonly orders = new Map<string, TrackedOrder>();
  private readonly recent = new Map<string, OrderOutcomeStatus | undefined>();
  private readonly outcomeSubject = new Subject<OrderOutcome>();
  private readonly openWaiters: Array<() => void> = [];
  private readonly unsubscribeWaiters: Array<() => void> = [];
  private readonly log: JsonLogger;
  private stopping = false;
  private closed = false;

  /** Every outcome, including ones for orders this process never sent (redelivered after a restart). */
  readonly outcomes$: Observable<OrderOutcome>;

  constructor(
    private readonly channel: VenueChannel,
    private readonly limiter: OutboundLimiter,
    private readonly orderStates: OrderStateSource,
    private readonly metrics: VenueMetrics,
    logger: JsonLogger,
    private readonly clock: VenueClock,
    private readonly options: OrderGatewayOptions,
  ) {
    this.log = logger.child('OrderGateway');
    this.outcomes$ = this.outcomeSubject.asObservable();
    channel.addFrameListener((message) => this.onFrame(message));
    channel.connection$.subscribe((event) => {
      if (event.up) {
        for (const wake of this.openWaiters.splice(0)) wake();
      } else {
        // An orderUnsubscribe without its reply is sent again when the outcome is redelivered.
        for (const order of this.orders.values()) order.unsubscribing = false;
        this.wakeUnsubscribeWaiters();
      }
    });
  }

  /** Resolves when the frame has left. Rejects with `OrderNotSentError` when it certainly did not. */
  async submit(cmd: OrderCommand): Promise<void> {
    const id = cmd.clientRequestId;
    if (this.orders.has(id) || this.recent.has(id)) {
      this.log.warn('order already sent by this process; not sending again', { clientRequestId: id });
      return;
    }
    const order = this.track(id);
    try {
      if (this.stopping) throw new OrderNotSentError(id, 'SHUTTING_DOWN');
      if (!(await this.waitOpen(this.options.orderSendTimeoutMs))) throw new OrderNotSentError(id, 'NOT_CONNECTED');
      await this.limiter.acquire('order');
      if (this.stopping) throw new OrderNotSentError(id, 'SHUTTING_DOWN');
      const sentOn = this.channel.openConnection;
      const sent = this.channel.send({
        messageType: 'order',
        quoteId: cmd.quoteId,
        side: cmd.side,
        clientRequestId: id,
        autoSubscribe: true,
      });
      if (!sent) throw new OrderNotSentError(id, 'NOT_CONNECTED');
      order.sentAt = performance.now();
      order.sentOn = sentOn;
      this.armReplyTimer(order);
    } catch (error) {
      this.orders.delete(id);
      if (error instanceof OrderNotSentError) {
        this.metrics.countOrder('NOT_SENT', 'NOT_SENT');
        this.log.warn('order not sent', { clientRequestId: id, code: error.code });
      }
      throw error;
    }
  }

  /** Resolves an order whose frame may have left: redelivery → order-state endpoint → UNKNOWN. */
  reconcile(clientRequestId: string): Promise<void> {
    if (this.recent.has(clientRequestId)) return Promise.resolve();
    const order = this.orders.get(clientRequestId) ?? this.track(clientRequestId);
    if (order.lastStatus !== undefined && isFinal(order.lastStatus)) return Promise.resolve();
    // Sent by this process and its reply timer still running: it is watched, and silence reconciles it then.
    // Reconciling now (a redelivered command) would publish UNKNOWN for an order that is merely pending.
    if (order.sentAt !== undefined && order.cancelTimer !== undefined) return Promise.resolve();
    if (order.reconciling !== undefined) return order.reconciling;
    const run = this.runReconcile(order).finally(() => {
      order.reconciling = undefined;
    });
    order.reconciling = run;
    return run;
  }

  /** Orders sent or seen and not finished (final and unsubscribed). */
  get inFlight(): number {
    return this.orders.size;
  }

  /** Drain hook: stop sending orders, wait for the orderUnsubscribes in flight. */
  async drain(): Promise<void> {
    this.stopping = true;
    while ([...this.orders.values()].some((o) => o.unsubscribing)) {
      await new Promise<void>((resolve) => this.unsubscribeWaiters.push(resolve));
    }
  }

  close(): void {
    this.closed = true;
    for (const order of this.orders.values()) order.cancelTimer?.();
    this.outcomeSubject.complete();
  }

  // ------------------------------------------------------------------ venue frames

  private onFrame(message: ServiceMessage): void {
    if (message.messageType === 'order') this.onReply(message);
    else if (message.messageType === 'orderUnsubscribe') this.onUnsubscribed(message);
  }

  private onReply(reply: OrderReply): void {
    const id = reply.clientRequestId;
    let order = this.orders.get(id);
    if (order === undefined) {
      const seen = this.recent.get(id);
      if (this.recent.has(id) && (seen === reply.orderStatus || reply.orderStatus === 'PENDING')) {
        if (reply.subscriptionStatus === 'SUBSCRIBED' && isFinal(reply.orderStatus)) this.orderUnsubscribe(id);
        return;
      }
      this.recent.delete(id);
      order = this.track(id);
    }
    const source = order.sentOn !== undefined && order.sentOn === this.channel.openConnection ? 'reply' : 'redelivery';
    if (!order.repliedOnce && order.sentAt !== undefined) {
      this.metrics.orderReplySeconds.observe({ phase: 'first' }, (performance.now() - order.sentAt) / 1000);
    }
    order.repliedOnce = true;
    const last = order.lastStatus;
    if (last !== undefined && isFinal(last) && !isFinal(reply.orderStatus)) return; // never regress
    if (reply.orderStatus !== last) this.emit(order, outcomeFromReply(reply, source));
    if (isFinal(reply.orderStatus)) {
      if (order.sentAt !== undefined && (last === undefined || !isFinal(last))) {
        this.metrics.orderReplySeconds.observe({ phase: 'final' }, (performance.now() - order.sentAt) / 1000);
      }
      order.cancelTimer?.();
      order.cancelTimer = undefined;
      if (reply.subscriptionStatus === 'SUBSCRIBED') this.orderUnsubscribe(id);
      else this.finish(order);
    } else if (order.sentAt !== undefined) {
      this.armReplyTimer(order);
    }
  }

  private onUnsubscribed(reply: OrderUnsubscribeReply): void {
    const order = this.orders.get(reply.clientRequestId);
    if (order === undefined) return;
    order.unsubscribing = false;
    if (order.lastStatus !== undefined && isFinal(order.lastStatus)) this.finish(order);
    this.wakeUnsubscribeWaiters();
  }

  // ------------------------------------------------------------------ internals

  private track(id: string): TrackedOrder {
    const order: TrackedOrder = {
      clientRequestId: id,
      sentAt: undefined,
      sentOn: undefined,
      lastStatus: undefined,
      repliedOnce: false,
      cancelTimer: undefined,
      unsubscribing: false,
      reconciling: undefined,
      finalWaiters: [],
    };
    this.orders.set(id, order);
    return order;
  }

  private emit(order: TrackedOrder, outcome: OrderOutcome): void {
    order.lastStatus = outcome.status;
    this.metrics.countOrder(outcome.status, outcome.code);
    this.log.info('order outcome', {
      clientRequestId: outcome.clientRequestId,
      status: outcome.status,
      code: outcome.code,
      source: outcome.source,
    });
    this.outcomeSubject.next(outcome);
    if (isFinal(outcome.status)) for (const wake of order.finalWaiters.splice(0)) wake();
  }

  private finish(order: TrackedOrder): void {
    order.cancelTimer?.();
    this.orders.delete(order.clientRequestId);
    this.recent.set(order.clientRequestId, order.lastStatus);
    if (this.recent.size > RECENT_LIMIT) {
      const oldest = this.recent.keys().next();
      if (!oldest.done) this.recent.delete(oldest.value);
    }
  }

  private orderUnsubscribe(clientRequestId: string): void {
    const order = this.orders.get(clientRequestId);
    if (order?.unsubscribing) return;
    if (order !== undefined) order.unsubscribing = true;
    void this.limiter.acquire('orderUnsubscribe').then(() => {
      const sent = this.channel.send({ messageType: 'orderUnsubscribe', clientRequestId });
      if (!sent && order !== undefined) {
        order.unsubscribing = false;
        this.wakeUnsubscribeWaiters();
      }
    });
  }

  private armReplyTimer(order: TrackedOrder): void {
    order.cancelTimer?.();
    order.cancelTimer = this.clock.setTimeout(() => {
      order.cancelTimer = undefined;
      this.log.warn('no order outcome in time; reconciling', { clientRequestId: order.clientRequestId });
      void this.reconcile(order.clientRequestId);
    }, this.options.orderReplyTimeoutMs);
  }

  private async runReconcile(order: TrackedOrder): Promise<void> {
    const id = order.clientRequestId;
    // 1. Redelivery: the venue resends outcomes of session-bound orders right after a (re)connect (W7).
    const finalArrived = new Promise<void>((resolve) => order.finalWaiters.push(resolve));
    const opened = await Promise.race([this.waitOpen(this.options.orderReplyTimeoutMs), finalArrived.then(() => true)]);
    if (opened) await Promise.race([finalArrived, this.delay(this.options.redeliveryGraceMs)]);
    // Closed meanwhile: no REST call after shutdown (it would hold the process); the next start resolves it.
    if (this.closed) return;
    if (order.lastStatus !== undefined && isFinal(order.lastStatus)) return;
    // 2. The order-state endpoint (an empty array is not proof of absence).
    try {
      const records = await this.orderStates.orderState(id);
      if (this.closed) return;
      if (order.lastStatus !== undefined && isFinal(order.lastStatus)) return;
      const best = bestStateRecord(records, this.options.sessionId);
      if (best !== undefined && best.orderStatus !== order.lastStatus) {
        if (isFinal(best.orderStatus) || order.lastStatus === undefined) this.emit(order, outcomeFromState(id, best));
      }
      if (best !== undefined && isFinal(best.orderStatus)) {
        order.cancelTimer?.();
        if (best.subscriptionStatus === 'SUBSCRIBED') this.orderUnsubscribe(id);
        else this.finish(order);
        return;
      }
    } catch (error) {
      this.log.warn('order-state lookup failed', { clientRequestId: id, reason: safeReason(error) });
    }
    // 3. Still unresolved: UNKNOWN, never FAILED, never re-placed. A later redelivery still resolves it.
    if (!this.closed && order.lastStatus !== 'UNKNOWN') {
      this.emit(order, unknownOutcome(id, 'no outcome from the venue in time; not re-placed'));
    }
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

  private delay(ms: number): Promise<void> {
    return new Promise((resolve) => this.clock.setTimeout(resolve, ms));
  }

  private wakeUnsubscribeWaiters(): void {
    for (const wake of this.unsubscribeWaiters.splice(0)) wake();
  }
}
