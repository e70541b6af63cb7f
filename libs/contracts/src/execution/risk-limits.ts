/**
 * Pre-trade risk limits of the execution app: the shape of the limits file (`RISK_LIMITS_FILE`) and of a
 * limit set changed at run time over NATS (`{prefix}.{account}.exec.risk.limits.set`). Amounts are decimal
 * strings keyed by currency (never numbers), taken in any decimal spelling and kept in their one plain form
 * (`001000` and `1E+3` are `1000`: {@link canonicalLimitSet}); counts and durations are integers. Documented with
 * an example in docs/execution-risk.md.
 */
import { isDecimalString } from '../decimal-string.js';
import { plainDecimal } from '../subjects.js';
import { STRATEGY_ID } from './execution-subjects.js';

/** Amounts per currency, e.g. `{ "USD": "100000", "EUR": "90000" }`. */
export type CurrencyAmounts = Record<string, string>;

/** The limits of one scope (global, one strategy or one account group). An absent field is not limited. */
export interface RiskLimitSet {
  /** Instruments (`BASE.QUOTE`) the scope may trade; absent: any instrument. */
  allowedInstruments?: string[];
  /** Largest notional of one order, in its quote currency (the quote's `quoteAmount`), per quote currency. */
  maxNotionalPerOrder?: CurrencyAmounts;
  /** Largest notional of the orders admitted within any rolling 60 s, per quote currency. */
  maxNotionalPerMinute?: CurrencyAmounts;
  /** Most orders admitted within any rolling second / minute. */
  maxOrdersPerSecond?: number;
  maxOrdersPerMinute?: number;
  /** Largest absolute open position per currency, counting orders in flight and of unknown outcome as filled. */
  maxOpenExposure?: CurrencyAmounts;
  /** Oldest quote (ms since the venue's price timestamp) an order may execute on. */
  maxQuoteAgeMs?: number;
}

/** The limits file. */
export interface RiskLimitsFile {
  global?: RiskLimitSet;
  strategies?: Record<string, RiskLimitSet>;
  accountGroups?: Record<string, RiskLimitSet>;
  /** Limits of a strategy / account group the file does not list. */
  defaults?: { strategy?: RiskLimitSet; accountGroup?: RiskLimitSet };
  /** true: an order of a strategy or account group with no entry (file or run-time) is refused. */
  refuseUnlisted?: boolean;
}

export const RISK_LIMIT_FIELDS = [
  'allowedInstruments',
  'maxNotionalPerOrder',
  'maxNotionalPerMinute',
  'maxOrdersPerSecond',
  'maxOrdersPerMinute',
  'maxOpenExposure',
  'maxQuoteAgeMs',
] as const;

/**
 * Currencies are compared exactly with the venue's codes, which are upper case (§2.2 `BTC`, `USD`): a limit keyed
 * `usd` would never match an order and would hold nothing back, so a key in any other case is refused.
 */
const CURRENCY = /^[A-Z0-9]{1,16}$/;
const INSTRUMENT = /^[A-Za-z0-9]{1,16}\.[A-Za-z0-9]{1,16}$/;
/**
 * Strategy ids and account groups: what an order may carry as a subject-safe identifier. No control or format
 * characters either: an id is printed to operators (`gw trading`), where an escape sequence would be obeyed.
 */
export const RISK_SCOPE_ID = /^[^\s.*>\p{Cc}\p{Cf}]{1,64}$/u;
const MAX_INSTRUMENTS = 1_000;
const MAX_CURRENCIES = 200;
const MAX_ENTRIES = 10_000;
const MAX_COUNT = 1_000_000;
const MAX_AGE_MS = 24 * 3_600_000;
/** Longest amount, as written and as plain text (an exponent must not make the stored text a thousand digits). */
const MAX_AMOUNT = 64;

