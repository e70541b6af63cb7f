/**
 * A connector SIGKILLed right after a new stream's first price: its next life still finds that stream's subject in
 * `GW_PRICE_SUBJECTS_{account}` and marks it `stopped` (CONNECTOR_STOPPED), so no late joiner takes the dead life's
 * price for a live one. The first price of a stream waits for its subject to be stored; before, the write did not
 * wait, and a bucket the server had lost (a nats-server restarted with an empty store) was written only after the
 * bus declared it again — a kill in between left the subject unrecorded and its dead `live` price never retired.
 * The connector runs from dist, as in production.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { connect, type NatsConnection } from '@nats-io/transport-node';
import { jetstreamManager, type JetStreamManager } from '@nats-io/jetstream';
import { BucketName } from '#bus';
import { StreamName, type PriceMessage } from '#contracts';
import { eventually, startNatsServer, type NatsServerHandle } from '#testing';
import type { RunningSandbox } from '../../apps/sandbox-venue/src/bootstrap.js';
import { startE2eVenue } from '../kit/e2e-venue.js';
import type { AppProcess } from '../kit/app-process.js';
import { startConnectorProcess } from './connector-process.js';
import { ACCOUNT, askForStream, streamRequest } from './connector-stack.js';

describe("a connector killed right after a new stream's first price", () => {
  let nats: NatsServerHandle;
  let venue: RunningSandbox;
  let strategy: NatsConnection;
  let jsm: JetStreamManager;
  const apps: AppProcess[] = [];

  const startConnector = () => startConnectorProcess(nats, venue, apps);

  beforeAll(async () => {
    nats = await startNatsServer();
    venue = await startE2eVenue({ trading: { priceIntervalMs: 100, offContractEveryNTicks: 0 } });
    strategy = await connect({ servers: nats.url });
    jsm = await jetstreamManager(strategy);
  });
  afterAll(async () => {
    for (const app of apps) await app.stop();
    await strategy?.close();
    await venue?.close();
    await nats?.stop();
  });

  const cases = [
    { name: 'its bucket in place', quantity: '0.3', bucketLost: false },
    { name: 'its bucket lost by the server just before', quantity: '0.4', bucketLost: true },
  ];
  for (const { name, quantity, bucketLost } of cases) {
    it(`the next life marks that stream stopped (${name})`, async () => {
      for (const app of apps.splice(0)) await app.stop();
      const killed = await startConnector();
      if (bucketLost) await jsm.streams.delete(`KV_${BucketName.priceSubjects(ACCOUNT)}`);
      // killed from the callback of the stream's very first live price, before anything else runs here
      let subject: string | undefined;
      const watch = strategy.subscribe('gw.v1.price.>', {
        callback: (_error, msg) => {
          const price = msg.json<PriceMessage>();
          if (subject !== undefined || price.quantity !== quantity || price.status !== 'live') return;
          killed.signal('SIGKILL');
          subject = msg.subject;
        },
      });
      await strategy.flush();
      const reply = await askForStream(strategy, streamRequest(venue, 'holder', { leaseSeconds: 600, quantity }));
      if (!reply.ok) throw new Error(`stream refused: ${reply.error.code}`);
      await killed.exited;
      watch.unsubscribe();
      expect(subject).toBe(reply.subject);
      const lastValue = async (): Promise<PriceMessage | undefined> =>
        (
          await jsm.direct.getMessage(StreamName.prices(ACCOUNT), { last_by_subj: reply.subject })
        )?.json<PriceMessage>();
      expect((await lastValue())?.status).toBe('live'); // what the kill left: nobody said `stopped`

      const next = await startConnector();
      // the retirement happens before the next life says it started
      expect(await lastValue()).toMatchObject({ status: 'stopped', code: 'CONNECTOR_STOPPED' });
      await eventually(() => next.lines.find((line) => line.includes('now read stopped')), {
        what: 'the retirement logged',
      });
    }, 60_000);
  }
});
