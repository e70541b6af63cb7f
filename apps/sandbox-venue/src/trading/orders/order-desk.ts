import { randomUUID } from 'node:crypto';
import type { OrderReply, OrderUnsubscribeReply, Side } from '#venue-api';
import { SandboxCode } from '#venue-api';
import type { OrderReplyShape } from '../../dialect.js';
import type { TradeBooking, VenueClock } from '../../ports.js';
import type { WsFaults } from '../faults/ws-faults.js';
import { formatPrice } from '../market/price-format.js';
import type { QuoteBook, QuoteTake } from '../quotes/quote-book.js';
import { isValidIdentifier } from '../session/identifier-rules.js';
import type { ConnectionRegistry } from '../socket/connection-registry.js';
import type { AccountLimits } from '../socket/account-limits.js';
import type { VenueConnection } from '../socket/venue-connection.js';
import type { TradingMetrics } from '../trading-metrics.js';
import type { OrderEntry, OrderJournal } from './order-journal.js';

type Frame<T> = Omit<T, 'chanId' | 'timestamp'>;
type TakenQuote = Extract<QuoteTake, { ok: true }>;
/** An order reply of the `minimal` dialect: no subscriptionStatus, sessionId, side or execution fields. */
type MinimalOrderReply = Pick<Frame<OrderReply>, 'messageType' | 'clientRequestId' | 'transactionId' | 'orderStatus'> &
  Partial<Pick<OrderReply, 'code' | 'message'>>;

/** Booking refused by the back office (e.g. no balance): a sandbox code (spec-gaps W25). */
export const EXECUTION_REJECTED = 'EXECUTION_REJECTED';

const MESSAGES: Readonly<Record<string, string>> = {
  RFS100019: 'Quote expired',
  RFS100020: 'Quote was issued to another user',
  RFS600021: 'Quoted quantity already used',
  [SandboxCode.OrderRateLimited]: 'Too many orders: 1 per 250 ms per account',
};

interface OrderFields {
  quoteId: string;
  side: Side;
  clientRequestId: string;
  autoSubscribe: boolean;
}

function parseOrder(request: Record<string, unknown>): OrderFields | string {
  const { quoteId, side, clientRequestId, autoSubscribe } = request;
  if (typeof clientRequestId !== 'string' || !isValidIdentifier(clientRequestId)) {
    return 'clientRequestId must be 1 to 64 characters without "/", whitespace or control characters';
  }
  if (typeof quoteId !== 'string' || quoteId === '') return 'quoteId is required';
  if (side !== 'BUY' && side !== 'SELL') return 'side must be BUY or SELL';
  if (autoSubscribe !== undefined && typeof autoSubscribe !== 'boolean') return 'autoSubscribe must be a boolean';
  return { quoteId, side, clientRequestId, autoSubscribe: autoSubscribe === true };
}

/**
 * Orders on quotes (W3–W8, W15): checks, the PENDING-then-final reply sequence, booking through the back
 * office, delivery to the placing connection or to whichever connection holds the order's session, and
 * redelivery on reconnect (W7).
 */
export class OrderDesk {
  private readonly pendingTimers = new Set<NodeJS.Timeout>();

  constructor(
    private readonly journal: OrderJournal,
    private readonly quotes: QuoteBook,
    private readonly booking: TradeBooking,
    private readonly connections: ConnectionRegistry,
    private readonly limits: AccountLimits,
    private readonly clock: VenueClock,
    private readonly faults: WsFaults,
    private readonly metrics: TradingMetrics,
    private readonly executionDelayMs: number,
    private readonly replyShape: OrderReplyShape = 'full',
  ) {}