/** Problems of one limit set, each naming its path (`strategies.alpha.maxNotionalPerOrder.USD`); [] when valid. */
export function limitSetProblems(value: unknown, path: string): string[] {
  if (!isPlainObject(value)) return [`${path} must be an object`];
  const problems: string[] = [];
  for (const key of Object.keys(value)) {
    if (!(RISK_LIMIT_FIELDS as readonly string[]).includes(key)) {
      problems.push(`${path}.${shortKey(key)} is not a limit (known: ${RISK_LIMIT_FIELDS.join(', ')})`);
    }
  }
  const set = value as Record<string, unknown>;
  if (set['allowedInstruments'] !== undefined) {
    const list = set['allowedInstruments'];
    if (!Array.isArray(list) || list.length > MAX_INSTRUMENTS) {
      problems.push(`${path}.allowedInstruments must be a list of at most ${MAX_INSTRUMENTS} instruments`);
    } else {
      list.forEach((item, i) => {
        if (typeof item !== 'string' || !INSTRUMENT.test(item)) {
          problems.push(`${path}.allowedInstruments[${i}] must be an instrument BASE.QUOTE`);
        }
      });
    }
  }
  for (const field of ['maxNotionalPerOrder', 'maxNotionalPerMinute', 'maxOpenExposure'] as const) {
    if (set[field] !== undefined) problems.push(...currencyAmountProblems(set[field], `${path}.${field}`));
  }
  for (const field of ['maxOrdersPerSecond', 'maxOrdersPerMinute'] as const) {
    if (set[field] !== undefined && !isIntegerIn(set[field], 0, MAX_COUNT)) {
      problems.push(`${path}.${field} must be an integer from 0 to ${MAX_COUNT}`);
    }
  }
  if (set['maxQuoteAgeMs'] !== undefined && !isIntegerIn(set['maxQuoteAgeMs'], 0, MAX_AGE_MS)) {
    problems.push(`${path}.maxQuoteAgeMs must be an integer (ms) from 0 to ${MAX_AGE_MS}`);
  }
  return problems;
}

/** Problems of a whole limits file, each naming the bad entry; [] when valid. */
export function limitsFileProblems(value: unknown): string[] {
  if (!isPlainObject(value)) return ['the limits file must hold a JSON object'];
  const file = value as Record<string, unknown>;
  const known = ['global', 'strategies', 'accountGroups', 'defaults', 'refuseUnlisted'];
  const problems: string[] = [];
  for (const key of Object.keys(file)) {
    if (!known.includes(key)) problems.push(`${shortKey(key)} is not a section (known: ${known.join(', ')})`);
  }
  if (file['global'] !== undefined) problems.push(...limitSetProblems(file['global'], 'global'));
  for (const section of ['strategies', 'accountGroups'] as const) {
    const entries = file[section];
    if (entries === undefined) continue;
    if (!isPlainObject(entries) || Object.keys(entries).length > MAX_ENTRIES) {
      problems.push(`${section} must be an object of at most ${MAX_ENTRIES} entries`);
      continue;
    }
    for (const [id, set] of Object.entries(entries)) {
      // a strategy entry names an order's strategyId: any other spelling would limit no order, silently
      if (section === 'strategies' && !STRATEGY_ID.test(id))
        problems.push(`${section}.${shortKey(id)}: a strategy id is 1-64 letters, digits, _ or - (as an order's)`);
      else if (!RISK_SCOPE_ID.test(id))
        problems.push(`${section}.${shortKey(id)}: the id must be 1-64 characters without ., *, > or whitespace`);
      problems.push(...limitSetProblems(set, `${section}.${shortKey(id)}`));
    }
  }
  if (file['defaults'] !== undefined) {
    const defaults = file['defaults'];
    if (!isPlainObject(defaults)) {
      problems.push('defaults must be an object with strategy and/or accountGroup');
    } else {
      for (const key of Object.keys(defaults)) {
        if (key !== 'strategy' && key !== 'accountGroup') {
          problems.push(`defaults.${shortKey(key)} is not a default (known: strategy, accountGroup)`);
        }
      }
      const d = defaults as Record<string, unknown>;
      if (d['strategy'] !== undefined) problems.push(...limitSetProblems(d['strategy'], 'defaults.strategy'));
      if (d['accountGroup'] !== undefined)
        problems.push(...limitSetProblems(d['accountGroup'], 'defaults.accountGroup'));
    }
  }
  if (file['refuseUnlisted'] !== undefined && typeof file['refuseUnlisted'] !== 'boolean') {
    problems.push('refuseUnlisted must be true or false');
  }
  return problems;
}

