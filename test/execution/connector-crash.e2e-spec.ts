/**
 * Outside tester t2, finding 1: the connector SIGKILLed with a stream live, restarted; a new subscriber got the dead
 * life's last price first as `live`, `tradable`, 17–29 s old, and an order on its quote was accepted and executed.
 * A stale value is never shown as live: the restarted connector publishes `stopped` on the streams its dead
 * predecessor left live before it serves anything, the SDK shows no held-over quote as tradable, and execution
 * refuses an order on it — never sent. Connector and execution run from dist, as in production.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { connect, type NatsConnection } from '@nats-io/transport-node';
import { jetstreamManager, type JetStreamManager } from '@nats-io/jetstream';
import { GatewayClient, type PriceUpdate } from '#client';
import { StreamName, type PriceMessage } from '#contracts';
import { eventually, startNatsServer, type NatsServerHandle } from '#testing';
import type { RunningSandbox } from '../../apps/sandbox-venue/src/bootstrap.js';
import { startE2eVenue } from '../kit/e2e-venue.js';
import type { AppProcess } from '../kit/app-process.js';
import { ACCOUNT, askForStream, metricSum, nextPrice, streamRequest } from '../connector/connector-stack.js';
import { startConnectorProcess } from '../connector/connector-process.js';
import { ExecutionInstance, FAST_EXECUTION_ENV, place } from './execution-stack.js';

describe('a connector killed with a stream live, then restarted', () => {
  let nats: NatsServerHandle;
  let venue: RunningSandbox;
  let strategy: NatsConnection;
  let jsm: JetStreamManager;
  const apps: AppProcess[] = [];
  let execution: ExecutionInstance | undefined;

  const startConnector = () => startConnectorProcess(nats, venue, apps);

  beforeAll(async () => {
    nats = await startNatsServer();
    venue = await startE2eVenue({ trading: { priceIntervalMs: 100, offContractEveryNTicks: 0 } });
    strategy = await connect({ servers: nats.url });
    jsm = await jetstreamManager(strategy);
  });
  afterAll(async () => {
    await execution?.kill().catch(() => undefined);
    for (const app of apps) await app.stop();
    await strategy?.close();
    await venue?.close();
    await nats?.stop();
  });

  let attempt = 0;

  it("no one sees the dead life's last price as live, and an order on its quote is refused, never sent", async () => {
    // a retry starts afresh: no process of the failed attempt left, a stream and keys of its own
    attempt += 1;
    for (const app of apps.splice(0)) await app.stop();
    await execution?.kill();
    const quantity = `0.${attempt + 4}`;
    const killed = await startConnector();
    execution = await ExecutionInstance.start({
      HTTP_PORT: '0',
      HTTP_HOST: '127.0.0.1',
      NATS_URL: nats.url,
      ACCOUNT,
      VENUE_REST_URL: venue.restBaseUrl,
      VENUE_API_KEY: venue.credentials.primary.apiKey,
      VENUE_API_SECRET: venue.credentials.primary.apiSecret,
      INSTANCE_ID: 'exec-crash',
      ...FAST_EXECUTION_ENV,
      DEFAULT_METRICS: 'false',
      LOG_LEVEL: 'info',
    });
    // the only holder of the stream: a plain NATS strategy, gone with the connector
    const reply = await askForStream(strategy, streamRequest(venue, 'holder', { leaseSeconds: 600, quantity }));
    if (!reply.ok) throw new Error(`stream refused: ${reply.error.code}`);
    const subject = reply.subject;
    await nextPrice(strategy, subject, (p) => p.status === 'live');
    const lastValue = async (): Promise<PriceMessage | undefined> =>
      (await jsm.direct.getMessage(StreamName.prices(ACCOUNT), { last_by_subj: subject }))?.json<PriceMessage>();

    killed.signal('SIGKILL');
    await killed.exited;
    const dead = await lastValue();
    expect(dead?.status).toBe('live'); // what a crash leaves: nobody said `stopped`
    const deadQuote = dead?.quoteId ?? '';
    expect(deadQuote).not.toBe('');

    await startConnector();
    // a plain reader of the last value, before anyone asks for the stream again
    expect(await lastValue()).toMatchObject({ status: 'stopped', code: 'CONNECTOR_STOPPED' });

    // a new subscriber through the SDK: nothing of the dead life comes as live or tradable
    const client = await GatewayClient.connect({ servers: nats.url, account: ACCOUNT, requester: 'late-sdk' });
    try {
      const seen: PriceUpdate[] = [];
      const updates = client.prices.watch({
        instrument: 'BTC.USD',
        quantity,
        currency: 'BTC',
        tenor: 'T',
        accountGroup: venue.seed.defaultGroupUuid,
      });
      const watching = updates.subscribe((u) => seen.push(u));
      try {
        const fresh = await eventually(() => seen.find((u) => u.tradable && u.price.quoteId !== deadQuote), {
          what: 'a fresh tradable price',
        });
        expect(seen.filter((u) => u.price.quoteId === deadQuote && (u.tradable || u.price.status === 'live'))).toEqual(
          [],
        );

        // an order on the dead life's quote, while the stream is live again: refused, nothing reaches the venue
        const venueOrders = await metricSum(venue.restBaseUrl, 'sandbox_orders_total');
        const refused = await place(strategy, {
          idempotencyKey: `dead-quote-${attempt}`,
          strategyId: 'crash',
          accountGroup: venue.seed.defaultGroupUuid,
          side: 'BUY',
          quoteId: deadQuote,
        });
        expect(refused.ok).toBe(false);
        if (!refused.ok) expect(refused.error.code).toBe('QUOTE_STALE');
        expect(await metricSum(venue.restBaseUrl, 'sandbox_orders_total')).toBe(venueOrders);

        // a fresh quote of the same stream is accepted: the refusal is about the dead life's quote only (the latest
        // tradable one, asked again if execution had not heard it yet when asked)
        const refusals: string[] = [];
        await eventually(
          async () => {
            const latest = [...seen].reverse().find((u) => u.tradable) ?? fresh;
            const accepted = await place(strategy, {
              idempotencyKey: `fresh-quote-${attempt}-${refusals.length}`,
              strategyId: 'crash',
              accountGroup: venue.seed.defaultGroupUuid,
              side: 'BUY',
              quoteId: latest.price.quoteId,
            });
            if (!accepted.ok) refusals.push(accepted.error.code);
            return accepted.ok || undefined;
          },
          { what: 'a fresh quote accepted', timeoutMs: 5_000, intervalMs: 200 },
        ).catch((error: unknown) => {
          throw new Error(`${String(error)}; refusals: ${refusals.join(', ')}`);
        });
      } finally {
        watching.unsubscribe();
      }
    } finally {
      await client.close();
    }
  });
});
