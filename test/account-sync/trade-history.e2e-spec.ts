/**
 * Issue 9: the whole trade history (100 000 trades, seeded in one admin call) synced within the REST budget
 * with zero 429s at the venue (the sandbox's own counters), every trade mirrored once. The app runs from
 * `dist/` as its own process (the sandbox stays in the test process), then stops on SIGTERM with exit 0.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { connect, type NatsConnection } from '@nats-io/transport-node';
import { jetstreamManager } from '@nats-io/jetstream';
import { AccountStateName } from '#bus';
import { freePort, startNatsServer, waitFor, type NatsServerHandle } from '#testing';
import type { RunningSandbox } from '../../apps/sandbox-venue/src/bootstrap.js';
import { AppProcess } from '../kit/app-process.js';
import { startE2eVenue } from '../kit/e2e-venue.js';
import { admin, bookOtcBuys } from './webhooks-stack.js';
import { connectorEnv } from '../connector/connector-stack.js';

const TRADES = 100_000;
const ACCOUNT = 'acct-history';
let nats: NatsServerHandle;
let venue: RunningSandbox;
let client: NatsConnection;
let app: AppProcess | undefined;
/** The connector of the same gateway, with its own share of the budget (4 requests/s), on the same address. */
let connector: AppProcess | undefined;
let attempts = 0;

function counterSum(metrics: string, name: string, label: string): number {
  return metrics
    .split('\n')
    .filter((line) => line.startsWith(`${name}{`) && line.includes(label))
    .reduce((sum, line) => sum + Number(line.slice(line.lastIndexOf(' ') + 1)), 0);
}

beforeAll(async () => {
  nats = await startNatsServer();
  venue = await startE2eVenue();
  client = await connect({ servers: nats.url, name: 'e2e-trade-history' });
}, 60_000);

afterAll(async () => {
  await app?.stop();
  await connector?.stop();
  await client?.close();
  await venue?.close();
  await nats?.stop();
});

describe('trade history', () => {
  it('the sandbox seeds N desk trades in one admin call, and refuses a bad count', async () => {
    const seeded = await bookOtcBuys(venue, TRADES);
    expect(seeded).toEqual({ booked: TRADES });
    await expect(admin(venue, '/trades/otc-bulk', { count: 0 })).rejects.toThrow(/400/);
  }, 120_000);

  it('100 000 trades synced with zero 429s at the venue, at the default budget of 20 requests/s, beside a connector', async () => {
    // A retry (test/kit/retry-once.ts) starts afresh: the earlier attempt's apps stopped, a new account and stream.
    await app?.stop();
    await connector?.stop();
    const account = `${ACCOUNT}-${(attempts += 1)}`;
    connector = AppProcess.start('connector', {
      ...connectorEnv(nats, venue, { HTTP_PORT: String(await freePort()), LOG_LEVEL: 'info' }),
    });
    await connector.waitForLine('connector started', 60_000);
    const httpPort = await freePort();
    app = AppProcess.start('account-sync', {
      HTTP_PORT: String(httpPort),
      HTTP_HOST: '127.0.0.1',
      WEBHOOK_PORT: String(await freePort()),
      WEBHOOK_HOST: '127.0.0.1',
      LOG_LEVEL: 'warn',
      NATS_URL: nats.url,
      ACCOUNT: account,
      VENUE_REST_URL: venue.restBaseUrl,
      VENUE_API_KEY: venue.credentials.primary.apiKey,
      VENUE_API_SECRET: venue.credentials.primary.apiSecret,
      VENUE_WEBHOOK_IPS_URL: venue.ipsUrl,
      SYNC_FAST_INTERVAL_MS: '600000',
      SYNC_SLOW_INTERVAL_MS: '600000',
      DEFAULT_METRICS: 'false',
    });
    const jsm = await jetstreamManager(client);
    const held = () =>
      jsm.streams
        .info(AccountStateName.historyEvents(account))
        .then((info) => info.state.messages)
        .catch(() => 0); // the stream does not exist until the app created it
    let exited: unknown;
    const progress: string[] = [];
    void app.exited.then((exit) => (exited = exit));
    await waitFor(
      async () => {
        if (exited !== undefined)
          throw new Error(`app exited ${JSON.stringify(exited)}: ${app?.lines.slice(-5).join('\n')}`);
        const stored = await held();
        progress.push(`${new Date().toISOString()} ${stored}`);
        return stored >= TRADES;
      },
      `${TRADES} trade.created events stored`,
      240_000,
    ).catch(async (error: unknown) => {
      // what the app did meanwhile: how the count moved, its last log lines and its sync counters
      const metrics = await fetch(`http://127.0.0.1:${httpPort}/metrics`)
        .then((r) => r.text())
        .catch((e: unknown) => `metrics unreadable: ${String(e)}`);
      const counters = metrics
        .split('\n')
        .filter((line) => /^(account_sync_(sync|changes)|venue_rest_calls)/.test(line));
      const moved = progress.filter((_, i) => i % 20 === 0 || i === progress.length - 1);
      throw new Error(
        [String(error), `stored: ${moved.join(', ')}`, ...(app?.lines.slice(-10) ?? []), ...counters].join('\n'),
      );
    });
    const venueMetrics = await (await fetch(`${venue.restBaseUrl}/metrics`)).text();
    expect(counterSum(venueMetrics, 'sandbox_rest_requests_total', 'status="429"')).toBe(0);
    const appMetrics = await (await fetch(`http://127.0.0.1:${httpPort}/metrics`)).text();
    expect(counterSum(appMetrics, 'venue_rest_calls_total', 'status="429"')).toBe(0);
    expect(counterSum(appMetrics, 'account_sync_changes_total', 'resource="trades"')).toBe(TRADES);
    app.signal('SIGTERM'); // mid-way through the transaction history: the read stops between pages
    const exit = await app.exited;
    expect({ exit, log: exit.code === 0 ? [] : app.lines.slice(-10) }).toEqual({
      exit: { code: 0, signal: null },
      log: [],
    });
  }, 540_000);
});