/**
 * A valid limit set (see {@link limitSetProblems}) with every amount in its one plain form — what is stored,
 * applied and written back: `{ USD: '001000' }` and `{ USD: '1E+3' }` become `{ USD: '1000' }`. Exact (string to
 * string, never a binary number).
 */
export function canonicalLimitSet(set: RiskLimitSet): RiskLimitSet {
  const canonical: RiskLimitSet = { ...set };
  for (const field of ['maxNotionalPerOrder', 'maxNotionalPerMinute', 'maxOpenExposure'] as const) {
    const amounts = set[field];
    if (amounts !== undefined) {
      canonical[field] = Object.fromEntries(
        Object.entries(amounts).map(([ccy, amount]) => [ccy, plainDecimal(amount)]),
      );
    }
  }
  return canonical;
}

/** A valid limits file (see {@link limitsFileProblems}) with every limit set's amounts in their plain form. */
export function canonicalLimitsFile(file: RiskLimitsFile): RiskLimitsFile {
  const sets = (entries: Record<string, RiskLimitSet> | undefined) =>
    entries === undefined
      ? undefined
      : Object.fromEntries(Object.entries(entries).map(([id, set]) => [id, canonicalLimitSet(set)]));
  const canonical: RiskLimitsFile = { ...file };
  if (file.global !== undefined) canonical.global = canonicalLimitSet(file.global);
  const strategies = sets(file.strategies);
  if (strategies !== undefined) canonical.strategies = strategies;
  const accountGroups = sets(file.accountGroups);
  if (accountGroups !== undefined) canonical.accountGroups = accountGroups;
  if (file.defaults !== undefined) {
    const { strategy, accountGroup } = file.defaults;
    canonical.defaults = {
      ...(strategy !== undefined ? { strategy: canonicalLimitSet(strategy) } : {}),
      ...(accountGroup !== undefined ? { accountGroup: canonicalLimitSet(accountGroup) } : {}),
    };
  }
  return canonical;
}

function currencyAmountProblems(value: unknown, path: string): string[] {
  if (!isPlainObject(value)) return [`${path} must be an object of currency → decimal string`];
  const entries = Object.entries(value);
  if (entries.length > MAX_CURRENCIES) return [`${path} must list at most ${MAX_CURRENCIES} currencies`];
  const problems: string[] = [];
  for (const [currency, amount] of entries) {
    if (!CURRENCY.test(currency))
      problems.push(
        `${path}.${shortKey(currency)}: a currency is 1-16 upper-case letters or digits, as the venue writes it (USD, BTC)`,
      );
    if (!isDecimalString(amount) || amount.length > MAX_AMOUNT || amount.startsWith('-')) {
      problems.push(`${path}.${shortKey(currency)} must be a non-negative decimal string`);
    } else if (plainDecimal(amount).length > MAX_AMOUNT) {
      problems.push(`${path}.${shortKey(currency)} must be at most ${MAX_AMOUNT} characters written plainly`);
    }
  }
  return problems;
}

function isIntegerIn(value: unknown, min: number, max: number): boolean {
  return typeof value === 'number' && Number.isSafeInteger(value) && value >= min && value <= max;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/** A key named in a problem, cut short: the file's own text is never echoed unbounded. */
function shortKey(key: string): string {
  return key.length > 64 ? `${key.slice(0, 64)}…` : key;
}
