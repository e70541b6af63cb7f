/**
 * The sandbox venue's resolved configuration. `startSandboxVenue(options)` merges options over these
 * defaults; `main.ts` builds the options from validated environment variables (`env.ts`). Every timer
 * that a test wants short is here, so tests never wait real venue-sized delays.
 */
import { SANDBOX_DIALECTS, type Dialect, type DialectName } from './dialect.js';
import type { TradingConfig } from './trading/trading-config.js';

export type SignatureEncoding = 'base64' | 'hex';

export interface SandboxConfig {
  /** 0 = any free port. */
  port: number;
  host: string;
  /** spec-gaps R1 */
  signatureEncoding: SignatureEncoding;
  /** Where transaction notifications go (§6.1); undefined = none sent until an operator sets one. */
  webhookUrl: string | undefined;
  /** Minimum spacing between two deliveries to one target (§6.1 rule 7, §8: 1 per second). */
  webhookMinIntervalMs: number;
  /** Receiver response time limit (§8: 10 s). */
  webhookTimeoutMs: number;
  /** Multiplies the R14 retry schedule (1 = real seconds; tests use e.g. 0.01). */
  webhookBackoffScale: number;
  /** REST requests per sliding second per client IP (§8: 30). */
  restRateLimitPerSecond: number;
  /** §5 tonce window (two minutes). */
  tonceWindowMs: number;
  /** §5 WebSocket token life (30 s). */
  tokenTtlMs: number;
  /** Process-level default metrics (CPU, heap); off by default because tests start several venues. */
  processMetrics: boolean;
  /** Which reading of what the spec does not show the sandbox plays (`dialect.ts`, spec-gaps "Dialects"). */
  dialect: Dialect;
  /** Overrides for the trading half (cadence, execution delay, market seed …), see `trading/trading-config.ts`. */
  trading: Partial<TradingConfig>;
}

export const DEFAULT_SANDBOX_CONFIG: SandboxConfig = {
  port: 8080,
  host: '127.0.0.1',
  signatureEncoding: 'base64',
  webhookUrl: undefined,
  webhookMinIntervalMs: 1000,
  webhookTimeoutMs: 10_000,
  webhookBackoffScale: 1,
  restRateLimitPerSecond: 30,
  tonceWindowMs: 120_000,
  tokenTtlMs: 30_000,
  processMetrics: false,
  dialect: SANDBOX_DIALECTS.reference,
  trading: {},
};

/** What `startSandboxVenue` takes: any field, and the dialect as a preset name or some of its axes. */
export type SandboxOptions = Omit<Partial<SandboxConfig>, 'dialect'> & { dialect?: DialectName | Partial<Dialect> };

export const SANDBOX_CONFIG = Symbol('SandboxConfig');
