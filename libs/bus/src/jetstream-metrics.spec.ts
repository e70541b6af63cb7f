import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { AckPolicy, StorageType } from '@nats-io/jetstream';
import { HealthRegistry, JsonLogger, MetricsRegistry } from '#observability';
import { startNatsServer, type NatsServerHandle } from '#testing';
import { BusConnection } from './bus-connection.js';
import { BusMetrics } from './bus-metrics.js';
import { JetStreamMetrics } from './jetstream-metrics.js';

const silent = new JsonLogger('jsm-test', 'test', 'error', { write: () => undefined });

/** The sample lines of one metric in Prometheus text, e.g. `jetstream_consumer_pending{…} 3`. */
function samples(text: string, name: string): string[] {
  return text.split('\n').filter((line) => line.startsWith(`${name}{`) || line.startsWith(`${name} `));
}

describe('JetStreamMetrics', () => {
  let server: NatsServerHandle;
  let connection: BusConnection;
  let registry: MetricsRegistry;

  beforeAll(async () => {
    server = await startNatsServer();
    registry = new MetricsRegistry('jsm-test', { defaultMetrics: false });
    connection = await BusConnection.open(
      { servers: server.url, name: 'jsm-test' },
      new BusMetrics(registry),
      new HealthRegistry(),
      silent,
    );
    await connection.jsm.streams.add({ name: 'WORK', subjects: ['work.>'], storage: StorageType.File });
    await connection.jsm.consumers.add('WORK', { durable_name: 'worker', ack_policy: AckPolicy.Explicit });
  });

  afterAll(async () => {
    await connection?.close();
    await server?.stop();
  });

  it("reports the app's streams and its consumers' lag from the server at scrape time", async () => {
    const metrics = new JetStreamMetrics(registry, connection);
    metrics.watch({ stream: 'WORK', consumers: ['worker'] });
    for (let i = 0; i < 3; i += 1) await connection.js.publish('work.a', `m${i}`);

    let text = await registry.metrics();
    expect(samples(text, 'jetstream_stream_messages')).toEqual([
      'jetstream_stream_messages{stream="WORK",app="jsm-test"} 3',
    ]);
    expect(samples(text, 'jetstream_consumer_pending')).toEqual([
      'jetstream_consumer_pending{stream="WORK",consumer="worker",app="jsm-test"} 3',
    ]);
    expect(samples(text, 'jetstream_info_errors')).toEqual(['jetstream_info_errors{app="jsm-test"} 0']);

    const consumer = await connection.js.consumers.get('WORK', 'worker');
    const message = await consumer.next();
    expect(message).not.toBeNull();
    text = await registry.metrics();
    expect(samples(text, 'jetstream_consumer_pending')).toEqual([
      'jetstream_consumer_pending{stream="WORK",consumer="worker",app="jsm-test"} 2',
    ]);
    expect(samples(text, 'jetstream_consumer_ack_pending')).toEqual([
      'jetstream_consumer_ack_pending{stream="WORK",consumer="worker",app="jsm-test"} 1',
    ]);
  });

  it('leaves out what it cannot read and counts it, never showing a stale value', async () => {
    const local = new MetricsRegistry('jsm-test-2', { defaultMetrics: false });
    const metrics = new JetStreamMetrics(local, connection);
    metrics.watch({ stream: 'WORK', consumers: ['worker'] }, { stream: 'MISSING', consumers: ['nobody'] });
    const text = await local.metrics();
    expect(samples(text, 'jetstream_stream_messages')).toEqual([
      'jetstream_stream_messages{stream="WORK",app="jsm-test-2"} 3',
    ]);
    expect(samples(text, 'jetstream_info_errors')).toEqual(['jetstream_info_errors{app="jsm-test-2"} 2']);
  });
});
