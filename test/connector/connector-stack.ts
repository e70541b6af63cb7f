/**
 * A whole connector on real sockets for the end-to-end scenarios: its own nats-server, the sandbox venue,
 * and the connector app started in-process. Strategies in these tests use only a plain NATS client.
 */
import { connect, type NatsConnection } from '@nats-io/transport-node';
import { jetstream, jetstreamManager, type JetStreamClient, type JetStreamManager } from '@nats-io/jetstream';
import { Subjects, StreamName, type OrderOutcome, type PriceMessage, type StreamReply } from '#contracts';
import { JsonLogger, loadConfig } from '#observability';
import { startStack, type NatsServerHandle, type RestartNatsOptions } from '#testing';
import type { RunningSandbox } from '../../apps/sandbox-venue/src/bootstrap.js';
import { startE2eVenue } from '../kit/e2e-venue.js';
import type { SandboxOptions } from '../../apps/sandbox-venue/src/config.js';
import { startConnector, type RunningConnector } from '../../apps/connector/src/bootstrap.js';
import { ConnectorConfig } from '../../apps/connector/src/config.js';

// The app's own loggers read LOG_LEVEL when created: keep test output to warnings unless asked.
process.env['LOG_LEVEL'] ??= process.env['E2E_LOG_LEVEL'] ?? 'error';

export const ACCOUNT = 'acct1';
export const subjects = new Subjects('gw.v1', ACCOUNT);
const quiet = new JsonLogger('connector', 'e2e', (process.env['E2E_LOG_LEVEL'] as 'debug' | undefined) ?? 'error');

export interface ConnectorStack {
  nats: NatsServerHandle;
  venue: RunningSandbox;
  connector: RunningConnector;
  strategy: NatsConnection;
  js: JetStreamClient;
  jsm: JetStreamManager;
  env: Record<string, string>;
  /** Stops the connector and starts it again (same environment); `whileDown` runs while it is stopped. */
  restartConnector(whileDown?: () => Promise<void>): Promise<void>;
  /**
   * Kills nats-server and starts it again on the same port and store (file streams survive, memory ones not),
   * or with `emptyStore` on a new, empty one (everything lost).
   */
  restartNats(whileDown?: () => Promise<void>, options?: RestartNatsOptions): Promise<void>;
  stop(): Promise<void>;
}

/** The connector's environment for a test stack: short timers, quiet logs, the sandbox's primary account. */
export function connectorEnv(
  nats: NatsServerHandle,
  venue: RunningSandbox,
  overrides: Record<string, string> = {},
): Record<string, string> {
  return {
    HTTP_PORT: '0',
    HTTP_HOST: '127.0.0.1',
    NATS_URL: nats.url,
    ACCOUNT,
    VENUE_REST_URL: venue.restBaseUrl,
    VENUE_WS_URL: venue.wsUrl,
    VENUE_API_KEY: venue.credentials.primary.apiKey,
    VENUE_API_SECRET: venue.credentials.primary.apiSecret,
    VENUE_SESSION_ID: 'e2e-session-1',
    VENUE_RECONNECT_INITIAL_MS: '50',
    VENUE_RECONNECT_MAX_MS: '400',
    VENUE_STALL_TIMEOUT_MS: '5000',
    PRICE_STALE_AFTER_MS: '1000',
    STATUS_INTERVAL_MS: '300',
    ORDER_COMMAND_ACK_WAIT_MS: '5000',
    VENUE_REDELIVERY_GRACE_MS: '300',
    DEFAULT_METRICS: 'false',
    ...overrides,
  };
}

export async function startConnectorStack(
  options: { venue?: SandboxOptions; env?: Record<string, string> } = {},
): Promise<ConnectorStack> {
  let env: Record<string, string> = {};
  const stack = await startStack({
    venue: () =>
      startE2eVenue({
        ...options.venue,
        trading: { priceIntervalMs: 100, offContractEveryNTicks: 0, ...options.venue?.trading },
      }),
    apps: {
      connector: ({ nats, venue }) => {
        env = connectorEnv(nats, venue, options.env);
        return startConnector(loadConfig(ConnectorConfig, env), { logger: quiet });
      },
    },
  });
  const strategy = await connect({
    servers: stack.nats.url,
    name: 'e2e-strategy',
    maxReconnectAttempts: -1,
    reconnectTimeWait: 100,
  });
  const connectorStack: ConnectorStack = {
    get nats() {
      return stack.nats;
    },
    venue: stack.venue,
    connector: stack.apps.connector,
    strategy,
    js: jetstream(strategy),
    jsm: await jetstreamManager(strategy),
    env,
    async restartConnector(whileDown) {
      connectorStack.connector = await stack.restart('connector', whileDown);
    },
    restartNats: (whileDown, options) => stack.restartNats(whileDown, options),
    async stop() {
      await strategy.close();
      await stack.stop();
    },
  };
  return connectorStack;
}

