import { Counter } from 'prom-client';
import type { MetricsRegistry } from '#observability';

/** Why an outcome was not published (again): already recorded, after a final one, or no subject to publish it on. */
export const OUTCOME_SKIP_REASONS = ['duplicate', 'after_final', 'unroutable'] as const;
export type OutcomeSkipReason = (typeof OUTCOME_SKIP_REASONS)[number];

/** Metrics of the connector's NATS side (the venue side has its own; the bus counts drops and bad requests). */
export class ConnectorNatsMetrics {
  readonly pricesPublished: Counter<'status'>;
  readonly pricesUnroutable: Counter;
  readonly streamRequests: Counter<'result'>;
  readonly orderCommands: Counter<'result'>;
  readonly orderRecalls: Counter<'result'>;
  readonly outcomesPublished: Counter<'status'>;
  readonly outcomesSkipped: Counter<'reason'>;
  readonly outcomePublishFailures: Counter;
  readonly outcomesUnstoredAtShutdown: Counter;

  constructor(registry: MetricsRegistry) {
    const registers = [registry];
    this.pricesPublished = new Counter({
      name: 'connector_prices_published_total',
      help: 'PriceMessages handed to NATS (core publish), by status',
      labelNames: ['status'],
      registers,
    });
    this.pricesUnroutable = new Counter({
      name: 'connector_prices_unroutable_total',
      help: 'PriceMessages whose key cannot form a subject (never expected: requests are validated)',
      registers,
    });
    this.streamRequests = new Counter({
      name: 'connector_stream_requests_total',
      help: 'Stream subscribe/release requests, by result (granted, refused, released, unknown)',
      labelNames: ['result'],
      registers,
    });
    this.orderCommands = new Counter({
      name: 'connector_order_commands_total',
      help: 'Order commands taken from JetStream, by result (submitted, reconciled, invalid, failed)',
      labelNames: ['result'],
      registers,
    });
    this.orderRecalls = new Counter({
      name: 'connector_order_recalls_total',
      help: 'Order recalls from the execution app (orders not to send), by result (applied, invalid)',
      labelNames: ['result'],
      registers,
    });
    for (const result of ['applied', 'invalid']) this.orderRecalls.inc({ result }, 0);
    this.outcomesPublished = new Counter({
      name: 'connector_order_outcomes_published_total',
      help: 'Order outcomes stored in JetStream, by status',
      labelNames: ['status'],
      registers,
    });
    this.outcomesSkipped = new Counter({
      name: 'connector_order_outcomes_skipped_total',
      help: 'Outcomes not published: already recorded (duplicate), after the final one recorded (after_final), or without a subject to publish on (unroutable: lost, never expected)',
      labelNames: ['reason'],
      registers,
    });
    // at 0 from the start: an unroutable outcome is one lost, and a dashboard shows "none" as 0, not "no data"
    for (const reason of OUTCOME_SKIP_REASONS) this.outcomesSkipped.inc({ reason }, 0);
    this.outcomesUnstoredAtShutdown = new Counter({
      name: 'connector_order_outcomes_unstored_at_shutdown_total',
      help: 'Order outcomes still in hand when the connector stopped (NATS unreachable): each named in the log, reconciled at the next start',
      registers,
    });
    this.outcomePublishFailures = new Counter({
      name: 'connector_order_outcome_publish_failures_total',
      help: 'Failed attempts to store an order outcome (NATS or its KV unreachable); retried until stored or shutdown',
      registers,
    });
  }
}
