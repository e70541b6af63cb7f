import { Counter, Gauge } from 'prom-client';
import type { MetricsRegistry } from '#observability';
import { REDECLARE_TRIGGERS } from './declared-topology.js';

/** The bus's own metrics; labels are bounded (a subject *kind*, never a subject). */
export class BusMetrics {
  readonly connected: Gauge;
  readonly reconnects: Counter;
  readonly disconnects: Counter;
  readonly staleReconnects: Counter;
  readonly badRequests: Counter<'subject_kind'>;
  readonly handlerErrors: Counter<'subject_kind'>;
  readonly requestsWithoutReply: Counter<'subject_kind'>;
  readonly publishDropped: Counter<'subject_kind'>;
  readonly durablePublishRetries: Counter<'subject_kind'>;
  readonly durablePublishFailures: Counter<'subject_kind'>;
  readonly topologyRedeclarations: Counter<'trigger' | 'result'>;
  readonly topologyMissing: Gauge;
  readonly streamsLost: Counter<'stream'>;

  constructor(registry: MetricsRegistry) {
    const registers = [registry];
    this.connected = new Gauge({ name: 'bus_connected', help: '1 while the NATS connection is up', registers });
    this.reconnects = new Counter({ name: 'bus_reconnects_total', help: 'NATS reconnections', registers });
    this.disconnects = new Counter({ name: 'bus_disconnects_total', help: 'NATS disconnections', registers });
    this.staleReconnects = new Counter({
      name: 'bus_silent_reconnects_total',
      help: 'Reconnections forced because a connected client had no round trip answered (it had stopped reading)',
      registers,
    });
    this.badRequests = new Counter({
      name: 'bus_bad_requests_total',
      help: 'Requests refused as invalid (bad JSON, over the size, depth or field bounds, or failed validation)',
      labelNames: ['subject_kind'],
      registers,
    });
    this.handlerErrors = new Counter({
      name: 'bus_handler_errors_total',
      help: 'Request handlers that threw; the requester got an INTERNAL error reply',
      labelNames: ['subject_kind'],
      registers,
    });
    this.requestsWithoutReply = new Counter({
      name: 'bus_requests_without_reply_total',
      help: 'Requests published without a reply subject: nobody to answer, so not handled (an order not placed)',
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
    this.topologyRedeclarations = new Counter({
      name: 'bus_topology_redeclarations_total',
      help: "Attempts to declare this process's streams, buckets and consumers again, by trigger (reconnect, no_stream) and result",
      labelNames: ['trigger', 'result'],
      registers,
    });
    for (const trigger of REDECLARE_TRIGGERS) {
      for (const result of ['ok', 'failed']) this.topologyRedeclarations.inc({ trigger, result }, 0);
    }
    this.topologyMissing = new Gauge({
      name: 'bus_topology_missing',
      help: 'Streams, buckets and consumers of this process not declared again since the server may have lost them (0 when whole)',
      registers,
    });
    this.streamsLost = new Counter({
      name: 'bus_streams_lost_total',
      help: "Streams (a KV bucket's KV_… stream) this process had used, found declared afresh: NATS lost them and what they held (a series per declared stream)",
      labelNames: ['stream'],
      registers,
    });
  }
}
