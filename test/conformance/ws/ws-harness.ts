/**
 * Starts a sandbox venue for a WebSocket conformance suite and connects test clients to it over real
 * sockets. The venue runs in the test process (for start-up speed) but is driven only over HTTP and
 * WebSocket; its trading timers are shortened through configuration where a suite says so.
 */
import { afterEach } from '@jest/globals';
import { startSandboxVenue, type RunningSandbox } from '../../../apps/sandbox-venue/src/bootstrap.js';
import type { SandboxOptions } from '../../../apps/sandbox-venue/src/config.js';
import type { TradingConfig } from '../../../apps/sandbox-venue/src/trading/trading-config.js';
import { admin, type SpecResponse } from '../spec-client.js';
import type { SpecCredentials } from '../spec-client.js';
import { WsTestClient, type ConnectOptions } from './ws-test-client.js';

/** Strict defaults for suites: fast cadence, no off-contract frames unless a suite asks for them. */
export const FAST_TRADING: Partial<TradingConfig> = {
  priceIntervalMs: 40,
  executionDelayMs: 20,
  offContractEveryNTicks: 0,
  // Suites that are not about W15 place orders back to back; limits.e2e-spec.ts runs the real spacing.
  orderSpacingMs: 0,
  // Likewise for W14: suites send bursts of requests; limits.e2e-spec.ts runs the real 30/s.
  messagesPerSecond: 10_000,
};

export interface WsVenue {
  venue: RunningSandbox;
  connect(options?: ConnectOptions & { credentials?: SpecCredentials }): Promise<WsTestClient>;
  admin(path: string, body?: unknown): Promise<SpecResponse>;
  close(): Promise<void>;
}

export async function startWsVenue(
  trading: Partial<TradingConfig> = FAST_TRADING,
  dialect: SandboxOptions['dialect'] = 'reference',
): Promise<WsVenue> {
  // REST here only fetches tokens and polls order state; the §8 REST limit has its own REST suite.
  const venue = await startSandboxVenue({ port: 0, trading, restRateLimitPerSecond: 1000, dialect });
  const clients: WsTestClient[] = [];
  return {
    venue,
    async connect(options = {}) {
      const client = await WsTestClient.connect(venue.wsUrl, {
        restBaseUrl: venue.restBaseUrl,
        credentials: options.credentials ?? venue.credentials.primary,
        ...options,
      });
      clients.push(client);
      return client;
    },
    admin: (path, body) => admin(venue.adminUrl, path, body),
    async close() {
      await Promise.all(clients.map((c) => c.close()));
      await venue.close();
    },
  };
}

/** A valid subscribe request against the primary user's Default group. */
export function subscribeRequest(venue: RunningSandbox, fields: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    messageType: 'subscribe',
    instrument: 'BTC.USD',
    quantity: '0.5',
    currency: 'BTC',
    accountGrpUuid: venue.seed.defaultGroupUuid,
    tenor: 'T',
    ...fields,
  };
}

/**
 * Streams a suite opens on a shared connection, unsubscribed after each test so price updates do not pile
 * up on the connection (and later tests do not share its cadence). Call once at a suite's top level.
 */
export function unsubscribeAfterEach(): (client: WsTestClient, subscriptionId: unknown) => void {
  const opened: Array<{ client: WsTestClient; subscriptionId: unknown }> = [];
  afterEach(() => {
    for (const { client, subscriptionId } of opened.splice(0))
      client.send({ messageType: 'unsubscribe', subscriptionId });
  });
  return (client, subscriptionId) => {
    opened.push({ client, subscriptionId });
  };
}
