/**
 * The connector's environment, validated once at start-up by `loadConfig` (every bad variable is listed by
 * name, never with its value). Nothing else in the connector reads `process.env`. Documented in
 * docs/connector.md.
 */
import { Transform, Type } from 'class-transformer';
import {
  IsBoolean,
  IsIn,
  IsInt,
  IsOptional,
  IsString,
  Matches,
  Max,
  MaxLength,
  Min,
  MinLength,
  ValidateBy,
  ValidateIf,
} from 'class-validator';
import { DEFAULT_SUBJECT_PREFIX } from '#contracts';
import { apiSecretProblem, isValidIdentifier } from '#venue-api';
import type { VenueOptions } from './venue/venue-options.js';

const SUBJECT_TOKEN = /^[^\s.*>]+$/;
const SUBJECT_PREFIX = /^[^\s.*>]+(\.[^\s.*>]+)*$/;

export class ConnectorConfig {
  // ---- HTTP (/health, /metrics)
  @Type(() => Number) @IsInt() @Min(0) @Max(65535) HTTP_PORT: number = 3001;
  @IsString() HTTP_HOST: string = '0.0.0.0';

  // ---- NATS
  @IsString() @MinLength(1) NATS_URL: string = 'nats://127.0.0.1:4222';
  @IsString()
  @Matches(SUBJECT_PREFIX, { message: 'NATS_SUBJECT_PREFIX must be dot-separated subject tokens' })
  NATS_SUBJECT_PREFIX: string = DEFAULT_SUBJECT_PREFIX;
  /** Names the venue account this connector serves; one subject token. */
  @IsString()
  @MaxLength(64)
  @Matches(SUBJECT_TOKEN, { message: 'ACCOUNT must be one subject token' })
  ACCOUNT: string = 'default';
  @Type(() => Number) @IsInt() @Min(100) STATUS_INTERVAL_MS: number = 5_000;
  /** The server redelivers an order command not acknowledged within this (the KV mark keeps it unsent). */
  @Type(() => Number) @IsInt() @Min(1_000) ORDER_COMMAND_ACK_WAIT_MS: number = 30_000;
  /** JetStream duplicate window of the outcome stream (the KV mark deduplicates beyond it). */
  @Type(() => Number) @IsInt() @Min(1_000) ORDER_OUTCOME_DUPLICATE_WINDOW_MS: number = 3_600_000;
  /** How long outcomes and order marks are kept. */
  @Type(() => Number) @IsInt() @Min(60_000) ORDER_RETENTION_MS: number = 30 * 24 * 3_600_000;

