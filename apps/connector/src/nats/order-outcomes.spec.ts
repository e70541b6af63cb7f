import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Subject } from 'rxjs';
import { StreamName, Subjects, type OrderContradiction, type OrderOutcome } from '#contracts';
import { BusConnection, BusKv, BusMetrics, BusPublisher, BusStreams, ensureConnectorStreams } from '#bus';
import { HealthRegistry, JsonLogger, MetricsRegistry } from '#observability';
import { eventually, startNatsServer, type NatsServerHandle } from '#testing';
import { ConnectorNatsMetrics } from './connector-metrics.js';
import { OrderContradictions } from './order-contradictions.js';
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
      priceMaxAgeMs: 600_000,
      statusMaxAgeMs: 10_000,
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

  it('a SUCCESS against a FAILED mark (the gateway restarted since) is not published but stored as a contradiction', async () => {
    const registry = new MetricsRegistry('t', { defaultMetrics: false });
    const publisher = new BusPublisher(connection, new BusMetrics(registry), silent);
    const bucket = await new BusKv(connection).bucket('T_MARKS_K7', { storage: 'file' });
    const contradictions = new OrderContradictions(subjects, publisher, silent);
    contradictions.start(new Subject<OrderContradiction>());
    const publication = new OrderOutcomes(
      subjects,
      new OrderMarks(bucket),
      publisher,
      new ConnectorNatsMetrics(registry),
      silent,
      contradictions,
    );
    const base = { v: 1 as const, clientRequestId: 'k7-a', code: '', message: '' };
    await publication.publish({ ...base, status: 'FAILED', code: 'EXECUTION_REJECTED', source: 'reply' });
    await publication.publish({ ...base, status: 'SUCCESS', source: 'redelivery' });
    expect(await stored('k7-a')).toEqual(['FAILED']);
    const told = await eventually(
      () =>
        connection.jsm.streams
          .getMessage(StreamName.orderOutcomes('acct1'), { last_by_subj: subjects.orderContradiction('k7-a') })
          .then((m) => m?.json<OrderContradiction>())
          .catch(() => undefined),
      { what: 'the contradiction stored' },
    );
    expect(told).toMatchObject({ clientRequestId: 'k7-a', kept: 'FAILED', status: 'SUCCESS', source: 'redelivery' });
    contradictions.stop();
  });
});

describe('OrderOutcomes across a nats-server outage', () => {
  it('stores an outcome that arrived while NATS was down once the server is back, without a connector restart', async () => {
    let server = await startNatsServer();
    const { registry, busMetrics, connection } = await openBus(server.url);
    try {
      const subjects = new Subjects('gw.v1', 'acct-outage');
      await ensureConnectorStreams(new BusStreams(connection, silent), subjects, {
        outcomeDuplicateWindowMs: 60_000,
        priceMaxAgeMs: 600_000,
        statusMaxAgeMs: 10_000,
        orderRetentionMs: 3_600_000,
      });
      const bucket = await new BusKv(connection).bucket('T_MARKS_OUTAGE', { storage: 'file' });
      const metrics = new ConnectorNatsMetrics(registry);
      const publisher = new BusPublisher(connection, busMetrics, silent);
      const publication = new OrderOutcomes(subjects, new OrderMarks(bucket), publisher, metrics, silent);
      const outcomes$ = new Subject<OrderOutcome>();
      publication.start(outcomes$);

      const { port, storeDir } = server;
      await server.kill();
      outcomes$.next({
        v: 1,
        clientRequestId: 'outage-1',
        status: 'SUCCESS',
        code: '',
        message: '',
        source: 'redelivery',
      });
      // the first attempt fails while the server is gone (its mark cannot be read)
      await until(async () => ((await metrics.outcomePublishFailures.get()).values[0]?.value ?? 0) >= 1);
      // what is at risk (the alert's measure): one outcome not stored yet, waiting longer as the outage lasts
      expect(await gauge(registry, 'connector_order_outcomes_unstored')).toBe(1);
      await until(async () => (await gauge(registry, 'connector_order_outcome_oldest_unstored_seconds')) > 0);
      server = await startNatsServer({ port, storeDir });
      await until(async () => {
        const stored = await connection.jsm.streams
          .getMessage(StreamName.orderOutcomes('acct-outage'), { last_by_subj: subjects.orderOutcome('outage-1') })
          .catch(() => null);
        return stored?.json<OrderOutcome>().status === 'SUCCESS';
      }, 20_000);
      // stored, nothing left at risk: both read 0 again (the failure counter keeps its count)
      await until(async () => (await gauge(registry, 'connector_order_outcomes_unstored')) === 0);
      expect(await gauge(registry, 'connector_order_outcome_oldest_unstored_seconds')).toBe(0);
      await publication.stop(1_000);
    } finally {
      await connection.close();
      await server.stop();
    }
  });
});

