/**
 * The typed map subject → payload: a `Topic<T>` is a subject together with the payload type it carries
 * and a bounded metric label, so `publisher.publishTo(topics.orderOutcome(id), outcome)` type-checks the
 * payload against the subject. Apps build their topics here, never a subject string by hand.
 */
import type { ConnectorStatus } from './connector-status.js';
import type { OrderCommand, OrderContradiction, OrderOutcome } from './order.js';
import type { PriceMessage } from './price.js';
import type { PriceSubjectKey, Subjects } from './subjects.js';

export interface Topic<T> {
  readonly subject: string;
  /** Bounded metric label of the subject (`order.outcome`, not the order's id). */
  readonly kind: string;
  /** Never set: carries the payload type for the compiler. */
  readonly payload?: T;
}

export type PayloadOf<P> = P extends Topic<infer T> ? T : never;

export interface Topics {
  price(stream: PriceSubjectKey): Topic<PriceMessage>;
  readonly orderCommand: Topic<OrderCommand>;
  orderOutcome(clientRequestId: string): Topic<OrderOutcome>;
  orderContradiction(clientRequestId: string): Topic<OrderContradiction>;
  readonly connectorStatus: Topic<ConnectorStatus>;
}

export function topicsOf(subjects: Subjects): Topics {
  return {
    price: (stream) => ({ subject: subjects.price(stream), kind: 'price' }),
    orderCommand: { subject: subjects.orderCommand, kind: 'order.command' },
    orderOutcome: (clientRequestId) => ({ subject: subjects.orderOutcome(clientRequestId), kind: 'order.outcome' }),
    orderContradiction: (clientRequestId) => ({
      subject: subjects.orderContradiction(clientRequestId),
      kind: 'order.contradiction',
    }),
    connectorStatus: { subject: subjects.connectorStatus, kind: 'connector.status' },
  };
}
