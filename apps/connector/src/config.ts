/**
 * The connector's environment, validated once at start-up by `loadConfig` (every bad variable is listed by
 * name, never with its value). Nothing else in the connector reads `process.env`. Documented in
 * docs/connector.md.
 */
import { IsOptional, ValidateBy } from 'class-validator';
import { withNatsEnv } from '#bus';
import {
  EnvInt,
  EnvMs,
  EnvRequired,
  EnvText,
  EnvUrl,
  ServiceEnv,
  type CrossChecked,
  type CrossRule,
} from '#observability';
import { isValidIdentifier, withVenueAntiReplayEnv, withVenueCredentialsEnv } from '#venue-api';
import { CONTESTED_WINDOW_MS } from './venue/session/session-machine.js';
import type { VenueOptions } from './venue/venue-options.js';

const DAY_MS = 24 * 3_600_000;
const TOKEN_PATH = /^[A-Za-z0-9_]+(\.[A-Za-z0-9_]+)*$/;

export class ConnectorConfig
  extends withVenueAntiReplayEnv(withVenueCredentialsEnv(withNatsEnv(ServiceEnv)))
  implements CrossChecked
{
  // Shared variables (HTTP, logs, NATS, venue credentials, anti-replay, DEFAULT_METRICS): ServiceEnv and its mixins.
  override HTTP_PORT: number = 3001;

  // ---- NATS (status, order streams)
  @EnvMs(100, 3_600_000) STATUS_INTERVAL_MS: number = 5_000;
  /** The server redelivers an order command not acknowledged within this (the KV mark keeps it unsent). */
  @EnvMs(1_000, 3_600_000) ORDER_COMMAND_ACK_WAIT_MS: number = 30_000;
  /** JetStream duplicate window of the outcome stream (the KV mark deduplicates beyond it). */
  @EnvInt(1_000, 7 * DAY_MS) ORDER_OUTCOME_DUPLICATE_WINDOW_MS: number = 3_600_000;
  /** How long outcomes and order marks are kept; at least the duplicate window (cross-checked). */
  @EnvInt(60_000, 365 * DAY_MS) ORDER_RETENTION_MS: number = 30 * DAY_MS;

  // ---- Venue
  @EnvRequired() @EnvUrl({ schemes: ['ws', 'wss'] }) VENUE_WS_URL!: string;
  /** Stable per account: outcomes are redelivered on it after a reconnect. */
  // The venue refuses a connection whose sessionId breaks §4.2's rules: caught here, not as an endless reconnect.
  @ValidateBy({
    name: 'isVenueIdentifier',
    validator: {
      validate: (value: unknown) => isValidIdentifier(value),
      defaultMessage: () => "VENUE_SESSION_ID must be 1-64 characters without '/', whitespace or control characters",
    },
  })
  VENUE_SESSION_ID!: string;
  /** Where the token is in the token response (`token`, `data.token`, …); unset: every plausible shape. */
  @IsOptional()
  @EnvText({ max: 128, pattern: TOKEN_PATH, describe: 'a dot-separated field path such as data.token' })
  VENUE_TOKEN_PATH?: string;
  @EnvMs(100, 600_000) PRICE_STALE_AFTER_MS: number = 5_000;
  /** A venue price stamped more than this ahead of the local clock is refused (it would freeze its stream). */
  @EnvMs(1_000, 3_600_000) PRICE_MAX_CLOCK_AHEAD_MS: number = 60_000;
  /**
   * W13: the venue's "at most 4 updates per second per connection", told (e.g. 4): a stream is then stale only after
   * twice its turn (streams ÷ rate seconds). Unset: judged from the updates the connection carries (price-cadence.ts).
   */
  @EnvInt(1, 1_000) VENUE_PRICE_UPDATES_PER_CONNECTION?: number;
  /** Last-value price entries age out after this; at most a quote's life (§2.2 rule 4: 10 minutes). */
  @EnvMs(1_000, 600_000) PRICE_MAX_AGE_MS: number = 600_000;
  @EnvMs(100, 600_000) VENUE_STALL_TIMEOUT_MS: number = 15_000;
  @EnvMs(1, 600_000) VENUE_RECONNECT_INITIAL_MS: number = 250;
  @EnvMs(1, 600_000) VENUE_RECONNECT_MAX_MS: number = 30_000;
  @EnvMs(1_000, DAY_MS) VENUE_CONNECTION_MAX_AGE_MS: number = 3_600_000;
  @EnvMs(100, 600_000) ORDER_REPLY_TIMEOUT_MS: number = 10_000;
  // optional venue tuning; unset = the venue side's defaults
  @EnvMs(10, 600_000) VENUE_SUBSCRIBE_TIMEOUT_MS?: number;
  /** Price streams held at most (a new one beyond is refused STREAM_LIMIT). */
  @EnvInt(1, 100_000) VENUE_MAX_STREAMS?: number;
  @EnvMs(10, 600_000) VENUE_ACCOUNT_GROUPS_TIMEOUT_MS?: number;
  @EnvMs(10, 600_000) VENUE_ORDER_SEND_TIMEOUT_MS?: number;
  /** Least gap between two order frames (§8: 1 per 250 ms per account); unset: 300 (50 ms for jitter). */
  @EnvMs(250, 10_000) VENUE_ORDER_INTERVAL_MS?: number;
  /** Ceiling of the order gap, which widens after ORDER_RATE_LIMITED refusals (spec-gaps K1); unset: 1000. */
  @EnvMs(250, 10_000) VENUE_ORDER_INTERVAL_MAX_MS?: number;
  /**
   * The venue's own order interval (§8: 1 per 250 ms per account), counted from its first answer to the previous
   * order: no order leaves sooner after that answer (spec-gaps K1); unset: 250.
   */
  @EnvMs(250, 10_000) VENUE_ORDER_PACE_MS?: number;
  @EnvMs(0, 600_000) VENUE_REDELIVERY_GRACE_MS?: number;
  @EnvMs(10, 600_000) VENUE_DRAIN_TIMEOUT_MS?: number;
  @EnvMs(10, 600_000) VENUE_REST_TIMEOUT_MS?: number;
  /** This process's share of the venue's 30 REST requests/s per IP; the sum over the gateway stays ≤ 30. */
  @EnvInt(1, 30) VENUE_REST_REQUESTS_PER_SECOND: number = 4;
  /** Client-side socket budget (the venue allows 30/s per account); raise only against a sandbox or bench source. */
  @EnvInt(1, 100_000) VENUE_MESSAGES_PER_SECOND?: number;
  /** /health tolerates a venue session that is not open this long (from when it was last open) before reporting down. */
  @EnvMs(0, 3_600_000) SESSION_HEALTH_GRACE_MS: number = 30_000;
  /** Two replacements of the venue session (SESSION_REPLACED) within this window: contested, /health down. */
  @EnvMs(1_000, 86_400_000) SESSION_CONTESTED_WINDOW_MS: number = CONTESTED_WINDOW_MS;

  crossChecks(): CrossRule<this>[] {
    return [
      (c) =>
        c.ORDER_RETENTION_MS < c.ORDER_OUTCOME_DUPLICATE_WINDOW_MS
          ? 'ORDER_RETENTION_MS must be at least ORDER_OUTCOME_DUPLICATE_WINDOW_MS (JetStream refuses a duplicate window longer than the retention)'
          : undefined,
      (c) =>
        c.VENUE_RECONNECT_INITIAL_MS > c.VENUE_RECONNECT_MAX_MS
          ? 'VENUE_RECONNECT_INITIAL_MS must not exceed VENUE_RECONNECT_MAX_MS'
          : undefined,
      (c) =>
        c.PRICE_STALE_AFTER_MS >= c.PRICE_MAX_AGE_MS
          ? 'PRICE_STALE_AFTER_MS must be below PRICE_MAX_AGE_MS (a stream turns stale before its last price ages out)'
          : undefined,
      (c) =>
        c.VENUE_ORDER_INTERVAL_MS !== undefined &&
        c.VENUE_ORDER_INTERVAL_MAX_MS !== undefined &&
        c.VENUE_ORDER_INTERVAL_MS > c.VENUE_ORDER_INTERVAL_MAX_MS
          ? 'VENUE_ORDER_INTERVAL_MS must not exceed VENUE_ORDER_INTERVAL_MAX_MS'
          : undefined,
    ];
  }
}

