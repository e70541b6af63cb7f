/**
 * What an operator looks at when something is off (there is no NATS CLI on the gateway's machines; `gw status`
 * and `gw streams` are built on this): every JetStream stream of the gateway with its size, and every consumer
 * with its lag — messages not yet delivered (`pending`) and delivered but not acknowledged (`ackPending`).
 */
import type { ClientContext } from './client-context.js';

export interface ConsumerSummary {
  name: string;
  durable: boolean;
  filterSubject?: string;
  /** Messages in the stream the consumer has not been delivered yet. */
  pending: number;
  /** Delivered, not acknowledged yet. */
  ackPending: number;
  redelivered: number;
  /** Pull requests waiting (a running pull consumer keeps some). */
  waiting: number;
}

export interface StreamSummary {
  name: string;
  subjects: string[];
  storage: string;
  retention: string;
  messages: number;
  bytes: number;
  firstSeq: number;
  lastSeq: number;
  consumers: ConsumerSummary[];
}

export class InspectApi {
  constructor(private readonly context: ClientContext) {}

  /** Streams whose name starts with `namePrefix` (default every `GW_` stream; `''` every stream), by name. */
  async streams(namePrefix = 'GW_'): Promise<StreamSummary[]> {
    const found: StreamSummary[] = [];
    for await (const info of this.context.jsm.streams.list()) {
      if (!info.config.name.startsWith(namePrefix)) continue;
      const consumers: ConsumerSummary[] = [];
      for await (const consumer of this.context.jsm.consumers.list(info.config.name)) {
        consumers.push({
          name: consumer.name,
          durable: consumer.config.durable_name !== undefined,
          ...(consumer.config.filter_subject !== undefined ? { filterSubject: consumer.config.filter_subject } : {}),
          pending: consumer.num_pending,
          ackPending: consumer.num_ack_pending,
          redelivered: consumer.num_redelivered,
          waiting: consumer.num_waiting,
        });
      }
      found.push({
        name: info.config.name,
        subjects: info.config.subjects ?? [],
        storage: String(info.config.storage),
        retention: String(info.config.retention),
        messages: info.state.messages,
        bytes: info.state.bytes,
        firstSeq: info.state.first_seq,
        lastSeq: info.state.last_seq,
        consumers: consumers.sort((a, b) => a.name.localeCompare(b.name)),
      });
    }
    return found.sort((a, b) => a.name.localeCompare(b.name));
  }
}
