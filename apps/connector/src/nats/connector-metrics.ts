import { Counter } from 'prom-client';
import type { MetricsRegistry } from '#observability';

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
      help: 'Outcomes not published again: already recorded (duplicate) or older than the recorded state (stale)',
      labelNames: ['reason'],
      registers,
    });
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
