/**
 * A venue that holds subscriptions across a reconnect of the same sessionId (dialect `held`), and a connector
 * killed with a stream open: the next connector, under the same session, finds the dead one's subscription
 * still streaming under a tag it never minted. It knows it from NATS KV (the grants every life remembers) and
 * unsubscribes it, so it stops taking the connection's updates (outside tester: after a few restarts, 39 of
 * 40 frames were such leftovers and every wanted stream went stale). Both connectors are real child processes.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { connect, type NatsConnection } from '@nats-io/transport-node';
import { eventually, freePort, startNatsServer, type NatsServerHandle } from '#testing';
import { startSandboxVenue, type RunningSandbox } from '../../apps/sandbox-venue/src/bootstrap.js';
import { AppProcess } from '../kit/app-process.js';
import { askForStream, connectorEnv, metricValue, nextPrice, streamRequest } from './connector-stack.js';

const READY = 'connector started';

describe('subscriptions a killed connector left at a venue that holds them', () => {
  let nats: NatsServerHandle;
  let venue: RunningSandbox;
  let strategy: NatsConnection;
  let app: AppProcess | undefined;

  beforeAll(async () => {
    nats = await startNatsServer();
    venue = await startSandboxVenue({
      dialect: { subscriptionsOnReconnect: 'held' },
      trading: { priceIntervalMs: 100, offContractEveryNTicks: 0 },
    });
    strategy = await connect({ servers: nats.url });
  });
  afterAll(async () => {
    await app?.stop();
    await strategy?.close();
    await venue?.close();
    await nats?.stop();
  });

  it('the next connector under the same session unsubscribes the dead one’s stream, and its frames stop', async () => {
    const port = await freePort();
    const env = connectorEnv(nats, venue, { HTTP_PORT: String(port) });
    const metrics = `http://127.0.0.1:${port}`;
    app = AppProcess.start('connector', env);
    await app.waitForLine(READY);
    const granted = await askForStream(strategy, streamRequest(venue, 'leftover-test'));
    expect(granted.ok).toBe(true);
    if (!granted.ok) return;
    await nextPrice(strategy, granted.subject, (p) => p.status === 'live');
    app.signal('SIGKILL');
    await app.exited;

    app = AppProcess.start('connector', env);
    await app.waitForLine(READY);
    // the dead one's subscription streams on under its tag: known from NATS KV, ended once
    await eventually(
      async () =>
        (await metricValue(metrics, 'connector_leftover_subscriptions_ended_total')) === 1 ? true : undefined,
      { what: 'the leftover unsubscribed', timeoutMs: 10_000 },
    );
    // its frames stop: the count of unknown-tag frames stands still
    const unknown = () =>
      metricValue(metrics, 'connector_venue_frames_rejected_total', { reason: 'unknown_tag' }).then((v) => v ?? 0);
    await new Promise((resolve) => setTimeout(resolve, 500));
    const settled = await unknown();
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    expect(await unknown()).toBe(settled);
  }, 60_000);
});
