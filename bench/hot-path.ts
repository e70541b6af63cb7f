/**
 * `node dist/bench/hot-path.js`: the connector's in-process price path, stage by stage, without sockets —
 * decode of a venue frame, the registry (routing, ordering, PriceMessage), and the publication (subject,
 * serialisation, encoding) into a NATS client stand-in that only keeps the byte count. For finding where
 * the connector's CPU per message goes; `npm run bench` is the end-to-end measure.
 */
import 'reflect-metadata';
import { getHeapSpaceStatistics } from 'node:v8';
import { decodeServiceFrame, type ServiceMessage } from '#venue-api';
import { Subjects } from '#contracts';
import { BusMetrics, BusPublisher, type BusConnection } from '#bus';
import { MetricsRegistry } from '#observability';
import { PriceStreamRegistry } from '../apps/connector/src/venue/prices/price-stream-registry.js';
import { OutboundLimiter } from '../apps/connector/src/venue/outbound/outbound-limiter.js';
import { VenueMetrics } from '../apps/connector/src/venue/venue-metrics.js';
import { FakeChannel } from '../apps/connector/src/venue/testing/fake-channel.js';
import { FakeClock } from '../apps/connector/src/venue/testing/fake-clock.js';
import { captureLogger } from '../apps/connector/src/venue/testing/test-logger.js';
import { PricePublication } from '../apps/connector/src/nats/price-publication.js';
import { ConnectorNatsMetrics } from '../apps/connector/src/nats/connector-metrics.js';

const STREAMS = 500;
const FRAMES = Number(process.env['HOT_PATH_FRAMES'] ?? 25_000);
const PASSES = Number(process.env['HOT_PATH_PASSES'] ?? 21);