  place(connection: VenueConnection, request: Record<string, unknown>): void {
    const parsed = parseOrder(request);
    if (typeof parsed === 'string') {
      // Without a usable clientRequestId nothing can be recorded or looked up: answer and forget.
      this.metrics.order('FAILED', SandboxCode.InvalidOrder);
      connection.send({
        messageType: 'order',
        clientRequestId: typeof request['clientRequestId'] === 'string' ? request['clientRequestId'] : '',
        transactionId: '',
        quoteId: typeof request['quoteId'] === 'string' ? request['quoteId'] : '',
        orderStatus: 'FAILED',
        subscriptionStatus: 'NOT_SUBSCRIBED',
        sessionId: null,
        code: SandboxCode.InvalidOrder,
        message: parsed,
      });
      return;
    }
    const entry: OrderEntry = {
      record: {
        userUuid: connection.userUuid,
        transactionId: randomUUID(),
        clientRequestId: parsed.clientRequestId,
        orderStatus: 'PENDING',
        subscriptionStatus: parsed.autoSubscribe ? 'SUBSCRIBED' : 'NOT_SUBSCRIBED',
        sessionId: parsed.autoSubscribe ? connection.session.sessionId : null,
        code: '',
        message: '',
        createdAt: this.clock.now(),
      },
      quoteId: parsed.quoteId,
      side: parsed.side,
      sessionKey: parsed.autoSubscribe ? connection.sessionKey : undefined,
      placedOnChanId: connection.chanId,
    };
    this.journal.add(entry);

    const check = this.check(connection, parsed);
    if ('code' in check) {
      this.finish(entry, 'FAILED', check.code, MESSAGES[check.code] ?? 'Order rejected');
      return;
    }
    const delay = this.faults.orderReplyDelayMs;
    this.metrics.order('PENDING', '');
    this.later(delay, () => this.deliver(entry));
    this.later(delay + this.executionDelayMs, () => this.execute(entry, check.take));
  }

  /** W8 */
  orderUnsubscribe(connection: VenueConnection, request: Record<string, unknown>): void {
    const clientRequestId = typeof request['clientRequestId'] === 'string' ? request['clientRequestId'] : '';
    const entries = this.journal.entriesOf(connection.userUuid, clientRequestId);
    const bound = entries.filter((e) => e.record.subscriptionStatus === 'SUBSCRIBED');
    for (const entry of bound) this.journal.update(entry, { subscriptionStatus: 'UNSUBSCRIBED' });
    const reply: Frame<OrderUnsubscribeReply> =
      bound.length > 0
        ? {
            messageType: 'orderUnsubscribe',
            clientRequestId,
            success: true,
            subscriptionStatus: 'UNSUBSCRIBED',
            code: '',
            message: 'Unsubscribed',
          }
        : {
            messageType: 'orderUnsubscribe',
            clientRequestId,
            success: false,
            subscriptionStatus: entries[0]?.record.subscriptionStatus ?? 'NOT_SUBSCRIBED',
            code: SandboxCode.OrderNotFound,
            message: 'No session-bound order with this clientRequestId',
          };
    connection.send(reply);
  }

  /** W7: a connection joined a session; it gets the latest state of every order still bound to it. */
  redeliver(connection: VenueConnection): void {
    if (connection.session.minted) return;
    for (const entry of this.journal.subscribedOn(connection.sessionKey)) connection.send(this.frameOf(entry));
  }

  close(): void {
    for (const timer of this.pendingTimers) clearTimeout(timer);
    this.pendingTimers.clear();
  }

  /** Checks before execution, in order: pacing (W15), injected refusal, then the quote (§2.2 rule 4). */
  private check(connection: VenueConnection, order: OrderFields): { code: string } | { take: TakenQuote } {
    if (!this.limits.admitOrder(connection.userUuid)) {
      this.metrics.rateLimit('orders');
      return { code: SandboxCode.OrderRateLimited };
    }
    const injected = this.faults.takeRejectQuote();
    if (injected !== undefined) return { code: injected };
    const take = this.quotes.take(this.clock.now(), order.quoteId, connection.userUuid, order.side);
    return take.ok ? { take } : { code: take.code };
  }

