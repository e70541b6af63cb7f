/**
 * Issue 7, symptom 8: a stopped or dead connector's last price must not read as live. On a clean stop every
 * stream it serves gets a last `stopped`; after a crash the last-value entries age out (PRICE_MAX_AGE_MS),
 * and so does its last status. Both streams are readable by direct get, as the contract says.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from '@jest/globals';
import { connect, type NatsConnection } from '@nats-io/transport-node';
import { jetstreamManager, type JetStreamManager } from '@nats-io/jetstream';
import { StreamName, type ConnectorStatus, type PriceMessage } from '#contracts';
import { eventually, startNatsServer, type NatsServerHandle } from '#testing';
import type { RunningSandbox } from '../../apps/sandbox-venue/src/bootstrap.js';
import { startE2eVenue } from '../kit/e2e-venue.js';
import type { AppProcess } from '../kit/app-process.js';
import { startConnectorProcess } from './connector-process.js';
import { ACCOUNT, askForStream, nextPrice, streamRequest, subjects } from './connector-stack.js';

describe('last-value prices and status after the connector stops or dies', () => {
  let nats: NatsServerHandle;
  let venue: RunningSandbox;
  let strategy: NatsConnection;
  let jsm: JetStreamManager;

  beforeAll(async () => {
    nats = await startNatsServer();
    venue = await startE2eVenue({ trading: { priceIntervalMs: 50, offContractEveryNTicks: 0 } });
    strategy = await connect({ servers: nats.url });
    jsm = await jetstreamManager(strategy);
  });

  // a step that failed half-way must not leave its connector publishing into the retry (it kept the dead quote live)
  const started: AppProcess[] = [];
  afterEach(async () => {
    for (const app of started.splice(0)) await app.stop();
  });

  afterAll(async () => {
    await strategy?.close();
    await venue?.close();
    await nats?.stop();
  });

  const startConnector = (overrides: Record<string, string>) => startConnectorProcess(nats, venue, started, overrides);

  /** A live price on a fresh stream; returns its subject. */
  async function livePrice(requester: string): Promise<string> {
    const reply = await askForStream(strategy, streamRequest(venue, requester, { leaseSeconds: 600 }));
    if (!reply.ok) throw new Error(`stream refused: ${reply.error.code}`);
    await nextPrice(strategy, reply.subject, (p) => p.status === 'live');
    return reply.subject;
  }

  /** What a late joiner reads: the last message of a subject, by direct get (null once aged out). */
  async function lastValue<T>(stream: string, subject: string): Promise<T | null> {
    const stored = await jsm.direct.getMessage(stream, { last_by_subj: subject });
    return stored === null ? null : stored.json<T>();
  }

  it('on a clean stop, publishes stopped for every stream it served, and its status says so', async () => {
    // The status stream keeps the last status 3 intervals (at least 1 s): with the stack's 300 ms interval the
    // stopped status aged out before it was read whenever the process took over a second to exit on a loaded
    // machine (the read got undefined). This test reads what the stop left, the next one proves the ageing.
    const app = await startConnector({ STATUS_INTERVAL_MS: '60000' });
    const subject = await livePrice('clean-stop');
    expect((await lastValue<PriceMessage>(StreamName.prices(ACCOUNT), subject))?.status).toBe('live');

    app.signal('SIGTERM');
    expect((await app.exited).code).toBe(0);
    const last = await lastValue<PriceMessage>(StreamName.prices(ACCOUNT), subject);
    expect(last).toMatchObject({ status: 'stopped', code: 'CONNECTOR_STOPPED' });
    expect(last?.bid).toBeUndefined();
    const status = await lastValue<ConnectorStatus>(StreamName.connectorStatus(ACCOUNT), subjects.connectorStatus);
    expect(status?.sessionState).toBe('stopped');
  });

  it('after a crash, the dead quote and the last status age out instead of staying live', async () => {
    const app = await startConnector({ PRICE_MAX_AGE_MS: '1500', STATUS_INTERVAL_MS: '300' });
    const subject = await livePrice('crash');
    app.signal('SIGKILL');
    await app.exited;
    expect((await lastValue<PriceMessage>(StreamName.prices(ACCOUNT), subject))?.status).toBe('live');
    await eventually(async () => ((await lastValue(StreamName.prices(ACCOUNT), subject)) === null ? true : undefined), {
      what: 'the dead quote to age out',
      timeoutMs: 15_000,
    });
    await eventually(
      async () =>
        (await lastValue(StreamName.connectorStatus(ACCOUNT), subjects.connectorStatus)) === null ? true : undefined,
      { what: 'the dead connector status to age out', timeoutMs: 20_000 },
    );
  });
});
