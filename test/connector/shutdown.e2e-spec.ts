/**
 * Issue 7, symptom 4: SIGTERM stops the order flow at once. Commands not yet sent go back to the stream
 * unsent (the next instance sends them, exactly once); orders already sent get their replies waited for
 * (bounded) and their outcomes stored before the process exits, with exit code 0.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { connect, type NatsConnection } from '@nats-io/transport-node';
import { jetstream, jetstreamManager, type JetStreamClient, type JetStreamManager } from '@nats-io/jetstream';
import { isFinalStatus } from '#contracts';
import { TonceSource, VenueRestClient } from '#venue-api';
import { freePort, startNatsServer, waitFor, type NatsServerHandle } from '#testing';
import type { RunningSandbox } from '../../apps/sandbox-venue/src/bootstrap.js';
import { startE2eVenue } from '../kit/e2e-venue.js';
import { AppProcess } from '../kit/app-process.js';
import { adminPost, connectorEnv, liveQuotes, storedOutcomes, subjects } from './connector-stack.js';

const READY = 'connector started'; // runApp's line: HTTP listening, signals taken
const ORDERS = 14;

describe('connector SIGTERM with orders in flight', () => {
  let nats: NatsServerHandle;
  let venue: RunningSandbox;
  let strategy: NatsConnection;
  let js: JetStreamClient;
  let jsm: JetStreamManager;
  let rest: VenueRestClient;
  let env: Record<string, string>;
  let app: AppProcess;

  beforeAll(async () => {
    nats = await startNatsServer();
    venue = await startE2eVenue({ trading: { priceIntervalMs: 50, offContractEveryNTicks: 0 } });
    env = connectorEnv(nats, venue, {
      HTTP_PORT: String(await freePort()),
      LOG_LEVEL: 'info',
      VENUE_DRAIN_TIMEOUT_MS: '5000',
    });
    strategy = await connect({ servers: nats.url });
    js = jetstream(strategy);
    jsm = await jetstreamManager(strategy);
    rest = new VenueRestClient({
      baseUrl: venue.restBaseUrl,
      apiKey: venue.credentials.primary.apiKey,
      apiSecret: venue.credentials.primary.apiSecret,
      signatureEncoding: 'base64',
      antiReplay: new TonceSource(),
    });
    app = AppProcess.start('connector', env);
    await app.waitForLine(READY);
  });

  afterAll(async () => {
    await app?.stop();
    await strategy?.close();
    await venue?.close();
    await nats?.stop();
  });

  async function knownAtVenue(ids: readonly string[]): Promise<string[]> {
    const known: string[] = [];
    for (const id of ids) if ((await rest.getOrderState(id)).length > 0) known.push(id);
    return known;
  }

  it('stops sending at the signal, stores the outcomes of sent orders, exits 0; the rest is sent after restart', async () => {
    const ids = Array.from({ length: ORDERS }, (_, i) => `term-${i}`);
    const quoteIds = await liveQuotes(strategy, venue, 'shutdown-test', ORDERS);
    await adminPost(venue, 'faults/ws/order-delay', { ms: 1_000 }); // replies of sent orders arrive late
    for (const [i, id] of ids.entries()) {
      await js.publish(
        subjects.orderCommand,
        JSON.stringify({ clientRequestId: id, quoteId: quoteIds[i], side: 'BUY' }),
        {
          msgID: id,
        },
      );
    }
    await waitFor(async () => (await knownAtVenue(ids.slice(0, 3))).length === 3, 'three orders at the venue');

    app.signal('SIGTERM');
    const atSignal = await knownAtVenue(ids);
    const exit = await app.exited;
    const atExit = await knownAtVenue(ids);

    expect(exit).toEqual({ code: 0, signal: null });
    expect(atExit.length).toBeLessThan(ORDERS); // it stopped taking commands
    expect(atExit.length - atSignal.length).toBeLessThanOrEqual(1); // at most the frame already leaving
    for (const id of atExit) {
      const stored = await storedOutcomes(jsm, id);
      expect(stored.filter((o) => isFinalStatus(o.status))).toHaveLength(1); // stored before exit
    }

    await adminPost(venue, 'faults/ws/order-delay', { ms: 0 });
    app = AppProcess.start('connector', env);
    await app.waitForLine(READY);
    await waitFor(
      async () => {
        for (const id of ids) if (!(await storedOutcomes(jsm, id)).some((o) => isFinalStatus(o.status))) return false;
        return true;
      },
      'a final outcome for every order',
      30_000,
    );
    for (const id of ids) {
      const finals = (await storedOutcomes(jsm, id)).filter((o) => isFinalStatus(o.status));
      expect(finals).toHaveLength(1);
      expect(finals[0]?.source).not.toBe('gateway'); // decided by the venue, never "not sent"
      expect(await rest.getOrderState(id)).toHaveLength(1); // placed exactly once
    }
  }, 120_000);

  it('npm run start:connector hands SIGTERM to the app: exit 0 and no process left behind', async () => {
    await app.stop();
    const npm = AppProcess.command('npm', ['run', '--silent', 'start:connector'], {
      ...env,
      HOME: process.env['HOME'] ?? '/root',
    });
    try {
      await npm.waitForLine(READY, 60_000);
      const health = `http://127.0.0.1:${env['HTTP_PORT']}/health`;
      expect((await fetch(health)).status).toBeLessThan(600); // the app answers
      npm.signal('SIGTERM');
      expect(await npm.exited).toEqual({ code: 0, signal: null });
      await expect(fetch(health)).rejects.toThrow(); // nobody listens any more: the app itself stopped
    } finally {
      await npm.stop(); // whatever failed above, no process outlives the suite
    }
  }, 90_000);
});
