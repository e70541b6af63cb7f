import { Counter, Gauge } from 'prom-client';
import type { MetricsRegistry } from '#observability';

/** Why an outcome was not published (again): already recorded, after a final one, or no subject to publish it on. */
export const OUTCOME_SKIP_REASONS = ['duplicate', 'after_final', 'unroutable'] as const;
export type OutcomeSkipReason = (typeof OUTCOME_SKIP_REASONS)[number];

/** Outcomes taken for storing and not stored yet, and the time the oldest of them was taken (ms epoch). */
export interface UnstoredOutcomes {
  count: number;
  oldestSinceMs: number | undefined;
}

/** Metrics of the connector's NATS side (the venue side has its own; the bus counts drops and bad requests). */
export class ConnectorNatsMetrics {
  readonly pricesPublished: Counter<'status'>;
  readonly pricesUnroutable: Counter;
  readonly priceSubjectRecords: Counter<'result'>;
  readonly streamRequests: Counter<'result'>;
  readonly orderCommands: Counter<'result'>;
  readonly orderRecalls: Counter<'result'>;
  readonly outcomesPublished: Counter<'status'>;
  readonly outcomesSkipped: Counter<'reason'>;
  readonly outcomePublishFailures: Counter;
  readonly outcomesUnstoredAtShutdown: Counter;
  readonly outcomesUnstored: Gauge;
  readonly oldestUnstoredSeconds: Gauge;
  private unstored: () => UnstoredOutcomes = () => ({ count: 0, oldestSinceMs: undefined });

  /** The outcome store tells how to read what it holds unstored; read at scrape time. */
  watchUnstoredOutcomes(read: () => UnstoredOutcomes): void {
    this.unstored = read;
  }

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
    this.priceSubjectRecords = new Counter({
      name: 'connector_price_subject_records_total',
      help: "Price subjects recorded (NATS KV) before a new stream's first price goes out, by result (recorded, failed, timed_out: its prices went out unrecorded, and after a crash its last one ages out instead of being marked stopped)",
      labelNames: ['result'],
      registers,
    });
    for (const result of ['recorded', 'failed', 'timed_out']) this.priceSubjectRecords.inc({ result }, 0);
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
    // What a store failure puts at risk: an outcome execution and the strategy do not see yet. Both read 0
    // from the start and again once every outcome is stored (the alert watches the age, not the failures).
    const read = () => this.unstored();
    this.outcomesUnstored = new Gauge({
      name: 'connector_order_outcomes_unstored',
      help: 'Order outcomes taken for storing on JetStream and not stored yet (retried until stored; 0 when none)',
      registers,
      collect() {
        this.set(read().count);
      },
    });
    this.oldestUnstoredSeconds = new Gauge({
      name: 'connector_order_outcome_oldest_unstored_seconds',
      help: 'How long the oldest order outcome not stored yet on JetStream has waited, from when the connector took it (0 when none)',
      registers,
      collect() {
        const since = read().oldestSinceMs;
        this.set(since === undefined ? 0 : Math.max(0, Date.now() - since) / 1000);
      },
    });
  }
}
