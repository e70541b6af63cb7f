import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Subject } from 'rxjs';
import { connect, type NatsConnection } from '@nats-io/transport-node';
import { Subjects, type PriceMessage } from '#contracts';
import { BusConnection, BusKv, BusMetrics, BusPublisher } from '#bus';
import { HealthRegistry, JsonLogger, MetricsRegistry } from '#observability';
import { eventually, startNatsServer, type NatsServerHandle } from '#testing';
import { ConnectorNatsMetrics } from './connector-metrics.js';
import { PricePublication } from './price-publication.js';
import { PublishedPriceSubjects } from './published-price-subjects.js';

const SUBJECT = 'gw.v1.price.g-1.BTC.USD.T.BTC.0_5';
const live = (quoteId: string): PriceMessage => ({
  v: 1,
  status: 'live',
  accountGroup: 'g-1',
  instrument: 'BTC.USD',
  tenor: 'T',
  currency: 'BTC',
  quantity: '0.5',
  quoteId,
  venueTimestamp: 1_700_000_000_000,
  quoteExpiresAt: 1_700_000_600_000,
  bid: { price: '64000', quantity: '0.5', quoteAmount: '32000' },
  offer: { price: '64010', quantity: '0.5', quoteAmount: '32005' },
  settleDate: '20261124',
});

/**
 * The subject of a new stream is stored in the bucket before its first price reaches anyone: a process killed
 * right after that price leaves it for the next life to mark `stopped` (connector-runtime.ts retireEarlierLife).
 */
describe("a new price stream's subject, recorded before its first price (real nats-server)", () => {
  let server: NatsServerHandle;
  let connection: BusConnection;
  let strategy: NatsConnection;

  beforeAll(async () => {
    server = await startNatsServer();
    const registry = new MetricsRegistry('t', { defaultMetrics: false });
    connection = await BusConnection.open(
      { servers: server.url, name: 'subjects' },
      new BusMetrics(registry),
      new HealthRegistry(500),
      new JsonLogger('t', 'test', 'error', { write: () => undefined }),
    );
    strategy = await connect({ servers: server.url });
  });
  afterAll(async () => {
    await strategy.close();
    await connection.close();
    await server.stop();
  });

  /** A publication whose ledger is the bucket `name`; the subjects the bucket held when each price arrived. */
  async function publishing(name: string, deadlineMs?: number) {
    const registry = new MetricsRegistry('t', { defaultMetrics: false });
    const warnings: string[] = [];
    const logger = new JsonLogger('t', 'test', 'warn', { write: (line: string) => void warnings.push(line) });
    const bucket = await new BusKv(connection).bucket(name, { storage: 'file' });
    const ledger = new PublishedPriceSubjects(bucket, logger, deadlineMs);
    const publication = new PricePublication(
      new Subjects('gw.v1', 'acct'),
      new BusPublisher(connection, new BusMetrics(registry), logger),
      new ConnectorNatsMetrics(registry),
      logger,
      ledger,
    );
    const prices$ = new Subject<PriceMessage>();
    publication.start(prices$);
    const arrived: { quoteId: string | undefined; held: string[] | string }[] = [];
    const sub = strategy.subscribe(SUBJECT, {
      callback: (_error, msg) => {
        const entry: { quoteId: string | undefined; held: string[] | string } = {
          quoteId: msg.json<PriceMessage>().quoteId,
          held: 'reading',
        };
        arrived.push(entry);
        // read at once, as a next life would after a SIGKILL right now
        ledger.earlier().then(
          (subjects) => (entry.held = subjects),
          (error: unknown) => (entry.held = String(error)),
        );
      },
    });
    await strategy.flush();
    const records = async (result: string) =>
      (await registry.getSingleMetric('connector_price_subject_records_total')?.get())?.values.find(
        (v) => v.labels['result'] === result,
      )?.value;
    const done = () => {
      sub.unsubscribe();
      publication.stop();
    };
    return { prices$, arrived, warnings, records, done };
  }

  it('the first live price goes out once the subject is stored; the next ones without a wait or a record', async () => {
    const p = await publishing('T_SUBJECTS_1');
    p.prices$.next(live('q-1'));
    p.prices$.next(live('q-2'));
    await eventually(() => (p.arrived.length === 2 && p.arrived.every((a) => a.held !== 'reading')) || undefined);
    expect(p.arrived).toEqual([
      { quoteId: 'q-1', held: [SUBJECT] },
      { quoteId: 'q-2', held: [SUBJECT] },
    ]);
    p.prices$.next(live('q-3'));
    await eventually(() => p.arrived.length === 3 || undefined);
    expect(await p.records('recorded')).toBe(1); // once per stream's life, not per price
    expect(p.warnings).toEqual([]);
    p.done();
  });

  it('a bucket the server lost: the first price waits for the bus to declare it again and the subject to be stored', async () => {
    const p = await publishing('T_SUBJECTS_2');
    await connection.jsm.streams.delete('KV_T_SUBJECTS_2'); // a nats-server restarted with an empty store
    p.prices$.next(live('q-1'));
    await eventually(() => (p.arrived.length === 1 && p.arrived[0]?.held !== 'reading') || undefined, {
      timeoutMs: 5_000,
    });
    expect(p.arrived).toEqual([{ quoteId: 'q-1', held: [SUBJECT] }]);
    expect(await p.records('recorded')).toBe(1);
    p.done();
  });

  it('a record the server refuses: the prices still go out, in order, counted and told as degraded', async () => {
    const p = await publishing('T_SUBJECTS_3');
    const info = await connection.jsm.streams.info('KV_T_SUBJECTS_3');
    await connection.jsm.streams.update('KV_T_SUBJECTS_3', { ...info.config, max_msg_size: 1 });
    p.prices$.next(live('q-1'));
    p.prices$.next(live('q-2'));
    await eventually(() => p.arrived.length === 2 || undefined, { timeoutMs: 5_000 });
    expect(p.arrived.map((a) => a.quoteId)).toEqual(['q-1', 'q-2']);
    expect(await p.records('failed')).toBe(1);
    const warning = p.warnings.find((line) => line.includes('could not be recorded'));
    expect(warning).toContain(SUBJECT);
    expect(warning).toContain('"result":"failed"');
    p.done();
  });

  it('a record not answered within its deadline: the held prices go out at the deadline, counted timed_out', async () => {
    const p = await publishing('T_SUBJECTS_4', 300);
    // the bucket's stream gone and a silent listener in its place: the write is taken and never answered
    await connection.jsm.streams.delete('KV_T_SUBJECTS_4');
    const silentStore = strategy.subscribe('$KV.T_SUBJECTS_4.>', { callback: () => undefined });
    await strategy.flush();
    const started = Date.now();
    p.prices$.next(live('q-1'));
    p.prices$.next(live('q-2'));
    await eventually(() => p.arrived.length === 2 || undefined, { timeoutMs: 5_000 });
    expect(Date.now() - started).toBeGreaterThanOrEqual(290);
    expect(p.arrived.map((a) => a.quoteId)).toEqual(['q-1', 'q-2']);
    expect(await p.records('timed_out')).toBe(1);
    expect(p.warnings.find((line) => line.includes('could not be recorded'))).toContain('"result":"timed_out"');
    silentStore.unsubscribe();
    p.done();
  });
});
