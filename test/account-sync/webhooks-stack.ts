/**
 * The account-sync app on real sockets for the webhook and withdrawal scenarios: its own nats-server, the
 * sandbox venue (posting real webhooks to the app's receiver), and the app in-process (or as a child process
 * for crash tests). The test talks to it with a plain NATS client and the sandbox's admin API.
 */
import { rm } from 'node:fs/promises';
import { connect, type NatsConnection } from '@nats-io/transport-node';
import { jetstreamManager, type JetStreamManager } from '@nats-io/jetstream';
import { Kvm } from '@nats-io/kv';
import {
  StreamName,
  TransactionSubjects,
  WithdrawalSubjects,
  type TransactionStateChanged,
  type WithdrawalStateChanged,
} from '#contracts';
import { AccountLedgerName } from '#bus';
import { JsonLogger, loadConfig } from '#observability';
import { eventually, freePort, restartNatsServer, startNatsServer, type NatsServerHandle } from '#testing';
import type { RunningSandbox } from '../../apps/sandbox-venue/src/bootstrap.js';
import type { SandboxOptions } from '../../apps/sandbox-venue/src/config.js';
import { SeedIds } from '../../apps/sandbox-venue/src/domain/seed.js';
import { startAccountSync, type RunningAccountSync } from '../../apps/account-sync/src/bootstrap.js';
import { AccountSyncConfig } from '../../apps/account-sync/src/config.js';
import { sendMarkKey } from '../../apps/account-sync/src/withdrawals/withdrawal-desk.js';
import { startE2eVenue } from '../kit/e2e-venue.js';

process.env['LOG_LEVEL'] ??= process.env['E2E_LOG_LEVEL'] ?? 'error';

export const ACCOUNT = 'acct1';
export const transactionSubjects = new TransactionSubjects('gw.v1', ACCOUNT);
export const withdrawalSubjects = new WithdrawalSubjects('gw.v1', ACCOUNT);
const quiet = new JsonLogger('account-sync', 'e2e', (process.env['E2E_LOG_LEVEL'] as 'debug' | undefined) ?? 'error');

export interface AccountSyncStack {
  nats: NatsServerHandle;
  venue: RunningSandbox;
  app: RunningAccountSync | undefined;
  client: NatsConnection;
  jsm: JetStreamManager;
  env: Record<string, string>;
  webhookUrl: string;
  startApp(): Promise<RunningAccountSync>;
  stopApp(): Promise<void>;
  /** Kills nats-server and starts it on the same port: the same store, or with `emptyStore` a new, empty one. */
  restartNats(options?: { emptyStore?: boolean }): Promise<void>;
  stop(): Promise<void>;
}

export async function startAccountSyncStack(
  options: { venue?: SandboxOptions; env?: Record<string, string>; startApp?: boolean } = {},
): Promise<AccountSyncStack> {
  let nats = await startNatsServer();
  let keptStore: string | undefined;
  const webhookPort = await freePort();
  const webhookUrl = `http://127.0.0.1:${webhookPort}/webhooks/venue`;
  const venue = await startE2eVenue({
    webhookUrl,
    webhookMinIntervalMs: 0,
    webhookBackoffScale: 0.002,
    ...options.venue,
  });
  const env: Record<string, string> = {
    HTTP_PORT: '0',
    HTTP_HOST: '127.0.0.1',
    NATS_URL: nats.url,
    ACCOUNT,
    VENUE_REST_URL: venue.restBaseUrl,
    VENUE_API_KEY: venue.credentials.primary.apiKey,
    VENUE_API_SECRET: venue.credentials.primary.apiSecret,
    VENUE_WEBHOOK_IPS_URL: venue.ipsUrl,
    WEBHOOK_PORT: String(webhookPort),
    WEBHOOK_HOST: '127.0.0.1',
    WEBHOOK_IPS_REFRESH_MS: '1000',
    WITHDRAWAL_POLL_MS: '200',
    WITHDRAWAL_UNKNOWN_SETTLE_MS: '1000',
    // the REST sync reads on its schedule rarely here (a suite overrides it): what is stored comes from webhooks
    SYNC_FAST_INTERVAL_MS: '3600000',
    SYNC_SLOW_INTERVAL_MS: '3600000',
    DEFAULT_METRICS: 'false',
    ...options.env,
  };
  const client = await connect({ servers: nats.url, name: 'e2e-consumer' });
  const jsm = await jetstreamManager(client);
  const stack: AccountSyncStack = {
    get nats() {
      return nats;
    },
    venue,
    app: undefined,
    client,
    jsm,
    env,
    webhookUrl,
    async startApp() {
      stack.app = await startAccountSync(loadConfig(AccountSyncConfig, env), { logger: quiet });
      return stack.app;
    },
    async stopApp() {
      await stack.app?.close();
      stack.app = undefined;
    },
    async restartNats(options = {}) {
      const { storeDir } = nats;
      nats = await restartNatsServer(nats, options);
      if (nats.storeDir === storeDir) keptStore = storeDir;
      // the test's own client reconnects on its own schedule: a request sent before that is lost (a quiet machine
      // starts the app faster than the client's reconnect wait)
      await eventually(async () => ((await client.rtt().catch(() => undefined)) === undefined ? undefined : true), {
        what: "the test's NATS client reconnected",
      });
    },
    async stop() {
      await stack.stopApp();
      await client.close();
      await venue.close();
      await nats.stop();
      if (keptStore !== undefined) await rm(keptStore, { recursive: true, force: true });
    },
  };
  if (options.startApp ?? true) await stack.startApp();
  return stack;
}

