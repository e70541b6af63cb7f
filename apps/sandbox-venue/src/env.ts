/**
 * Environment variables of `npm run sandbox`, validated once at start-up by `loadConfig` (every bad
 * variable is listed). The trading half's variables are declared beside it (`SandboxTradingEnv`,
 * `trading/trading-config.ts`, which reads them again with the same rules) and checked here with the rest.
 */
import { Transform } from 'class-transformer';
import { IsIn, IsOptional, IsUrl, ValidateBy } from 'class-validator';
import { EnvEnum, EnvHost, EnvInt, EnvMs, EnvPort, EnvText, loadConfig } from '#observability';
import {
  DIALECT_AXES,
  dialectOf,
  SANDBOX_DIALECTS,
  type DialectName,
  type AccountExtrasShape,
  type OrderReplyShape,
  type PriceCadence,
  type RateLimitedSubscribe,
  type ReplacedClose,
  type CryptoWithdrawalReply,
  type FiatWithdrawalRow,
  type IpsNoticeDate,
  type SubscriptionsOnReconnect,
  type TokenResponseShape,
  type TonceOrder,
  type UnsubscribeReplies,
} from './dialect.js';
import type { SandboxConfig, SandboxOptions } from './config.js';
import { DEFAULT_SANDBOX_CONFIG } from './config.js';
import { SandboxTradingEnv } from './trading/trading-config.js';

/** Digits with an optional fraction: no sign, exponent, hex or spaces. */
const DECIMAL = /^[0-9]+(\.[0-9]+)?$/;
const MAX_BACKOFF_SCALE = 1_000;

/** The sandbox's variables, the trading half's included (checked together at start-up). */
export class SandboxEnv extends SandboxTradingEnv {
  @EnvPort() SANDBOX_PORT: number = DEFAULT_SANDBOX_CONFIG.port;
  @EnvHost() SANDBOX_HOST: string = DEFAULT_SANDBOX_CONFIG.host;

  @IsIn(['base64', 'hex'])
  VENUE_SIGNATURE_ENCODING: 'base64' | 'hex' = DEFAULT_SANDBOX_CONFIG.signatureEncoding;

  @IsOptional()
  @IsUrl({ require_tld: false, protocols: ['http', 'https'], require_protocol: true })
  SANDBOX_WEBHOOK_URL?: string;

  @EnvMs(0) SANDBOX_WEBHOOK_MIN_INTERVAL_MS: number = DEFAULT_SANDBOX_CONFIG.webhookMinIntervalMs;
  @EnvMs(1) SANDBOX_WEBHOOK_TIMEOUT_MS: number = DEFAULT_SANDBOX_CONFIG.webhookTimeoutMs;

  /** Multiplies R14's delays (60 s at most): bounded so the longest stays a timer Node holds (1e30 fired at once). */
  @Transform(({ obj, value }) => {
    const text = (obj as Record<string, unknown>)['SANDBOX_WEBHOOK_BACKOFF_SCALE'];
    return typeof text === 'string' ? (DECIMAL.test(text) ? Number(text) : Number.NaN) : value;
  })
  @ValidateBy({
    name: 'isBackoffScale',
    validator: {
      validate: (value: unknown) => typeof value === 'number' && value > 0 && value <= MAX_BACKOFF_SCALE,
      defaultMessage: () =>
        `SANDBOX_WEBHOOK_BACKOFF_SCALE must be a decimal number above 0 and at most ${MAX_BACKOFF_SCALE} (e.g. 0.01)`,
    },
  })
  SANDBOX_WEBHOOK_BACKOFF_SCALE: number = DEFAULT_SANDBOX_CONFIG.webhookBackoffScale;

  @EnvInt(1, 1_000_000) SANDBOX_REST_RATE_LIMIT: number = DEFAULT_SANDBOX_CONFIG.restRateLimitPerSecond;
  @EnvMs(1) SANDBOX_TOKEN_TTL_MS: number = DEFAULT_SANDBOX_CONFIG.tokenTtlMs;

  // ---- Dialect (dialect.ts): a preset, then any axis on its own
  @EnvEnum(Object.keys(SANDBOX_DIALECTS)) SANDBOX_DIALECT: DialectName = 'reference';
  @EnvEnum(DIALECT_AXES.tokenResponse) SANDBOX_TOKEN_RESPONSE?: TokenResponseShape;
  @EnvEnum(DIALECT_AXES.orderReply) SANDBOX_ORDER_REPLY?: OrderReplyShape;
  @EnvEnum(DIALECT_AXES.unsubscribeReplies) SANDBOX_UNSUBSCRIBE_REPLIES?: UnsubscribeReplies;
  @EnvEnum(DIALECT_AXES.subscriptionsOnReconnect) SANDBOX_SUBSCRIPTIONS_ON_RECONNECT?: SubscriptionsOnReconnect;
  @EnvMs(0, 3_600_000) SANDBOX_SUBSCRIPTION_HOLD_MS?: number;

