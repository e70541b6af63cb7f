/**
 * The topology a process declared comes back by itself when NATS lost it: a nats-server restarted on the same
 * port with a new, empty store (every stream, bucket and consumer gone), and a stream lost without a reconnect
 * (a memory stream gone with its node), which the next publish finds missing.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { rm } from 'node:fs/promises';
import { HealthRegistry, JsonLogger, MetricsRegistry } from '#observability';
import { startNatsServer, waitFor, type NatsServerHandle } from '#testing';
import {
  BusConnection,
  BusConsumers,
  BusKv,
  BusMetrics,
  BusPublisher,
  BusStreams,
  JetStreamMetrics,
  type DurableConsumerHandle,
  type KvBucket,
} from './index.js';

const silent = new JsonLogger('topology-test', 'test', 'error', { write: () => undefined });

describe('the declared topology across a NATS that lost it', () => {
  let server: NatsServerHandle;
  let registry: MetricsRegistry;
  let connection: BusConnection;
  let publisher: BusPublisher;
  let bucket: KvBucket;
  let worker: DurableConsumerHandle;
  const received: number[] = [];
  const health = new HealthRegistry(500);

  async function metric(series: string): Promise<number | undefined> {
    const line = (await registry.metrics()).split('\n').find((l) => l.startsWith(series));
    return line === undefined ? undefined : Number(line.slice(line.lastIndexOf(' ') + 1));
  }

  beforeAll(async () => {
    server = await startNatsServer();
    registry = new MetricsRegistry('topology-test', { defaultMetrics: false });
    const metrics = new BusMetrics(registry);
    connection = await BusConnection.open(
      {
        servers: server.url,
        name: 'topology-test',
        reconnectTimeWaitMs: 50,
        topology: { backoff: { initialMs: 50, maxMs: 200 }, noStreamIntervalMs: 0 },
      },
      metrics,
      health,
      silent,
    );
    new JetStreamMetrics(registry, connection);
    publisher = new BusPublisher(connection, metrics, silent);
    const streams = new BusStreams(connection, silent);
    await streams.ensureStream({ name: 'T_LAST', subjects: ['t.last.>'], storage: 'memory', maxMsgsPerSubject: 1 });
    await streams.ensureStream({ name: 'T_WORK', subjects: ['t.work'], storage: 'file', retention: 'workqueue' });
    bucket = await new BusKv(connection).bucket('T_MARKS', { storage: 'file' });
    worker = await new BusConsumers(connection, silent).consumeDurable({
      stream: 'T_WORK',
      durable: 'worker',
      filterSubject: 't.work',
      ackWaitMs: 5_000,
      exclusive: true,
      handle: async (message) => {
        received.push((JSON.parse(new TextDecoder().decode(message.data)) as { n: number }).n);
        await message.ack();
      },
    });
    await publisher.publishDurable('t.work', { n: 1 }, { msgId: 'w1', kind: 'test' });
    await waitFor(() => received.length === 1, 'the first work item');
  });

  afterAll(async () => {
    await worker?.stop();
    await connection?.close();
    await server?.stop();
  });

  it('exports jetstream_* for what it declared, with nothing to wire', async () => {
    const text = await registry.metrics();
    expect(text).toMatch(/^jetstream_stream_messages\{stream="T_LAST",app="topology-test"\} 0$/m);
    expect(text).toMatch(/^jetstream_stream_messages\{stream="T_WORK",app="topology-test"\} \d+$/m);
    expect(text).toMatch(/^jetstream_consumer_pending\{stream="T_WORK",consumer="worker",app="topology-test"\} 0$/m);
    expect(text).toMatch(/^jetstream_info_errors\{app="topology-test"\} 0$/m);
  });

  it('after a restart with an empty store: streams, bucket and consumer are declared again, and work flows', async () => {
    const { port } = server;
    await server.stop(); // its store is removed with it
    server = await startNatsServer({ port }); // a new, empty store on the same port
    await waitFor(async () => (await metric('bus_reconnects_total')) === 1, 'the reconnection', 15_000);
    const declaredAgain = 'bus_topology_redeclarations_total{trigger="reconnect",result="ok"';
    await waitFor(async () => (await metric(declaredAgain)) === 1, 'the topology declared again', 15_000);
    expect(await metric('bus_topology_missing')).toBe(0);
    // what the file stream and the bucket held is gone: counted by stream, and /health says so while staying up
    for (const stream of ['T_WORK', 'KV_T_MARKS']) {
      expect(await metric(`bus_streams_lost_total{stream="${stream}"`)).toBe(1);
    }
    expect(await metric('bus_streams_lost_total{stream="T_LAST"')).toBeUndefined(); // memory: lost by design
    const { status, checks } = await health.report();
    expect(status).toBe('ok');
    expect(checks['nats']?.detail).toMatch(/^connected; store lost: T_WORK, KV_T_MARKS declared afresh/);
    const names: string[] = [];
    for await (const name of connection.jsm.streams.names()) names.push(name);
    expect(names.sort()).toEqual(['KV_T_MARKS', 'T_LAST', 'T_WORK']);
    expect(await bucket.createIfAbsent('ord-1', { status: 'sending' })).toBe('created');
    expect((await publisher.publishDurable('t.last.a', { n: 1 }, { msgId: 'l1', kind: 'test' })).stream).toBe('T_LAST');
    await publisher.publishDurable('t.work', { n: 2 }, { msgId: 'w2', kind: 'test' });
    await waitFor(() => received.length === 2, 'the work item taken by the consumer declared again');
    expect(received).toEqual([1, 2]);
  });

  it('a stream lost without a reconnect is declared again when a publish finds no stream', async () => {
    await connection.jsm.streams.delete('T_LAST'); // as a memory stream lost with its node
    const ack = await publisher.publishDurable('t.last.b', { n: 2 }, { msgId: 'l2', kind: 'test', retryDelayMs: 100 });
    expect(ack.stream).toBe('T_LAST');
    expect(await metric('bus_topology_redeclarations_total{trigger="no_stream",result="ok"')).toBeGreaterThanOrEqual(1);
    await connection.jsm.streams.delete('KV_T_MARKS');
    await expect(bucket.put('ord-2', {})).rejects.toThrow(); // the write that finds it missing fails …
    await connection.topology.settled();
    expect(await bucket.put('ord-2', {})).toBeGreaterThan(0); // … and the bucket is back for the next one
  });

  it('declaring again only reads what is there: no update of an existing stream, bucket or consumer', async () => {
    // updates of every stream at each reconnection disturbed a three-node cluster's elections
    const writes: string[] = [];
    const watch = connection.client.subscribe('$JS.API.>', {
      callback: (_error, message) => {
        if (!/\.(INFO|NAMES|LIST)\b/.test(message.subject)) writes.push(message.subject);
      },
    });
    await connection.client.flush();
    connection.topology.redeclare('reconnect');
    await connection.topology.settled();
    await connection.client.flush();
    watch.unsubscribe();
    expect(writes).toEqual([]);
  });

  it('a stream found capturing the subject is used, and this process’s own is created once the server lost it', async () => {
    // another process's stream over the subject (another account's connector's prices)
    await connection.jsm.streams.add({ name: 'T_OTHERS', subjects: ['t.shared.>'] });
    const streams = new BusStreams(connection, silent);
    const definition = { name: 'T_MINE', subjects: ['t.shared.>'], storage: 'memory' as const };
    expect(await streams.ensureCapturing('t.shared.>', definition)).toBe('T_OTHERS');
    connection.topology.redeclare('reconnect');
    await connection.topology.settled();
    await expect(connection.jsm.streams.info('T_MINE')).rejects.toThrow(); // not while the other one is there
    await connection.jsm.streams.delete('T_OTHERS'); // lost with its server's store
    connection.topology.redeclare('reconnect');
    await connection.topology.settled();
    expect(await connection.jsm.streams.find('t.shared.x')).toBe('T_MINE');
  });

  it('two processes over one subject: whichever declares first after the loss creates its stream, the other uses it', async () => {
    const registry = new MetricsRegistry('capture-b', { defaultMetrics: false });
    const other = await BusConnection.open(
      {
        servers: server.url,
        name: 'capture-b',
        topology: { checkIntervalMs: 0, backoff: { initialMs: 50, maxMs: 200 } },
      },
      new BusMetrics(registry),
      new HealthRegistry(),
      silent,
    );
    try {
      const mine = new BusStreams(connection, silent);
      const theirs = new BusStreams(other, silent);
      const definition = (name: string) => ({ name, subjects: ['t.px.>'], storage: 'memory' as const });
      expect(await mine.ensureCapturing('t.px.>', definition('T_PX_A'))).toBe('T_PX_A');
      expect(await theirs.ensureCapturing('t.px.>', definition('T_PX_B'))).toBe('T_PX_A');
      await connection.jsm.streams.delete('T_PX_A'); // lost with the server's store
      other.topology.redeclare('reconnect'); // the other process happens to declare first
      await other.topology.settled();
      expect(await connection.jsm.streams.find('t.px.x')).toBe('T_PX_B');
      connection.topology.redeclare('reconnect'); // this one uses it: its pass ends, nothing missing
      await connection.topology.settled();
      expect(await metric('bus_topology_missing')).toBe(0);
      expect(connection.topology.streams).toContain('T_PX_B'); // its metrics read the stream that captures
      expect(connection.topology.streams).not.toContain('T_PX_A');
    } finally {
      await other.close();
    }
  });

  it('two processes starting at once over one subject: both use the stream the first created, neither fails', async () => {
    const registry = new MetricsRegistry('capture-c', { defaultMetrics: false });
    const other = await BusConnection.open(
      {
        servers: server.url,
        name: 'capture-c',
        topology: { checkIntervalMs: 0, backoff: { initialMs: 50, maxMs: 200 } },
      },
      new BusMetrics(registry),
      new HealthRegistry(),
      silent,
    );
    try {
      const definition = (name: string) => ({ name, subjects: ['t.both.>'], storage: 'memory' as const });
      // both look, find none, and create their own: the second create overlaps the first's stream
      const owners = await Promise.all([
        new BusStreams(connection, silent).ensureCapturing('t.both.>', definition('T_BOTH_A')),
        new BusStreams(other, silent).ensureCapturing('t.both.>', definition('T_BOTH_B')),
      ]);
      const capturing = await connection.jsm.streams.find('t.both.x');
      expect(owners).toEqual([capturing, capturing]);
    } finally {
      await other.close();
    }
  });
  it('two processes declaring again at once after the loss: the one whose create overlaps uses the other’s, no pass fails', async () => {
    const open = async (name: string) => {
      const registry = new MetricsRegistry(name, { defaultMetrics: false });
      const bus = await BusConnection.open(
        { servers: server.url, name, topology: { checkIntervalMs: 0, backoff: { initialMs: 50, maxMs: 200 } } },
        new BusMetrics(registry),
        new HealthRegistry(),
        silent,
      );
      return { bus, registry };
    };
    const failedPasses = async (registry: MetricsRegistry) =>
      (await registry.metrics())
        .split('\n')
        .filter((l) => l.startsWith('bus_topology_redeclarations_total{') && l.includes('result="failed"'))
        .map((l) => Number(l.slice(l.lastIndexOf(' ') + 1)))
        .reduce((a, b) => a + b, 0);
    const one = await open('again-a');
    const two = await open('again-b');
    try {
      const definition = (name: string) => ({ name, subjects: ['t.again.>'], storage: 'memory' as const });
      await new BusStreams(one.bus, silent).ensureCapturing('t.again.>', definition('T_AGAIN_A'));
      await new BusStreams(two.bus, silent).ensureCapturing('t.again.>', definition('T_AGAIN_B'));
      await connection.jsm.streams.delete('T_AGAIN_A'); // lost with the server's store
      one.bus.topology.redeclare('reconnect');
      two.bus.topology.redeclare('reconnect');
      await Promise.all([one.bus.topology.settled(), two.bus.topology.settled()]);
      expect(await connection.jsm.streams.find('t.again.x')).toMatch(/^T_AGAIN_[AB]$/);
      expect([await failedPasses(one.registry), await failedPasses(two.registry)]).toEqual([0, 0]);
    } finally {
      await one.bus.close();
      await two.bus.close();
    }
  });
});

describe('the declared topology across a NATS restarted on its own store', () => {
  it('finds its streams and bucket as they were: nothing counted lost, nothing told', async () => {
    let server = await startNatsServer();
    const { port, storeDir } = server;
    const registry = new MetricsRegistry('kept-store', { defaultMetrics: false });
    const health = new HealthRegistry(500);
    const connection = await BusConnection.open(
      { servers: server.url, name: 'kept-store', reconnectTimeWaitMs: 50 },
      new BusMetrics(registry),
      health,
      silent,
    );
    const metric = async (series: string) => {
      const line = (await registry.metrics()).split('\n').find((l) => l.startsWith(series));
      return line === undefined ? undefined : Number(line.slice(line.lastIndexOf(' ') + 1));
    };
    try {
      await new BusStreams(connection, silent).ensureStream({ name: 'K_FILE', subjects: ['k.file'], storage: 'file' });
      await new BusKv(connection).bucket('K_MARKS', { storage: 'file' });
      await server.kill(); // the store is kept
      server = await startNatsServer({ port, storeDir });
      const declaredAgain = 'bus_topology_redeclarations_total{trigger="reconnect",result="ok"';
      await waitFor(async () => (await metric(declaredAgain)) === 1, 'the topology declared again', 15_000);
      expect(await metric('bus_streams_lost_total{stream="K_FILE"')).toBe(0);
      expect(await metric('bus_streams_lost_total{stream="KV_K_MARKS"')).toBe(0);
      expect((await health.report()).checks['nats']).toEqual({ up: true });
    } finally {
      await connection.close();
      await server.stop();
      await rm(storeDir, { recursive: true, force: true });
    }
  });
});
