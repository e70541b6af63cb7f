import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Subject } from 'rxjs';
import { StreamName, Subjects, type OrderOutcome } from '#contracts';
import { BusConnection, BusKv, BusMetrics, BusPublisher, BusStreams } from '#bus';
import { HealthRegistry, JsonLogger, MetricsRegistry } from '#observability';
import { startNatsServer, type NatsServerHandle } from '#testing';
import { ConnectorNatsMetrics } from './connector-metrics.js';
import { ensureConnectorStreams } from './connector-streams.js';
import { OrderMarks } from './order-marks.js';
import { OrderOutcomes } from './order-outcomes.js';

const silent = new JsonLogger('outcomes-test', 'test', 'error', { write: () => undefined });

describe('OrderOutcomes against a real nats-server', () => {
  let server: NatsServerHandle;
  let connection: BusConnection;
  const subjects = new Subjects('gw.v1', 'acct1');

  beforeAll(async () => {
    server = await startNatsServer();
    const registry = new MetricsRegistry('t', { defaultMetrics: false });
    connection = await BusConnection.open(
      { servers: server.url, name: 't' },
      new BusMetrics(registry),
      new HealthRegistry(),
      silent,
    );
    await ensureConnectorStreams(new BusStreams(connection, silent), subjects, {
      outcomeDuplicateWindowMs: 60_000,
      orderRetentionMs: 3_600_000,
    });
  });
  afterAll(async () => {
    await connection.close();
    await server.stop();
  });

  function outcomes(bucketName: string) {
    const registry = new MetricsRegistry('t', { defaultMetrics: false });
    const publisher = new BusPublisher(connection, new BusMetrics(registry), silent);
    return new BusKv(connection)
      .bucket(bucketName, { storage: 'file' })
      .then(
        (bucket) =>
          new OrderOutcomes(subjects, new OrderMarks(bucket), publisher, new ConnectorNatsMetrics(registry), silent),
      );
  }

  async function stored(clientRequestId: string): Promise<string[]> {
    const found: string[] = [];
    const info = await connection.jsm.streams.info(StreamName.orderOutcomes('acct1'));
    for (let seq = info.state.first_seq; seq <= info.state.last_seq; seq += 1) {
      const message = await connection.jsm.streams
        .getMessage(StreamName.orderOutcomes('acct1'), { seq })
        .catch(() => null);
      if (message?.subject === subjects.orderOutcome(clientRequestId)) found.push(message.json<OrderOutcome>().status);
    }
    return found;
  }

  it('at stop, stores every outcome already handed to it, not only the one being published', async () => {
    const publication = await outcomes('T_MARKS_STOP');
    const outcomes$ = new Subject<OrderOutcome>();
    publication.start(outcomes$);
    const base = { v: 1 as const, code: '', message: '', source: 'reply' as const };
    // Several outcomes arrive at once (e.g. redelivered on the draining connection): one is being
    // published, the others wait their turn; stop must not drop the waiting ones.
    for (const id of ['stop-a', 'stop-b', 'stop-c'])
      outcomes$.next({ ...base, clientRequestId: id, status: 'SUCCESS' });
    await publication.stop(30_000);
    expect(await stored('stop-a')).toEqual(['SUCCESS']);
    expect(await stored('stop-b')).toEqual(['SUCCESS']);
    expect(await stored('stop-c')).toEqual(['SUCCESS']);
  });
});
