/**
 * Configuration of the sandbox's trading half, read once from the environment. Tests and the bootstrap may
 * override any field through `TradingModule.withConfig(...)`; nothing else in `trading/` reads `process.env`.
 */
import { EnvInt, EnvMs, loadConfig } from '#observability';
import { SANDBOX_DIALECTS, type Dialect } from '../dialect.js';
import { DEFAULT_QUOTE_LIMIT } from './quotes/quote-book.js';

export interface TradingConfig {
  /** W13: one cadence timer per connection; every live subscription gets one update per tick. */
  priceIntervalMs: number;
  /** How often the market's random walk moves (independent of the cadence, §2.2 rule 3). */
  marketTickMs: number;
  /** Seed of the deterministic random walk. */
  marketSeed: number;
  /** W6: delay between the PENDING reply and the final outcome. */
  executionDelayMs: number;
  /** Every N cadence ticks a connection gets a frame outside the contract (§4.2, §9); 0 turns it off. */
  offContractEveryNTicks: number;
  /** §2.2 rule 4: quoteId life. */
  quoteTtlMs: number;
  /** Most quotes held at once; past it the oldest is forgotten before its life ends (spec-gaps W36). */
  quoteLimit: number;
  /** §8 / W14: client messages per account per sliding second. */
  messagesPerSecond: number;
  /** §8 / W15: minimum spacing of orders per account. */
  orderSpacingMs: number;
  /** §2.8: order-state retention. */
  orderRetentionMs: number;
  /** W18: daily cut-off (UTC hour) after which tenor `T` rolls to the next business day. */
  cutoffHourUtc: number;
  /** The readings of what the spec does not show that the trading half plays (from the sandbox's dialect). */
  dialect: Dialect;
}

export const TRADING_CONFIG = Symbol('TradingConfig');

export const DEFAULT_TRADING_CONFIG: TradingConfig = {
  priceIntervalMs: 250,
  marketTickMs: 100,
  marketSeed: 20240601,
  executionDelayMs: 50,
  offContractEveryNTicks: 40,
  quoteTtlMs: 10 * 60 * 1000,
  quoteLimit: DEFAULT_QUOTE_LIMIT,
  messagesPerSecond: 30,
  orderSpacingMs: 250,
  orderRetentionMs: 24 * 60 * 60 * 1000,
  cutoffHourUtc: 22,
  dialect: SANDBOX_DIALECTS.reference,
};

/**
 * The trading half's variables, checked by the strict rules (digits only, refused by name, never echoed). The
 * sandbox's own environment class extends it, so a bad one is refused at start-up with every other setting.
 */
export class SandboxTradingEnv {
  @EnvMs(1) SANDBOX_PRICE_INTERVAL_MS?: number;
  @EnvMs(1) SANDBOX_MARKET_TICK_MS?: number;
  @EnvInt(0, Number.MAX_SAFE_INTEGER) SANDBOX_MARKET_SEED?: number;
  @EnvMs(0) SANDBOX_EXECUTION_DELAY_MS?: number;
  @EnvInt(0, 1_000_000) SANDBOX_OFF_CONTRACT_EVERY_N_TICKS?: number;
  @EnvInt(1_000, 100_000_000) SANDBOX_QUOTE_LIMIT?: number;
}

/** Reads the environment (every bad variable listed in one ConfigError), then the overrides. */
export function tradingConfigFromEnv(
  env: NodeJS.ProcessEnv = process.env,
  overrides: Partial<TradingConfig> = {},
): TradingConfig {
  const read = loadConfig(SandboxTradingEnv, env);
  return {
    ...DEFAULT_TRADING_CONFIG,
    ...(read.SANDBOX_PRICE_INTERVAL_MS !== undefined ? { priceIntervalMs: read.SANDBOX_PRICE_INTERVAL_MS } : {}),
    ...(read.SANDBOX_MARKET_TICK_MS !== undefined ? { marketTickMs: read.SANDBOX_MARKET_TICK_MS } : {}),
    ...(read.SANDBOX_MARKET_SEED !== undefined ? { marketSeed: read.SANDBOX_MARKET_SEED } : {}),
    ...(read.SANDBOX_EXECUTION_DELAY_MS !== undefined ? { executionDelayMs: read.SANDBOX_EXECUTION_DELAY_MS } : {}),
    ...(read.SANDBOX_OFF_CONTRACT_EVERY_N_TICKS !== undefined
      ? { offContractEveryNTicks: read.SANDBOX_OFF_CONTRACT_EVERY_N_TICKS }
      : {}),
    ...(read.SANDBOX_QUOTE_LIMIT !== undefined ? { quoteLimit: read.SANDBOX_QUOTE_LIMIT } : {}),
    ...overrides,
  };
}
