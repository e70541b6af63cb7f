/**
 * Subjects of the execution app (the order API for algo services), scoped per venue account:
 *
 *   {prefix}.{account}.exec.order.place                          request/reply (queue group): place an order
 *   {prefix}.{account}.exec.order.get                            request/reply: one order by id or by key
 *   {prefix}.{account}.exec.order.list                           request/reply: open and unresolved orders
 *   {prefix}.{account}.exec.position.get                         request/reply: a strategy's positions
 *   {prefix}.{account}.exec.order.event.{strategyId}.{orderId}   every state change (JetStream, durable)
 *
 * A strategy replays its own events with a consumer filtered on `{prefix}.{account}.exec.order.event.{strategyId}.>`.
 */
import type { Subjects } from '../subjects.js';
import type { Topic } from '../topics.js';
import type { OrderEvent } from './order-view.js';

/** A strategy id: one subject token of letters, digits, `_` and `-`. */
export const STRATEGY_ID = /^[A-Za-z0-9_-]{1,64}$/;

export class ExecutionSubjects {
  readonly prefix: string;
  readonly account: string;

  constructor(subjects: Subjects) {
    this.prefix = subjects.prefix;
    this.account = subjects.account;
  }

  get place(): string {
    return this.scoped('order.place');
  }
  get get(): string {
    return this.scoped('order.get');
  }
  get list(): string {
    return this.scoped('order.list');
  }
  get positions(): string {
    return this.scoped('position.get');
  }
  orderEvent(strategyId: string, orderId: string): string {
    return this.scoped(`order.event.${strategyId}.${orderId}`);
  }
  strategyEvents(strategyId: string): string {
    return this.scoped(`order.event.${strategyId}.>`);
  }
  get allOrderEvents(): string {
    return this.scoped('order.event.>');
  }

  orderEventTopic(strategyId: string, orderId: string): Topic<OrderEvent> {
    return { subject: this.orderEvent(strategyId, orderId), kind: 'exec.order.event' };
  }

  private scoped(rest: string): string {
    return `${this.prefix}.${this.account}.exec.${rest}`;
  }
}

/** The execution app's JetStream stream and KV buckets (per account). */
export const ExecutionStreamName = {
  orderEvents: (account: string) => `GW_EXEC_ORDER_EVENTS_${nameToken(account)}`,
  /** KV: order records (`order.<id>`), idempotency keys (`key.<strategy>.<key>`), the open index (`open.<id>`). */
  orderJournal: (account: string) => `GW_EXEC_ORDERS_${nameToken(account)}`,
  /** KV: one heartbeat per running instance (`instance.<id>`), for per-order ownership. */
  instances: (account: string) => `GW_EXEC_INSTANCES_${nameToken(account)}`,
  /** KV: per-strategy positions (`position.<strategyId>`). */
  positions: (account: string) => `GW_EXEC_POSITIONS_${nameToken(account)}`,
} as const;

function nameToken(account: string): string {
  return account.replace(/[^A-Za-z0-9_-]/g, '_');
}
