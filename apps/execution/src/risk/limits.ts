/**
 * Limits in effect, parsed once (decimals built from their strings) from the limits file and the run-time
 * overrides, and resolved per scope: an override replaces its scope's file entry; a strategy or account group
 * without either takes the file's default for its kind (or is refused when the file says `refuseUnlisted`).
 */
import {
  canonicalLimitsFile,
  limitSetProblems,
  limitsFileProblems,
  type RiskLimitSet,
  type RiskLimitsFile,
  type RiskScopeKind,
} from '#contracts';
import { parseDecimal, type Decimal } from '#venue-api';

export interface Limits {
  readonly allowedInstruments?: ReadonlySet<string>;
  readonly maxNotionalPerOrder?: ReadonlyMap<string, Decimal>;
  readonly maxNotionalPerMinute?: ReadonlyMap<string, Decimal>;
  readonly maxOrdersPerSecond?: number;
  readonly maxOrdersPerMinute?: number;
  readonly maxOpenExposure?: ReadonlyMap<string, Decimal>;
  readonly maxQuoteAgeMs?: number;
}

/** A scope's identity: `global`, `strategy:alpha`, `accountGroup:g1`. */
export type ScopeKey = string;

export function scopeKey(scope: RiskScopeKind, id?: string): ScopeKey {
  return scope === 'global' ? 'global' : `${scope}:${canonicalScopeId(scope, id ?? '')}`;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * The one spelling of a scope id: an account group's UUID in lower case (a UUID is case-insensitive, RFC 4122 —
 * a halt or a limit set for `9A00…` applies to orders of `9a00…`); anything else as given (strategy ids are
 * case-sensitive names).
 */
export function canonicalScopeId(scope: RiskScopeKind, id: string): string {
  return scope === 'accountGroup' && UUID.test(id) ? id.toLowerCase() : id;
}

export interface LimitsConfig {
  readonly file: RiskLimitsFile;
  /** Run-time overrides by scope key; `invalid` when the stored value does not validate (fail closed). */
  readonly overrides: ReadonlyMap<ScopeKey, Limits | 'invalid'>;
  readonly fileLimits: ReadonlyMap<ScopeKey, Limits>;
  readonly defaults: { readonly strategy?: Limits; readonly accountGroup?: Limits };
  readonly refuseUnlisted: boolean;
}

export type ResolvedLimits =
  { kind: 'limits'; limits: Limits | undefined } | { kind: 'unlisted' } | { kind: 'invalid' };

export class LimitsFileError extends Error {
  constructor(readonly problems: string[]) {
    super(`invalid risk limits: ${problems.join('; ')}`);
    this.name = 'LimitsFileError';
  }
}

/** Validates and parses a limits file's JSON value; throws {@link LimitsFileError} naming every bad entry. */
export function limitsConfigFrom(file: unknown): LimitsConfig {
  const problems = limitsFileProblems(file);
  if (problems.length > 0) throw new LimitsFileError(problems);
  // written back (limits.get) in the plain form the run-time limits take too
  const valid = canonicalLimitsFile(file as RiskLimitsFile);
  const fileLimits = new Map<ScopeKey, Limits>();
  if (valid.global) fileLimits.set('global', parseLimits(valid.global));
  for (const [id, set] of Object.entries(valid.strategies ?? {}))
    fileLimits.set(scopeKey('strategy', id), parseLimits(set));
  for (const [id, set] of Object.entries(valid.accountGroups ?? {})) {
    fileLimits.set(scopeKey('accountGroup', id), parseLimits(set));
  }
  return {
    file: valid,
    overrides: new Map(),
    fileLimits,
    defaults: {
      ...(valid.defaults?.strategy ? { strategy: parseLimits(valid.defaults.strategy) } : {}),
      ...(valid.defaults?.accountGroup ? { accountGroup: parseLimits(valid.defaults.accountGroup) } : {}),
    },
    refuseUnlisted: valid.refuseUnlisted ?? false,
  };
}

/** The config with one scope's override replaced (`null`: removed; `invalid`: a stored value that does not validate). */
export function withOverride(config: LimitsConfig, key: ScopeKey, limits: Limits | 'invalid' | null): LimitsConfig {
  const overrides = new Map(config.overrides);
  if (limits === null) overrides.delete(key);
  else overrides.set(key, limits);
  return { ...config, overrides };
}

/** Parses a run-time limit set (already validated by the contract) or says why it is invalid. */
export function parseLimitSet(value: unknown): Limits | 'invalid' {
  if (limitSetProblems(value, 'limits').length > 0) return 'invalid';
  try {
    return parseLimits(value as RiskLimitSet);
  } catch {
    return 'invalid'; // never a throw where a stored set is read: its scope's orders are refused instead
  }
}

export function resolveLimits(config: LimitsConfig, scope: RiskScopeKind, id?: string): ResolvedLimits {
  const key = scopeKey(scope, id);
  const override = config.overrides.get(key);
  if (override === 'invalid') return { kind: 'invalid' };
  if (override !== undefined) return { kind: 'limits', limits: override };
  const fromFile = config.fileLimits.get(key);
  if (fromFile !== undefined || scope === 'global') return { kind: 'limits', limits: fromFile };
  const fallback = scope === 'strategy' ? config.defaults.strategy : config.defaults.accountGroup;
  if (config.refuseUnlisted) return { kind: 'unlisted' };
  return { kind: 'limits', limits: fallback };
}

function parseLimits(set: RiskLimitSet): Limits {
  return {
    ...(set.allowedInstruments ? { allowedInstruments: new Set(set.allowedInstruments) } : {}),
    ...(set.maxNotionalPerOrder ? { maxNotionalPerOrder: amounts(set.maxNotionalPerOrder) } : {}),
    ...(set.maxNotionalPerMinute ? { maxNotionalPerMinute: amounts(set.maxNotionalPerMinute) } : {}),
    ...(set.maxOrdersPerSecond !== undefined ? { maxOrdersPerSecond: set.maxOrdersPerSecond } : {}),
    ...(set.maxOrdersPerMinute !== undefined ? { maxOrdersPerMinute: set.maxOrdersPerMinute } : {}),
    ...(set.maxOpenExposure ? { maxOpenExposure: amounts(set.maxOpenExposure) } : {}),
    ...(set.maxQuoteAgeMs !== undefined ? { maxQuoteAgeMs: set.maxQuoteAgeMs } : {}),
  };
}

function amounts(byCurrency: Record<string, string>): Map<string, Decimal> {
  return new Map(Object.entries(byCurrency).map(([currency, text]) => [currency, parseDecimal(text, currency)]));
}
