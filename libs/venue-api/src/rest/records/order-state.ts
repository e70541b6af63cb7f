/** §2.8 order state record (the order-state endpoint always returns an array of them). */
import type { OrderStatus, OrderSubscriptionStatus } from '../../ws/messages.js';
import { integer, nullable, oneOf, record, text, type Reader } from './shape.js';

export interface OrderStateRecord {
  messageType: 'orderState';
  /** When the response was produced (epoch ms), not when anything happened to the order. */
  timestamp: number;
  transactionId: string;
  /** Empty until an outcome is recorded, even on a lookup by clientRequestId. */
  clientRequestId: string;
  orderStatus: OrderStatus;
  subscriptionStatus: OrderSubscriptionStatus;
  /** Null for an order sent without autoSubscribe (absent is read as null too). */
  sessionId: string | null;
  message: string;
  code: string;
}

export const orderStateReader: Reader<OrderStateRecord> = record<OrderStateRecord>({
  messageType: oneOf('orderState'),
  timestamp: integer,
  transactionId: text,
  clientRequestId: text,
  orderStatus: oneOf('SUCCESS', 'FAILED', 'INDETERMINATE', 'PENDING'),
  subscriptionStatus: oneOf('NOT_SUBSCRIBED', 'SUBSCRIBED', 'UNSUBSCRIBED'),
  sessionId: nullable(text),
  message: text,
  code: text,
});
