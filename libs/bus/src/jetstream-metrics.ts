import { Gauge } from 'prom-client';
import type { MetricsRegistry } from '#observability';
import type { BusConnection } from './bus-connection.js';

/** A stream this app reads without declaring it, and the durable consumers on it whose lag operators watch. */
export interface WatchedStream {
  readonly stream: string;
  readonly consumers?: readonly string[];
}

/** How long a scrape waits for JetStream before it reports what it has (a slow server must not hang /metrics). */
const INFO_TIMEOUT_MS = 1_000;

/**
 * The state of the app's own JetStream streams and consumers as Prometheus gauges, read from the server at
 * scrape time (no NATS exporter is available on these machines): every stream and durable consumer the app
 * declared (the connection's topology: `BusStreams.ensureStream`, `BusConsumers.consumeDurable`), and what
 * `watch` adds. Labels are stream and consumer names from the app's topology, so they stay bounded. A stream
 * or consumer that cannot be read is left out of that scrape and counted in `jetstream_info_errors`, never
 * reported with a stale value. `BusModule` provides one per app.
 */
export class JetStreamMetrics {
  private readonly watched: WatchedStream[] = [];

  constructor(
    registry: MetricsRegistry,
    private readonly bus: BusConnection,
  ) {
    const registers = [registry];
    // One read per scrape, shared by every gauge's collect (prom-client collects them one after another).
    let reading: Promise<void> | undefined;
    const collect = (): Promise<void> => {
      reading ??= this.readAll(gauges).finally(() => setImmediate(() => (reading = undefined)));
      return reading;
    };
    const streamMessages = new Gauge({
      name: 'jetstream_stream_messages',
      help: 'Messages stored in a stream of this app',
      labelNames: ['stream'],
      registers,
      collect,
    });
    const streamBytes = new Gauge({
      name: 'jetstream_stream_bytes',
      help: 'Bytes stored in a stream of this app',
      labelNames: ['stream'],
      registers,
      collect,
    });
    const pending = new Gauge({
      name: 'jetstream_consumer_pending',
      help: 'Messages of the stream not yet delivered to the consumer (its lag)',
      labelNames: ['stream', 'consumer'],
      registers,
      collect,
    });
    const ackPending = new Gauge({
      name: 'jetstream_consumer_ack_pending',
      help: 'Messages delivered to the consumer and not yet acknowledged',
      labelNames: ['stream', 'consumer'],
      registers,
      collect,
    });
    const redelivered = new Gauge({
      name: 'jetstream_consumer_redelivered',
      help: 'Messages currently being redelivered to the consumer',
      labelNames: ['stream', 'consumer'],
      registers,
      collect,
    });
    const errors = new Gauge({
      name: 'jetstream_info_errors',
      help: 'Streams or consumers that could not be read at the last scrape',
      registers,
      collect,
    });
    const gauges = { streamMessages, streamBytes, pending, ackPending, redelivered, errors };
  }

  /** Adds streams (and their consumers) the app does not declare itself to what is reported. */
  watch(...streams: WatchedStream[]): void {
    this.watched.push(...streams);
  }

  /** What a scrape reads: the declared topology, then what `watch` added (each once). */
  private targets(): { streams: string[]; consumers: { stream: string; consumer: string }[] } {
    const { topology } = this.bus;
    const streams = new Set([...topology.streams, ...this.watched.map((w) => w.stream)]);
    const consumers = new Map(topology.consumers.map((c) => [`${c.stream}\u0000${c.consumer}`, c]));
    for (const { stream, consumers: names = [] } of this.watched) {
      for (const consumer of names) consumers.set(`${stream}\u0000${consumer}`, { stream, consumer });
    }
    return { streams: [...streams], consumers: [...consumers.values()] };
  }

  private async readAll(g: Gauges): Promise<void> {
    for (const gauge of [g.streamMessages, g.streamBytes, g.pending, g.ackPending, g.redelivered]) gauge.reset();
    const { streams, consumers } = this.targets();
    if (!this.bus.isUp) {
      g.errors.set(streams.length + consumers.length);
      return;
    }
    let failed = 0;
    await Promise.all([
      ...streams.map(async (stream) => {
        try {
          const info = await withTimeout(this.bus.jsm.streams.info(stream));
          g.streamMessages.set({ stream }, info.state.messages);
          g.streamBytes.set({ stream }, info.state.bytes);
        } catch {
          failed += 1;
        }
      }),
      ...consumers.map(async ({ stream, consumer }) => {
        try {
          const info = await withTimeout(this.bus.jsm.consumers.info(stream, consumer));
          g.pending.set({ stream, consumer }, info.num_pending);
          g.ackPending.set({ stream, consumer }, info.num_ack_pending);
          g.redelivered.set({ stream, consumer }, info.num_redelivered);
        } catch {
          failed += 1;
        }
      }),
    ]);
    g.errors.set(failed);
  }
}

interface Gauges {
  streamMessages: Gauge<'stream'>;
  streamBytes: Gauge<'stream'>;
  pending: Gauge<'stream' | 'consumer'>;
  ackPending: Gauge<'stream' | 'consumer'>;
  redelivered: Gauge<'stream' | 'consumer'>;
  errors: Gauge;
}

function withTimeout<T>(work: Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error('JetStream info timed out')), INFO_TIMEOUT_MS);
  });
  return Promise.race([work, timeout]).finally(() => clearTimeout(timer));
}