describe('OrderOutcomes stopped while NATS is down', () => {
  it('names every outcome still in hand — the one being stored and those queued behind it — and counts them', async () => {
    const server = await startNatsServer();
    const { registry, busMetrics, connection } = await openBus(server.url);
    const lines: string[] = [];
    const logger = new JsonLogger('t', 'test', 'info', { write: (line: string) => lines.push(line) });
    try {
      const subjects = new Subjects('gw.v1', 'acct-down');
      const bucket = await new BusKv(connection).bucket('T_MARKS_DOWN', { storage: 'file' });
      const metrics = new ConnectorNatsMetrics(registry);
      const publication = new OrderOutcomes(
        subjects,
        new OrderMarks(bucket),
        new BusPublisher(connection, busMetrics, silent),
        metrics,
        logger,
      );
      const outcomes$ = new Subject<OrderOutcome>();
      publication.start(outcomes$);
      await server.kill();
      // outside tester: five fills while NATS was gone; the shutdown log named one of them
      for (let i = 1; i <= 5; i += 1) {
        outcomes$.next({
          v: 1,
          clientRequestId: `down-${i}`,
          status: 'SUCCESS',
          code: '',
          message: '',
          source: 'reply',
        });
      }
      await publication.stop(300);
      const named = lines
        .map((line) => JSON.parse(line) as { msg: string; clientRequestId?: string })
        .filter((line) => line.msg.startsWith('order outcome not stored before shutdown'))
        .map((line) => line.clientRequestId);
      expect(named).toEqual(['down-1', 'down-2', 'down-3', 'down-4', 'down-5']);
      expect((await metrics.outcomesUnstoredAtShutdown.get()).values[0]?.value).toBe(5);
    } finally {
      await connection.close();
      await server.stop();
    }
  });
});

describe('OrderOutcomes metrics', () => {
  it('export the unstored outcomes and the age of the oldest at 0 before any outcome', async () => {
    const registry = new MetricsRegistry('t', { defaultMetrics: false });
    const metrics = new ConnectorNatsMetrics(registry);
    expect(await gauge(registry, 'connector_order_outcomes_unstored')).toBe(0);
    expect(await gauge(registry, 'connector_order_outcome_oldest_unstored_seconds')).toBe(0);
    expect((await metrics.outcomePublishFailures.get()).values[0]?.value).toBe(0);
  });
});

/** The value of an unlabelled gauge as a scrape reads it (its collect() run), or NaN when it is not exported. */
async function gauge(registry: MetricsRegistry, name: string): Promise<number> {
  const metric = registry.getSingleMetric(name);
  if (metric === undefined) return Number.NaN;
  return (await metric.get()).values[0]?.value ?? Number.NaN;
}

/** A bus connection of its own (metrics in a registry of its own) that reconnects quickly. */
async function openBus(url: string) {
  const registry = new MetricsRegistry('t', { defaultMetrics: false });
  const busMetrics = new BusMetrics(registry);
  const connection = await BusConnection.open(
    { servers: url, name: 't', reconnectTimeWaitMs: 50 },
    busMetrics,
    new HealthRegistry(),
    silent,
  );
  return { registry, busMetrics, connection };
}

async function until(condition: () => Promise<boolean>, timeoutMs = 15_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