export function streamRequest(venue: RunningSandbox, requester: string, overrides: Record<string, unknown> = {}) {
  return {
    instrument: 'BTC.USD',
    quantity: '0.5',
    currency: 'BTC',
    tenor: 'T',
    accountGroup: venue.seed.defaultGroupUuid,
    requester,
    ...overrides,
  };
}

export async function askForStream(strategy: NatsConnection, request: Record<string, unknown>): Promise<StreamReply> {
  const reply = await strategy.request(subjects.streamSubscribe, JSON.stringify(request), { timeout: 10_000 });
  return reply.json<StreamReply>();
}

/** The next price on `subject` matching `accept`, within `timeoutMs`. */
export async function nextPrice(
  strategy: NatsConnection,
  subject: string,
  accept: (price: PriceMessage) => boolean = () => true,
  timeoutMs = 10_000,
): Promise<PriceMessage> {
  const sub = strategy.subscribe(subject);
  const timer = setTimeout(() => sub.unsubscribe(), timeoutMs);
  try {
    for await (const msg of sub) {
      const price = msg.json<PriceMessage>();
      if (accept(price)) return price;
    }
  } finally {
    clearTimeout(timer);
    sub.unsubscribe();
  }
  throw new Error(`no matching price on ${subject} within ${timeoutMs} ms`);
}

/** Every outcome stored for `clientRequestId`, in stream order. */
export async function storedOutcomes(jsm: JetStreamManager, clientRequestId: string): Promise<OrderOutcome[]> {
  const stream = StreamName.orderOutcomes(ACCOUNT);
  const subject = subjects.orderOutcome(clientRequestId);
  const info = await jsm.streams.info(stream, { subjects_filter: subject });
  const found: OrderOutcome[] = [];
  for (let seq = info.state.first_seq; seq <= info.state.last_seq && seq > 0; seq += 1) {
    const stored = await jsm.streams.getMessage(stream, { seq }).catch(() => null);
    if (stored?.subject === subject) found.push(stored.json<OrderOutcome>());
  }
  return found;
}

export async function adminPost(venue: RunningSandbox, path: string, body: unknown = {}): Promise<unknown> {
  const res = await fetch(`${venue.adminUrl}/${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  if (!res.ok) throw new Error(`admin ${path}: ${res.status} ${await res.text()}`);
  return res.json();
}

/** One series' value from a Prometheus text page, matched by name and label pairs in any order. */
export async function metricValue(
  url: string,
  name: string,
  labels: Record<string, string> = {},
): Promise<number | undefined> {
  const text = await (await fetch(`${url}/metrics`)).text();
  const pairs = Object.entries(labels).map(([k, v]) => `${k}="${v}"`);
  const line = text
    .split('\n')
    .find((l) => (l.startsWith(`${name}{`) || l.startsWith(`${name} `)) && pairs.every((p) => l.includes(p)));
  return line === undefined ? undefined : Number(line.slice(line.lastIndexOf(' ') + 1));
}

export { waitFor } from '#testing';

/** Sum of every series of one metric (all label sets, or those with every label of `labels`). */
export async function metricSum(url: string, name: string, labels: Record<string, string> = {}): Promise<number> {
  const text = await (await fetch(`${url}/metrics`)).text();
  const pairs = Object.entries(labels).map(([k, v]) => `${k}="${v}"`);
  return text
    .split('\n')
    .filter((l) => (l.startsWith(`${name}{`) || l.startsWith(`${name} `)) && pairs.every((p) => l.includes(p)))
    .reduce((sum, l) => sum + Number(l.slice(l.lastIndexOf(' ') + 1)), 0);
}

/** Distinct live quotes of one stream (each quote executes once, W20), asked for as `requester`. */
export async function liveQuotes(
  strategy: NatsConnection,
  venue: RunningSandbox,
  requester: string,
  count: number,
): Promise<string[]> {
  const reply = await askForStream(strategy, streamRequest(venue, requester, { leaseSeconds: 600 }));
  if (!reply.ok) throw new Error(`stream refused: ${JSON.stringify(reply)}`);
  const found = new Set<string>();
  const prices = strategy.subscribe(reply.subject);
  for await (const msg of prices) {
    const price = msg.json<PriceMessage>();
    if (price.status === 'live' && price.quoteId !== undefined) found.add(price.quoteId);
    if (found.size >= count) break;
  }
  prices.unsubscribe();
  return [...found];
}

/** Publishes an order command the way the execution app does: JetStream, `Nats-Msg-Id` = the given id. */
export async function sendOrderCommand(stack: ConnectorStack, body: unknown, msgID: string): Promise<void> {
  await stack.js.publish(subjects.orderCommand, JSON.stringify(body), { msgID });
}
