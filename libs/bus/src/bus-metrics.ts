import { Counter, Gauge } from 'prom-client';
import type { MetricsRegistry } from '#observability';

/** The bus's own metrics; labels are bounded (a subject *kind*, never a subject). */
export class BusMetrics {
  readonly connected: Gauge;
  readonly reconnects: Counter;
  readonly disconnects: Counter;
  readonly badRequests: Counter<'subject_kind'>;
  readonly handlerErrors: Counter<'subject_kind'>;
  readonly publishDropped: Counter<'subject_kind'>;
  readonly durablePublishRetries: Counter<'subject_kind'>;
  readonly durablePublishFailures: Counter<'subject_kind'>;

  constructor(registry: MetricsRegistry) {
    const registers = [registry];
    this.connected = new Gauge({ name: 'bus_connected', help: '1 while the NATS connection is up', registers });
    this.reconnects = new Counter({ name: 'bus_reconnects_total', help: 'NATS reconnections', registers });
    this.disconnects = new Counter({ name: 'bus_disconnects_total', help: 'NATS disconnections', registers });
    this.badRequests = new Counter({
      name: 'bus_bad_requests_total',
      help: 'Requests refused as invalid (bad JSON or failed validation)',
      labelNames: ['subject_kind'],
      registers,
    });
    this.handlerErrors = new Counter({
      name: 'bus_handler_errors_total',
      help: 'Request handlers that threw; the requester got an INTERNAL error reply',
      labelNames: ['subject_kind'],
      registers,
    });
    this.publishDropped = new Counter({
      name: 'bus_publish_dropped_total',
      help: 'Fire-and-forget messages dropped because the connection was down or closed',
      labelNames: ['subject_kind'],
      registers,
    });
    this.durablePublishRetries = new Counter({
      name: 'bus_durable_publish_retries_total',
      help: 'JetStream publishes retried (same Nats-Msg-Id) after a timeout or error',
      labelNames: ['subject_kind'],
      registers,
    });
    this.durablePublishFailures = new Counter({
      name: 'bus_durable_publish_failures_total',
      help: 'JetStream publishes that failed after every attempt',
      labelNames: ['subject_kind'],
      registers,
    });
  }
}