export function venueOptionsFrom(config: ConnectorConfig): VenueOptions {
  return {
    restBaseUrl: config.VENUE_REST_URL,
    wsUrl: config.VENUE_WS_URL,
    apiKey: config.VENUE_API_KEY,
    apiSecret: config.VENUE_API_SECRET,
    signatureEncoding: config.VENUE_SIGNATURE_ENCODING,
    sessionId: config.VENUE_SESSION_ID,
    antiReplay: config.VENUE_ANTI_REPLAY,
    ...(config.VENUE_NONCE_DIR !== undefined ? { nonceDir: config.VENUE_NONCE_DIR } : {}),
    staleAfterMs: config.PRICE_STALE_AFTER_MS,
    ...optional('connectionPriceRate', config.VENUE_PRICE_UPDATES_PER_CONNECTION),
    stallTimeoutMs: config.VENUE_STALL_TIMEOUT_MS,
    sessionContestedWindowMs: config.SESSION_CONTESTED_WINDOW_MS,
    reconnect: { initialMs: config.VENUE_RECONNECT_INITIAL_MS, maxMs: config.VENUE_RECONNECT_MAX_MS },
    connectionMaxAgeMs: config.VENUE_CONNECTION_MAX_AGE_MS,
    orderReplyTimeoutMs: config.ORDER_REPLY_TIMEOUT_MS,
    account: config.ACCOUNT,
    ...optional('subscribeTimeoutMs', config.VENUE_SUBSCRIBE_TIMEOUT_MS),
    ...optional('maxStreams', config.VENUE_MAX_STREAMS),
    priceMaxAheadMs: config.PRICE_MAX_CLOCK_AHEAD_MS,
    ...optional('accountGroupsTimeoutMs', config.VENUE_ACCOUNT_GROUPS_TIMEOUT_MS),
    ...optional('orderSendTimeoutMs', config.VENUE_ORDER_SEND_TIMEOUT_MS),
    ...optional('orderIntervalMs', config.VENUE_ORDER_INTERVAL_MS),
    ...optional('orderIntervalMaxMs', config.VENUE_ORDER_INTERVAL_MAX_MS),
    ...optional('orderPaceMs', config.VENUE_ORDER_PACE_MS),
    ...optional('redeliveryGraceMs', config.VENUE_REDELIVERY_GRACE_MS),
    ...optional('drainTimeoutMs', config.VENUE_DRAIN_TIMEOUT_MS),
    ...optional('restTimeoutMs', config.VENUE_REST_TIMEOUT_MS),
    restRequestsPerSecond: config.VENUE_REST_REQUESTS_PER_SECOND,
    ...optional('messagesPerSecond', config.VENUE_MESSAGES_PER_SECOND),
    ...optional('tokenPath', config.VENUE_TOKEN_PATH),
  };
}

function optional<K extends keyof VenueOptions>(key: K, value: VenueOptions[K] | undefined): Partial<VenueOptions> {
  return value === undefined ? {} : { [key]: value };
}

/** The token the validated config is provided under. */
export const CONNECTOR_CONFIG = Symbol('ConnectorConfig');
