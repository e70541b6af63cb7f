/**
 * Configuration of the sandbox's trading half, read once from the environment. Tests and the bootstrap may
 * override any field through `TradingModule.withConfig(...)`; nothing else in `trading/` reads `process.env`.
 */
import { SANDBOX_DIALECTS, type Dialect } from '../dialect.js';

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
  messagesPerSecond: 30,
  orderSpacingMs: 250,
  orderRetentionMs: 24 * 60 * 60 * 1000,
  cutoffHourUtc: 22,
  dialect: SANDBOX_DIALECTS.reference,
};

type NumericSetting = Exclude<keyof TradingConfig, 'dialect'>;

const ENV_NAMES: Partial<Record<NumericSetting, string>> = {
  priceIntervalMs: 'SANDBOX_PRICE_INTERVAL_MS',
  marketTickMs: 'SANDBOX_MARKET_TICK_MS',
  marketSeed: 'SANDBOX_MARKET_SEED',
  executionDelayMs: 'SANDBOX_EXECUTION_DELAY_MS',
  offContractEveryNTicks: 'SANDBOX_OFF_CONTRACT_EVERY_N_TICKS',
};

/** Reads the environment; every bad variable is listed in one error. */
export function tradingConfigFromEnv(
  env: NodeJS.ProcessEnv = process.env,
  overrides: Partial<TradingConfig> = {},
): TradingConfig {
  const config: TradingConfig = { ...DEFAULT_TRADING_CONFIG };
  const problems: string[] = [];
  for (const [key, name] of Object.entries(ENV_NAMES) as [NumericSetting, string][]) {
    const raw = env[name];
    if (raw === undefined || raw === '') continue;
    if (!/^\d+$/.test(raw)) {
      problems.push(`${name} must be a non-negative integer`);
      continue;
    }
    config[key] = Number(raw);
  }
  if (problems.length > 0) throw new Error(`Invalid sandbox trading configuration: ${problems.join('; ')}`);
  if (config.priceIntervalMs < 1) throw new Error('SANDBOX_PRICE_INTERVAL_MS must be at least 1');
  return { ...config, ...overrides };
}