  /** Where to write the URLs and primary credentials as JSON once listening (`credentials-file.ts`); unset: nowhere. */
  @IsOptional() @EnvText({ max: 4_096, describe: 'a file path' }) SANDBOX_CREDENTIALS_FILE?: string;
  @EnvEnum(DIALECT_AXES.accountExtras) SANDBOX_ACCOUNT_EXTRAS?: AccountExtrasShape;
  @EnvEnum(DIALECT_AXES.rateLimitedSubscribe) SANDBOX_RATE_LIMITED_SUBSCRIBE?: RateLimitedSubscribe;
  @EnvEnum(DIALECT_AXES.priceCadence) SANDBOX_PRICE_CADENCE?: PriceCadence;
  @EnvEnum(DIALECT_AXES.tonceOrder) SANDBOX_TONCE_ORDER?: TonceOrder;
  @EnvEnum(DIALECT_AXES.replacedClose) SANDBOX_REPLACED_CLOSE?: ReplacedClose;
  @EnvEnum(DIALECT_AXES.ipsNoticeDate) SANDBOX_IPS_NOTICE_DATE?: IpsNoticeDate;
  @EnvEnum(DIALECT_AXES.cryptoWithdrawalReply) SANDBOX_CRYPTO_WITHDRAWAL_REPLY?: CryptoWithdrawalReply;
  @EnvEnum(DIALECT_AXES.fiatWithdrawalRow) SANDBOX_FIAT_WITHDRAWAL_ROW?: FiatWithdrawalRow;
}

export function sandboxOptionsFromEnv(env: SandboxEnv): SandboxOptions {
  return {
    port: env.SANDBOX_PORT,
    host: env.SANDBOX_HOST,
    signatureEncoding: env.VENUE_SIGNATURE_ENCODING,
    webhookUrl: env.SANDBOX_WEBHOOK_URL,
    webhookMinIntervalMs: env.SANDBOX_WEBHOOK_MIN_INTERVAL_MS,
    webhookTimeoutMs: env.SANDBOX_WEBHOOK_TIMEOUT_MS,
    webhookBackoffScale: env.SANDBOX_WEBHOOK_BACKOFF_SCALE,
    restRateLimitPerSecond: env.SANDBOX_REST_RATE_LIMIT,
    tokenTtlMs: env.SANDBOX_TOKEN_TTL_MS,
    dialect: dialectOf(env.SANDBOX_DIALECT, {
      tokenResponse: env.SANDBOX_TOKEN_RESPONSE,
      orderReply: env.SANDBOX_ORDER_REPLY,
      unsubscribeReplies: env.SANDBOX_UNSUBSCRIBE_REPLIES,
      subscriptionsOnReconnect: env.SANDBOX_SUBSCRIPTIONS_ON_RECONNECT,
      subscriptionHoldMs: env.SANDBOX_SUBSCRIPTION_HOLD_MS,
      accountExtras: env.SANDBOX_ACCOUNT_EXTRAS,
      rateLimitedSubscribe: env.SANDBOX_RATE_LIMITED_SUBSCRIBE,
      priceCadence: env.SANDBOX_PRICE_CADENCE,
      tonceOrder: env.SANDBOX_TONCE_ORDER,
      replacedClose: env.SANDBOX_REPLACED_CLOSE,
      ipsNoticeDate: env.SANDBOX_IPS_NOTICE_DATE,
      cryptoWithdrawalReply: env.SANDBOX_CRYPTO_WITHDRAWAL_REPLY,
      fiatWithdrawalRow: env.SANDBOX_FIAT_WITHDRAWAL_ROW,
    }),
  };
}

/** The same rules applied to a config built in code (`startSandboxVenue(options)`): throws ConfigError. */
export function validateSandboxConfig(config: SandboxConfig): void {
  loadConfig(SandboxEnv, {
    SANDBOX_PORT: String(config.port),
    SANDBOX_HOST: config.host,
    VENUE_SIGNATURE_ENCODING: config.signatureEncoding,
    SANDBOX_WEBHOOK_URL: config.webhookUrl,
    SANDBOX_WEBHOOK_MIN_INTERVAL_MS: String(config.webhookMinIntervalMs),
    SANDBOX_WEBHOOK_TIMEOUT_MS: String(config.webhookTimeoutMs),
    SANDBOX_WEBHOOK_BACKOFF_SCALE: String(config.webhookBackoffScale),
    SANDBOX_REST_RATE_LIMIT: String(config.restRateLimitPerSecond),
    SANDBOX_TOKEN_TTL_MS: String(config.tokenTtlMs),
  });
}