async function main(): Promise<void> {
  const metricsRegistry = new MetricsRegistry('hot-path', { defaultMetrics: false });
  const venueMetrics = new VenueMetrics(metricsRegistry);
  const { logger } = captureLogger();
  let bytes = 0;
  let published = 0;
  const client = {
    publish: (_subject: string, data: Uint8Array | string) => {
      bytes += data.length;
      published++;
    },
  };
  const connection = { isUp: true, client } as unknown as BusConnection;
  const publisher = new BusPublisher(connection, new BusMetrics(metricsRegistry), logger);
  const publication = new PricePublication(
    new Subjects('gw.v1', 'bench'),
    publisher,
    new ConnectorNatsMetrics(metricsRegistry),
    logger,
  );

  /** A registry on its own channel with every stream held (the same tags in each: they derive from the key). */
  const subscribedRegistry = async (): Promise<{
    channel: FakeChannel;
    registry: PriceStreamRegistry;
    tags: string[];
  }> => {
    const clock = new FakeClock(Date.now());
    const channel = new FakeChannel();
    const limiter = new OutboundLimiter(
      { messagesPerWindow: 1_000_000, windowMs: 1_000, orderIntervalMs: 250 },
      clock,
      venueMetrics,
    );
    const registry = new PriceStreamRegistry(channel, limiter, venueMetrics, logger, clock, {
      staleAfterMs: 3_600_000,
      subscribeTimeoutMs: 3_600_000,
      // the frames' times run on from now by 1 ms each (≈ 35 min over every pass): all within the bound, as live
      maxAheadMs: 3_600_000,
    });
    channel.up();
    const grants = Array.from({ length: STREAMS }, (_, i) =>
      registry.acquire({
        instrument: 'BTC.USD',
        quantity: (0.01 * (i + 1)).toFixed(2),
        currency: 'BTC',
        tenor: 'T',
        accountGroup: 'bench-group',
        requester: 'hot-path',
        leaseSeconds: 600,
      }),
    );
    await new Promise((resolve) => setImmediate(resolve));
    const tags = channel.sentOfType('subscribe').map((s) => s.tag ?? '');
    for (const tag of tags) {
      channel.deliver({
        messageType: 'subscribe',
        chanId: 'c',
        timestamp: clock.now(),
        success: true,
        message: 'Subscribed',
        subscriptionId: `sub-${tag}`,
        instrument: 'BTC.USD',
        quantity: '0',
        code: '',
        tenor: 'T',
        settleDate: '',
        tag,
      } as ServiceMessage);
    }
    await Promise.all(grants);
    return { channel, registry, tags };
  };
  const { channel, registry, tags } = await subscribedRegistry();
  publication.start(registry.prices$);
  // the registry alone: its prices go nowhere
  const alone = await subscribedRegistry();

  let timestamp = Date.now();
  const makeFrames = (): Buffer[] =>
    Array.from({ length: FRAMES }, (_, seq) => {
      const cents = 4_200_000 + (seq % 997);
      const bid = `${Math.floor(cents / 100)}.${String(cents % 100).padStart(2, '0')}`;
      const offer = `${Math.floor((cents + 25) / 100)}.${String((cents + 25) % 100).padStart(2, '0')}`;
      const i = seq % STREAMS;
      const quantity = (0.01 * (i + 1)).toFixed(2);
      return Buffer.from(
        JSON.stringify({
          chanId: 'b1f0c1a2-5d1e-4c59-a1b7-0f6f6a0c9e11',
          timestamp: timestamp++,
          messageType: 'pricestream',
          instrument: 'BTC.USD',
          quoteId: `b${seq}`,
          offer: { price: offer, quantity, quoteAmount: '1000.00' },
          bid: { price: bid, quantity, quoteAmount: '1000.00' },
          tenor: 'T',
          settleDate: '20261123',
          tag: tags[i],
        }),
      );
    });

  const encoder = new TextEncoder();
  const stages: Record<string, (frame: Buffer) => void> = {
    relay: (frame) => {
      const text = frame.toString();
      const parsed = JSON.parse(text) as { tag?: string };
      client.publish(`bench.relay.${parsed.tag ?? 'none'}`, encoder.encode(text));
    },
    decode: (frame) => {
      decodeServiceFrame(frame);
    },
    'decode → registry': (frame) => {
      const decoded = decodeServiceFrame(frame);
      if (decoded.kind === 'message') alone.channel.deliver(decoded.message);
    },
    'decode → registry → publication': (frame) => {
      const decoded = decodeServiceFrame(frame);
      if (decoded.kind === 'message') channel.deliver(decoded.message);
    },
  };
  // HOT_PATH_STAGES=relay,decode picks stages by name prefix (e.g. to profile one with --cpu-prof)
  const only = process.env['HOT_PATH_STAGES']?.split(',');
  for (const name of Object.keys(stages)) {
    if (only !== undefined && !only.some((prefix) => name.startsWith(prefix))) delete stages[name];
  }
  const perStage = new Map<string, number[]>(Object.keys(stages).map((name) => [name, []]));
  for (let pass = 1; pass <= PASSES; pass++) {
    for (const [name, stage] of Object.entries(stages)) {
      const frames = makeFrames();
      await new Promise((resolve) => setImmediate(resolve)); // the registry's microtasks, between passes
      const started = process.cpuUsage();
      for (const frame of frames) stage(frame);
      const used = process.cpuUsage(started);
      perStage.get(name)?.push((used.user + used.system) / FRAMES);
    }
  }
  process.stdout.write(
    `CPU µs per frame, ${PASSES} passes of ${FRAMES} frames over ${STREAMS} streams: median (min–max); ` +
      `× relay: median of the passes' ratios (the stages alternate within a pass: a load change hits all)\n`,
  );
  const relayTimes = perStage.get('relay');
  for (const [name, samples] of perStage) {
    const range = `${Math.min(...samples).toFixed(2)}–${Math.max(...samples).toFixed(2)}`;
    const ratio =
      relayTimes === undefined
        ? ''
        : `; ${median(samples.map((t, i) => t / (relayTimes[i] ?? Number.NaN))).toFixed(2)}× relay`;
    const bytes = youngBytesPerFrame(stages[name] as (frame: Buffer) => void, makeFrames().slice(0, 2_000));
    process.stdout.write(
      `  ${name.padEnd(34)} ${median(samples).toFixed(2)} (${range})${ratio}; ~${bytes} bytes allocated per frame\n`,
    );
  }
  process.stdout.write(`published ${published}, ${(bytes / Math.max(1, published)).toFixed(0)} bytes each\n`);
  registry.close();
  alone.registry.close();
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? Number.NaN;
}

/**
 * Young-generation bytes a stage allocates per frame: the growth of new space over a batch small enough
 * to fit between two scavenges (a batch during which new space shrank had a GC and is not counted).
 */
function youngBytesPerFrame(stage: (frame: Buffer) => void, frames: Buffer[]): number {
  const used = (): number => getHeapSpaceStatistics().find((s) => s.space_name === 'new_space')?.space_used_size ?? 0;
  const samples: number[] = [];
  for (let attempt = 0; attempt < 50 && samples.length < 5; attempt++) {
    const batch = frames.slice(0, 200);
    const before = used();
    for (const frame of batch) stage(frame);
    const after = used();
    if (after > before) samples.push((after - before) / batch.length);
    frames.push(...frames.splice(0, 200));
  }
  samples.sort((a, b) => a - b);
  return Math.round(samples[Math.floor(samples.length / 2)] ?? Number.NaN);
}

void main();