  /** Books the trade and records the final outcome (W6 step 2). */
  private execute(entry: OrderEntry, take: TakenQuote): void {
    const { quote } = take;
    const indeterminate = this.faults.takeIndeterminate();
    const contradict = !indeterminate && this.faults.takeContradictOrder();
    const price = formatPrice(take.price);
    const quantity = take.quantity.toFixed();
    try {
      const booked = this.booking.bookRfsTrade({
        userUuid: entry.record.userUuid,
        accountGroupUuid: quote.accountGroupUuid,
        clientRequestId: entry.record.clientRequestId,
        quoteId: quote.quoteId,
        instrument: quote.instrument,
        side: entry.side,
        baseAmount: quantity,
        quoteAmount: take.quoteAmount,
        price,
        settleDate: quote.settleDate,
        beneficiaryUuid: quote.beneficiaryUuid,
        senderUuid: quote.senderUuid,
        networkId: quote.networkId,
      });
      entry.execution = {
        instrument: quote.instrument,
        price,
        quantity,
        quoteAmount: take.quoteAmount,
        currency: quote.currency,
        settleDate: quote.settleDate,
        tradeRef: booked.tradeRef,
      };
      if (indeterminate) {
        // The fault models a lost execution report: the trade exists, the venue cannot say so.
        this.finish(entry, 'INDETERMINATE', '', 'Outcome unknown', true);
      } else {
        // The fault models a venue contradicting itself: a provisional FAILED frame, then the real final.
        if (contradict) this.deliver(entry, this.provisionalFailure(entry));
        this.finish(entry, 'SUCCESS', '', 'Filled', true);
      }
    } catch (error: unknown) {
      this.quotes.release(quote, take.quantity);
      const message = error instanceof Error ? error.message : 'Execution rejected';
      this.finish(entry, 'FAILED', EXECUTION_REJECTED, message, true);
    }
  }

  private finish(
    entry: OrderEntry,
    status: 'SUCCESS' | 'FAILED' | 'INDETERMINATE',
    code: string,
    message: string,
    afterPending = false,
  ): void {
    this.journal.update(entry, { orderStatus: status, code, message });
    this.metrics.order(status, code);
    // "Reply lost" fault: the outcome is recorded (order state, redelivery) but this frame never leaves.
    if (afterPending && this.faults.takeDropOrderOutcome()) return;
    this.deliver(entry);
  }

  /** A FAILED frame the venue's records never hold (the order executes): only the `contradict-order` fault sends it. */
  private provisionalFailure(entry: OrderEntry): Frame<OrderReply> | MinimalOrderReply {
    return { ...this.frameOf(entry), orderStatus: 'FAILED', code: EXECUTION_REJECTED, message: 'Execution rejected' };
  }

  private deliver(entry: OrderEntry, frame: Frame<OrderReply> | MinimalOrderReply = this.frameOf(entry)): void {
    const target =
      entry.sessionKey !== undefined && entry.record.subscriptionStatus === 'SUBSCRIBED'
        ? this.connections.holderOf(entry.sessionKey)
        : entry.record.subscriptionStatus === 'NOT_SUBSCRIBED'
          ? this.connections.byChan(entry.placedOnChanId)
          : undefined;
    target?.send(frame);
  }

  private frameOf(entry: OrderEntry): Frame<OrderReply> | MinimalOrderReply {
    const { record } = entry;
    if (this.replyShape === 'minimal') {
      // The other reading of a reply whose fields §2.3 does not show: status and ids only.
      return {
        messageType: 'order',
        clientRequestId: record.clientRequestId,
        transactionId: record.transactionId,
        orderStatus: record.orderStatus,
        ...(record.code !== '' && { code: record.code, message: record.message }),
      };
    }
    return {
      messageType: 'order',
      clientRequestId: record.clientRequestId,
      transactionId: record.transactionId,
      quoteId: entry.quoteId,
      side: entry.side,
      orderStatus: record.orderStatus,
      subscriptionStatus: record.subscriptionStatus,
      sessionId: record.sessionId,
      code: record.code,
      message: record.message,
      ...(record.orderStatus === 'SUCCESS' && entry.execution !== undefined ? entry.execution : {}),
    };
  }

  private later(ms: number, action: () => void): void {
    const timer = setTimeout(() => {
      this.pendingTimers.delete(timer);
      action();
    }, ms);
    this.pendingTimers.add(timer);
  }
}
