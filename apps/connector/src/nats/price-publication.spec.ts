import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Subject } from 'rxjs';
import { connect, type NatsConnection } from '@nats-io/transport-node';
import { Subjects, type PriceMessage } from '#contracts';
import { BusConnection, BusMetrics, BusPublisher } from '#bus';
import { HealthRegistry, JsonLogger, MetricsRegistry } from '#observability';
import { startNatsServer, type NatsServerHandle } from '#testing';
import { ConnectorNatsMetrics } from './connector-metrics.js';
import { PricePublication } from './price-publication.js';

const silent = new JsonLogger('connector-test', 'test', 'error', { write: () => undefined });

const live = (instrument: string, quantity: string, quoteId: string): PriceMessage => ({
  v: 1,
  status: 'live',
  accountGroup: 'g-1',
  instrument,
  tenor: 'T',
  currency: instrument.slice(0, 3),
  quantity,
  quoteId,
  venueTimestamp: 1_700_000_000_000,
  quoteExpiresAt: 1_700_000_600_000,
  bid: { price: '64000.12345678901234567890', quantity, quoteAmount: '32000.06' },
  offer: { price: '64010.5', quantity, quoteAmount: '32005.25' },
  settleDate: '20261124',
});

describe('PricePublication', () => {
  let server: NatsServerHandle;
  let connection: BusConnection;
  let strategy: NatsConnection;
  let metrics: MetricsRegistry;
  const prices$ = new Subject<PriceMessage>();
  let publication: PricePublication;

  beforeAll(async () => {
    server = await startNatsServer();
    metrics = new MetricsRegistry('t', { defaultMetrics: false });
    const busMetrics = new BusMetrics(metrics);
    connection = await BusConnection.open(
      { servers: server.url, name: 'publication' },
      busMetrics,
      new HealthRegistry(500),
      silent,
    );
    strategy = await connect({ servers: server.url });
    publication = new PricePublication(
      new Subjects('gw.v1', 'acct'),
      new BusPublisher(connection, busMetrics, silent),
      new ConnectorNatsMetrics(metrics),
      silent,
    );
    publication.start(prices$);
  });

  afterAll(async () => {
    publication.stop();
    await strategy.close();
    await connection.close();
    await server.stop();
  });

  it('routes each stream to its own subject, also when streams share a size, and across a stop', async () => {
    const received: { subject: string; body: unknown }[] = [];
    const sub = strategy.subscribe('gw.v1.price.>', {
      callback: (_error, msg) => {
        received.push({ subject: msg.subject, body: msg.json() });
      },
    });
    await strategy.flush();
    const btc = live('BTC.USD', '0.50', 'q-1');
    const eth = live('ETH.USD', '0.50', 'q-2');
    const btcUsdt = live('BTC.USDT', '0.5', 'q-3');
    const stopped: PriceMessage = {
      v: 1,
      status: 'stopped',
      accountGroup: 'g-1',
      instrument: 'BTC.USD',
      tenor: 'T',
      currency: 'BTC',
      quantity: '0.50',
      code: 'HALTED',
      message: 'halted',
    };
    const again = live('BTC.USD', '0.50', 'q-4');
    for (const price of [btc, eth, btcUsdt, eth, stopped, again]) prices$.next(price);
    await strategy.flush();
    await new Promise<void>((resolve) => {
      const poll = (): void => (received.length >= 6 ? resolve() : void setTimeout(poll, 5));
      poll();
    });
    sub.unsubscribe();
    expect(received).toEqual([
      { subject: 'gw.v1.price.g-1.BTC.USD.T.BTC.0_5', body: btc },
      { subject: 'gw.v1.price.g-1.ETH.USD.T.ETH.0_5', body: eth },
      { subject: 'gw.v1.price.g-1.BTC.USDT.T.BTC.0_5', body: btcUsdt },
      { subject: 'gw.v1.price.g-1.ETH.USD.T.ETH.0_5', body: eth },
      { subject: 'gw.v1.price.g-1.BTC.USD.T.BTC.0_5', body: stopped },
      { subject: 'gw.v1.price.g-1.BTC.USD.T.BTC.0_5', body: again },
    ]);
    const published = await metrics.getSingleMetric('connector_prices_published_total')?.get();
    expect(published?.values.find((v) => v.labels['status'] === 'live')?.value).toBe(5);
  });

  it('drops and counts a price whose key cannot form a subject', async () => {
    prices$.next(live('BTCUSD', '1', 'q-5'));
    const unroutable = await metrics.getSingleMetric('connector_prices_unroutable_total')?.get();
    expect(unroutable?.values[0]?.value).toBe(1);
  });
});