  // ---- Venue
  @IsString() @MinLength(1) VENUE_REST_URL!: string;
  @IsString() @Matches(/^wss?:\/\//, { message: 'VENUE_WS_URL must be a ws:// or wss:// URL' }) VENUE_WS_URL!: string;
  @IsString() @MinLength(1) VENUE_API_KEY!: string;
  // Checked against the encoding here: otherwise every token fetch fails and the session backs off forever.
  @IsString()
  @ValidateBy({
    name: 'isUsableApiSecret',
    validator: {
      validate: (value: unknown, args) =>
        typeof value === 'string' &&
        apiSecretProblem(value, (args?.object as ConnectorConfig).VENUE_SIGNATURE_ENCODING) === undefined,
      defaultMessage: () => 'VENUE_API_SECRET must be non-empty, and Base64 with VENUE_SIGNATURE_ENCODING=base64',
    },
  })
  VENUE_API_SECRET!: string;
  @IsIn(['base64', 'hex']) VENUE_SIGNATURE_ENCODING: 'base64' | 'hex' = 'base64';
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
  @IsIn(['tonce', 'nonce']) VENUE_ANTI_REPLAY: 'tonce' | 'nonce' = 'tonce';
  /** Required in nonce mode: the persistent nonce lives there. */
  @ValidateIf((config: ConnectorConfig) => config.VENUE_ANTI_REPLAY === 'nonce' || config.VENUE_NONCE_DIR !== undefined)
  @IsString()
  @MinLength(1)
  VENUE_NONCE_DIR?: string;
  @Type(() => Number) @IsInt() @Min(100) PRICE_STALE_AFTER_MS: number = 5_000;
  /** Last-value price entries age out after this; at most a quote's life (§2.2 rule 4: 10 minutes). */
  @Type(() => Number) @IsInt() @Min(1_000) @Max(600_000) PRICE_MAX_AGE_MS: number = 600_000;
  @Type(() => Number) @IsInt() @Min(100) VENUE_STALL_TIMEOUT_MS: number = 15_000;
  @Type(() => Number) @IsInt() @Min(1) VENUE_RECONNECT_INITIAL_MS: number = 250;
  @Type(() => Number) @IsInt() @Min(1) VENUE_RECONNECT_MAX_MS: number = 30_000;
  @Type(() => Number) @IsInt() @Min(1_000) VENUE_CONNECTION_MAX_AGE_MS: number = 3_600_000;
  @Type(() => Number) @IsInt() @Min(100) ORDER_REPLY_TIMEOUT_MS: number = 10_000;
  // optional venue tuning; unset = the venue side's defaults
  @IsOptional() @Type(() => Number) @IsInt() @Min(10) VENUE_SUBSCRIBE_TIMEOUT_MS?: number;
  @IsOptional() @Type(() => Number) @IsInt() @Min(10) VENUE_ACCOUNT_GROUPS_TIMEOUT_MS?: number;
  @IsOptional() @Type(() => Number) @IsInt() @Min(10) VENUE_ORDER_SEND_TIMEOUT_MS?: number;
  @IsOptional() @Type(() => Number) @IsInt() @Min(0) VENUE_REDELIVERY_GRACE_MS?: number;
  @IsOptional() @Type(() => Number) @IsInt() @Min(10) VENUE_DRAIN_TIMEOUT_MS?: number;
  @IsOptional() @Type(() => Number) @IsInt() @Min(10) VENUE_REST_TIMEOUT_MS?: number;
  /** Client-side socket budget (the venue allows 30/s per account); raise only against a sandbox or bench source. */
  @IsOptional() @Type(() => Number) @IsInt() @Min(1) VENUE_MESSAGES_PER_SECOND?: number;
  /** /health tolerates a reconnecting venue session this long before reporting it down. */
  @Type(() => Number) @IsInt() @Min(0) SESSION_HEALTH_GRACE_MS: number = 30_000;

  // ---- Process
  /** Process-level metrics (CPU, heap, event loop); off when several apps share a process (tests). */
  // Read from the raw source: implicit conversion would already have made the string "false" true.
  @Transform(({ obj, key }) => parseBoolean((obj as Record<string, unknown>)[key], true))
  @IsBoolean()
  DEFAULT_METRICS: boolean = true;
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
    stallTimeoutMs: config.VENUE_STALL_TIMEOUT_MS,
    reconnect: { initialMs: config.VENUE_RECONNECT_INITIAL_MS, maxMs: config.VENUE_RECONNECT_MAX_MS },
    connectionMaxAgeMs: config.VENUE_CONNECTION_MAX_AGE_MS,
    orderReplyTimeoutMs: config.ORDER_REPLY_TIMEOUT_MS,
    account: config.ACCOUNT,
    ...optional('subscribeTimeoutMs', config.VENUE_SUBSCRIBE_TIMEOUT_MS),
    ...optional('accountGroupsTimeoutMs', config.VENUE_ACCOUNT_GROUPS_TIMEOUT_MS),
    ...optional('orderSendTimeoutMs', config.VENUE_ORDER_SEND_TIMEOUT_MS),
    ...optional('redeliveryGraceMs', config.VENUE_REDELIVERY_GRACE_MS),
    ...optional('drainTimeoutMs', config.VENUE_DRAIN_TIMEOUT_MS),
    ...optional('restTimeoutMs', config.VENUE_REST_TIMEOUT_MS),
    ...optional('messagesPerSecond', config.VENUE_MESSAGES_PER_SECOND),
  };
}

function optional<K extends keyof VenueOptions>(key: K, value: VenueOptions[K] | undefined): Partial<VenueOptions> {
  return value === undefined ? {} : { [key]: value };
}

function parseBoolean(value: unknown, fallback: boolean): unknown {
  if (value === undefined) return fallback;
  if (value === true || value === 'true' || value === '1') return true;
  if (value === false || value === 'false' || value === '0') return false;
  return value; // anything else fails @IsBoolean and is listed
}

/** The token the validated config is provided under. */
export const CONNECTOR_CONFIG = Symbol('ConnectorConfig');