/** POST to the sandbox's operator API. */
export async function admin<T = unknown>(venue: RunningSandbox, path: string, body: unknown = {}): Promise<T> {
  const response = await fetch(`${venue.adminUrl}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  if (!response.ok) throw new Error(`admin ${path}: HTTP ${response.status} ${await response.text()}`);
  const text = await response.text();
  return (text === '' ? undefined : JSON.parse(text)) as T;
}

/** Books an OTC buy of 0.5 BTC at 60000.00 in the default group at the sandbox: its USD moves by −30000.00. */
export function bookOtcBuy(venue: RunningSandbox, clientRef: string): Promise<{ tradeUuid: string }> {
  return admin<{ tradeUuid: string }>(venue, '/trades/otc', {
    accountGroupUuid: SeedIds.defaultGroup,
    instrument: 'BTC.USD',
    side: 'BUY',
    baseAmount: '0.5',
    quoteAmount: '30000.00',
    price: '60000.00',
    clientRef,
  });
}

/** Books `count` desk trades of 0.001 BTC in the sub group in one admin call: each pending settlement, two PENDING legs. */
export function bookOtcBuys(venue: RunningSandbox, count: number): Promise<{ booked: number }> {
  return admin<{ booked: number }>(venue, '/trades/otc-bulk', {
    count,
    accountGroupUuid: SeedIds.subGroup,
    instrument: 'BTC.USD',
    side: 'BUY',
    baseAmount: '0.001',
    quoteAmount: '60.00',
    price: '60000.00',
  });
}

/**
 * For the REST sync suites: the venue posts no webhooks (only the sync's own reads and triggers move the mirror),
 * and the connector's order outcome stream exists, as the connector declares it (the app attaches its own durable
 * consumer to it).
 */
export async function syncAlone(stack: AccountSyncStack): Promise<void> {
  await admin(stack.venue, '/webhooks/url', { url: null });
  await stack.jsm.streams.add({
    name: StreamName.orderOutcomes(ACCOUNT),
    subjects: [`gw.v1.${ACCOUNT}.order.outcome.>`],
  });
}

/** /health answers 200: every resource read once (the first full sync). */
export async function appHealthy(stack: AccountSyncStack): Promise<boolean> {
  return (await fetch(`${stack.app?.httpUrl}/health`)).status === 200;
}

/** Every message on a stream's subjects matching `subject` (read by sequence: what a consumer would get). */
export async function streamMessages<T>(jsm: JetStreamManager, stream: string, subject: string): Promise<T[]> {
  const info = await jsm.streams.info(stream);
  const found: T[] = [];
  if (info.state.messages === 0) return found;
  for (let seq = info.state.first_seq; seq <= info.state.last_seq; seq += 1) {
    // A sequence removed from the stream is "no message found"; any other error (a cluster electing a leader,
    // a timeout) is thrown, so a caller retrying with `eventually` never takes a message it could not read as absent.
    const message = await jsm.streams.getMessage(stream, { seq }).catch((error: unknown) => {
      if (error instanceof Error && /no message found/i.test(error.message)) return null;
      throw error;
    });
    if (message !== null && message.subject === subject) found.push(message.json<T>());
  }
  return found;
}

export function transactionEvents(stack: AccountSyncStack, uuid: string): Promise<TransactionStateChanged[]> {
  return streamMessages(stack.jsm, AccountLedgerName.transactions(ACCOUNT), transactionSubjects.changed(uuid));
}

/** A submit's body for the seeded group: USD to its usable bank account (fiat), or BTC to its usable wallet (crypto). */
export function seededWithdrawal(
  stack: AccountSyncStack,
  kind: 'fiat' | 'crypto',
  idempotencyKey: string,
  amount: string,
): Record<string, unknown> {
  const { seed } = stack.venue;
  const common = { idempotencyKey, kind, accountGroupUuid: seed.defaultGroupUuid, amount };
  return kind === 'fiat'
    ? { ...common, ccy: 'USD', bankAccountUuid: seed.bankUsdOk }
    : { ...common, ccy: 'BTC', walletUuid: seed.walletBtcOk };
}

/** Whether the withdrawal's send mark (`sent.{requestId}`) is in the requests' bucket. */
export async function sendMarkHeld(stack: AccountSyncStack, requestId: string): Promise<boolean> {
  const kv = await new Kvm(stack.client).open(AccountLedgerName.withdrawalRequests(ACCOUNT));
  const entry = await kv.get(sendMarkKey(requestId));
  return entry !== null && entry.operation === 'PUT';
}

export function withdrawalEvents(stack: AccountSyncStack, requestId: string): Promise<WithdrawalStateChanged[]> {
  return streamMessages(stack.jsm, AccountLedgerName.withdrawalEvents(ACCOUNT), withdrawalSubjects.changed(requestId));
}

export async function request<T>(stack: AccountSyncStack, subject: string, body: unknown): Promise<T> {
  const reply = await stack.client.request(subject, JSON.stringify(body), { timeout: 20_000 });
  return reply.json<T>();
}

/** A counter's value from the app's /metrics (0 when absent). */
export async function metricValue(
  stack: AccountSyncStack,
  name: string,
  labels: Record<string, string> = {},
): Promise<number> {
  if (stack.app === undefined) return 0;
  const text = await (await fetch(`${stack.app.httpUrl}/metrics`)).text();
  const wanted = Object.entries(labels).map(([key, value]) => `${key}="${value}"`);
  for (const line of text.split('\n')) {
    if (!line.startsWith(`${name}{`) && !line.startsWith(`${name} `)) continue;
    if (wanted.every((pair) => line.includes(pair))) return Number(line.slice(line.lastIndexOf(' ') + 1));
  }
  return 0;
}
