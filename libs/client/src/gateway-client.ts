/**
 * The strategy SDK's entry point: `GatewayClient.connect({ servers, account, prefix })` opens one NATS
 * connection and exposes the gateway one module per area — `prices`, `status`, `accountGroups`, `inspect`
 * (connector), `orders`, `trading` (execution), `account`, `withdrawals` (account-sync). A new area plugs in
 * the same way: a class taking the `ClientContext`, one field here (docs/strategy-guide.md).
 */
import { hostname } from 'node:os';
import { randomUUID } from 'node:crypto';
import { connect, type NatsConnection } from '@nats-io/transport-node';
import { jetstream, jetstreamManager } from '@nats-io/jetstream';
import type { Observable } from 'rxjs';
import { DEFAULT_SUBJECT_PREFIX, Subjects, SubjectTokenError, type ConnectorStatus } from '#contracts';
import { AccountApi } from './account.js';
import { AccountGroupsApi } from './account-groups.js';
import type { ClientContext } from './client-context.js';
import { ClientErrorCode, GatewayError } from './gateway-error.js';
import { InspectApi } from './inspect.js';
import { OrdersApi, type OrderRequest, type PlacedOrder, type PlaceOptions } from './orders.js';
import { PricesApi, type PriceOptions, type PriceRequest } from './prices.js';
import type { PriceUpdate } from './price-update.js';
import { StatusApi } from './status.js';
import { TradingApi } from './trading.js';
import { WithdrawalsApi } from './withdrawals.js';

export interface ConnectOptions {
  /** NATS server URL(s), e.g. `nats://127.0.0.1:4222` (comma-separated or a list). */
  servers: string | string[];
  /** The venue account the gateway serves (`ACCOUNT` of the connector). */
  account: string;
  /** Subject prefix (`NATS_SUBJECT_PREFIX`), default `gw.v1`. */
  prefix?: string;
  /** Who holds this client's price leases; default `<host>-<pid>-<random>`. */
  requester?: string;
  /** Connection name shown by the NATS server. */
  name?: string;
  /** Bound on one gateway request (ms), default 15 000 (above the connector's own 10 s venue timeouts). */
  requestTimeoutMs?: number;
  /**
   * Bound on a request that waits for the venue — withdrawal submit and cancel (ms); default 35 000 (account-sync
   * answers after the venue, `VENUE_REST_TIMEOUT_MS` 10 s, a retry included), or `requestTimeoutMs` if longer.
   */
  venueWriteTimeoutMs?: number;
  /** Bound on connecting to NATS (ms); default the NATS client's (20 000). */
  connectTimeoutMs?: number;
  /** Clock (tests). */
  now?: () => number;
}

export class GatewayClient {
  readonly prices: PricesApi;
  readonly status: StatusApi;
  readonly accountGroups: AccountGroupsApi;
  readonly inspect: InspectApi;
  readonly orders: OrdersApi;
  readonly trading: TradingApi;
  readonly account: AccountApi;
  readonly withdrawals: WithdrawalsApi;

  private constructor(readonly context: ClientContext) {
    this.orders = new OrdersApi(context);
    this.trading = new TradingApi(context);
    this.account = new AccountApi(context);
    this.withdrawals = new WithdrawalsApi(context);
    this.prices = new PricesApi(context);
    this.status = new StatusApi(context);
    this.accountGroups = new AccountGroupsApi(context);
    this.inspect = new InspectApi(context);
  }

  static async connect(options: ConnectOptions): Promise<GatewayClient> {
    let subjects: Subjects;
    try {
      subjects = new Subjects(options.prefix ?? DEFAULT_SUBJECT_PREFIX, options.account);
    } catch (error) {
      if (error instanceof SubjectTokenError) throw new GatewayError(ClientErrorCode.BadArgument, error.message);
      throw error;
    }
    const servers = [options.servers]
      .flat()
      .flatMap((s) => s.split(','))
      .map((s) => s.trim())
      .filter(Boolean);
    let nc: NatsConnection;
    try {
      nc = await connect({
        servers,
        name: options.name ?? 'gw-client',
        maxReconnectAttempts: -1,
        reconnectTimeWait: 500,
        ...(options.connectTimeoutMs !== undefined ? { timeout: options.connectTimeoutMs } : {}),
      });
    } catch (error) {
      throw new GatewayError(
        ClientErrorCode.NatsUnreachable,
        `cannot reach NATS at ${servers.map(withoutCredentials).join(', ')}: ${error instanceof Error ? error.message : String(error)}`,
        'start the stack with `npm start`, or point at a running NATS with --nats / NATS_URL',
      );
    }
    const context: ClientContext = {
      nc,
      js: jetstream(nc),
      jsm: await jetstreamManager(nc),
      subjects,
      requester: options.requester ?? `${hostname()}-${process.pid}-${randomUUID().slice(0, 8)}`,
      now: options.now ?? Date.now,
      requestTimeoutMs: options.requestTimeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS,
      venueWriteTimeoutMs: options.venueWriteTimeoutMs ?? Math.max(35_000, options.requestTimeoutMs ?? 0),
    };
    return new GatewayClient(context);
  }

  /** Shorthand of `prices.watch`: live prices of one stream, starting with the last one. */
  watchPrices(request: PriceRequest, options?: PriceOptions): Observable<PriceUpdate> {
    return this.prices.watch(request, options);
  }

  /** Shorthand of `orders.place`: await it for the outcome; `.events` for every state. */
  placeOrder(request: OrderRequest, options?: PlaceOptions): PlacedOrder {
    return this.orders.place(request, options);
  }

  /** Shorthand of `status.connector$`. */
  connectorStatus(): Observable<ConnectorStatus | undefined> {
    return this.status.connector$();
  }

  /**
   * Completes every Observable of this client (price leases released), flushes, closes the connection. Bounded: a
   * drain that cannot finish (NATS gone, the client reconnecting) gives way to a plain close after `CLOSE_DRAIN_MS`.
   */
  async close(): Promise<void> {
    const { nc } = this.context;
    if (nc.isClosed()) return;
    this.prices.completeAll();
    let timer: NodeJS.Timeout | undefined;
    const bound = new Promise<void>((resolve) => (timer = setTimeout(resolve, CLOSE_DRAIN_MS)));
    await Promise.race([nc.drain().catch(() => undefined), bound]);
    clearTimeout(timer);
    if (!nc.isClosed()) await nc.close().catch(() => undefined);
  }
}

/** A gateway request's bound when `requestTimeoutMs` is not given (ms). */
export const DEFAULT_REQUEST_TIMEOUT_MS = 15_000;

/** How long `close()` lets the connection drain before it closes it. */
const CLOSE_DRAIN_MS = 3_000;

function withoutCredentials(server: string): string {
  return server.replace(/^([a-z]+:\/\/)[^@/]*@/i, '$1');
}
