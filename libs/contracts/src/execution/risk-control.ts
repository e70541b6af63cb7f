/**
 * Run-time control of pre-trade risk over NATS (request/reply, plain JSON), its audit records and the
 * refusal codes. Subjects, per venue account (prefix default `gw.v1`):
 *
 *   {prefix}.{account}.exec.risk.state.get     trading states (global, account groups, strategies)
 *   {prefix}.{account}.exec.risk.state.set     set ACTIVE / REDUCING / HALTED for one scope (audited)
 *   {prefix}.{account}.exec.risk.kill          kill switch: global HALTED (audited)
 *   {prefix}.{account}.exec.risk.limits.get    limits in effect (file, run-time overrides)
 *   {prefix}.{account}.exec.risk.limits.set    replace (or with `limits: null` remove) one scope's override (audited)
 *   {prefix}.{account}.exec.risk.audit.{kind}  audit records (JetStream, durable; kind = state | limits)
 *   {prefix}.{account}.exec.risk.admissions    between execution instances: admitted orders, one at a time for the
 *                                              account (published expecting the subject's last sequence)
 *   {prefix}.{account}.exec.risk.book          between execution instances: later events of admitted orders
 *                                              (both kept a few minutes on a stream: a starting instance reads its
 *                                              rolling windows back)
 */
import {
  Equals,
  IsIn,
  IsInt,
  IsString,
  Matches,
  MaxLength,
  Min,
  MinLength,
  ValidateBy,
  ValidateIf,
} from 'class-validator';
import { Optional, VISIBLE_TEXT } from '../validate.js';
import type { ErrorReply } from '../reply.js';
import type { Subjects } from '../subjects.js';
import { limitSetProblems, RISK_SCOPE_ID, type RiskLimitSet, type RiskLimitsFile } from './risk-limits.js';
import { STRATEGY_ID } from './execution-subjects.js';

export type TradingState = 'ACTIVE' | 'REDUCING' | 'HALTED';
export const TRADING_STATES: readonly TradingState[] = ['ACTIVE', 'REDUCING', 'HALTED'];

/** The scope a trading state or a limit set applies to. `id` names the strategy or account group. */
export type RiskScopeKind = 'global' | 'accountGroup' | 'strategy';
export const RISK_SCOPE_KINDS: readonly RiskScopeKind[] = ['global', 'accountGroup', 'strategy'];

export function riskSubjects(subjects: Subjects) {
  const base = `${subjects.prefix}.${subjects.account}.exec.risk`;
  return {
    stateGet: `${base}.state.get`,
    stateSet: `${base}.state.set`,
    kill: `${base}.kill`,
    limitsGet: `${base}.limits.get`,
    limitsSet: `${base}.limits.set`,
    /**
     * Between execution instances (internal, `RiskBookMessage` of the app): admitted orders. Each is published
     * expecting the subject's last stream sequence, so the account's admissions are decided one after another.
     */
    admissions: `${base}.admissions`,
    /** Between execution instances (internal, `RiskBookMessage` of the app): later events of admitted orders. */
    book: `${base}.book`,
    audit: (kind: RiskAuditKind) => `${base}.audit.${kind}`,
    allAudit: `${base}.audit.>`,
  } as const;
}

export const RiskStreamName = {
  audit: (account: string) => `GW_EXEC_RISK_AUDIT_${account.replace(/[^A-Za-z0-9_-]/g, '_')}`,
  /**
   * The `…exec.risk.admissions` and `…exec.risk.book` messages of the last minutes: admissions are sequenced on it,
   * and a starting instance reads its rolling windows back.
   */
  book: (account: string) => `GW_EXEC_RISK_BOOK_${account.replace(/[^A-Za-z0-9_-]/g, '_')}`,
} as const;
export const RiskBucketName = {
  /** Trading states and run-time limit overrides (one bucket: one watch keeps an instance current). */
  control: (account: string) => `GW_EXEC_RISK_${account.replace(/[^A-Za-z0-9_-]/g, '_')}`,
  /** Positions per scope and currency from fills, durable across restarts. */
  positions: (account: string) => `GW_EXEC_RISK_POSITIONS_${account.replace(/[^A-Za-z0-9_-]/g, '_')}`,
} as const;

/** Refusal codes of pre-trade risk (`CATEGORY_CONDITION`); each refusal carries the values that caused it. */
export const RiskCode = {
  TradingHalted: 'TRADING_HALTED',
  TradingReducingOnly: 'TRADING_REDUCING_ONLY',
  TradingStateUnavailable: 'TRADING_STATE_UNAVAILABLE',
  QuoteUnknown: 'QUOTE_UNKNOWN',
  QuoteNotLive: 'QUOTE_NOT_LIVE',
  QuoteStale: 'QUOTE_STALE',
  QuoteExpired: 'QUOTE_EXPIRED',
  QuoteIncomplete: 'QUOTE_INCOMPLETE',
  QuoteSizeExhausted: 'QUOTE_SIZE_EXHAUSTED',
  PriceWorseThanLimit: 'PRICE_WORSE_THAN_LIMIT',
  InstrumentInvalid: 'RISK_INSTRUMENT_INVALID',
  InstrumentNotAllowed: 'RISK_INSTRUMENT_NOT_ALLOWED',
  StrategyNotConfigured: 'RISK_STRATEGY_NOT_CONFIGURED',
  AccountGroupNotConfigured: 'RISK_ACCOUNT_GROUP_NOT_CONFIGURED',
  LimitsInvalid: 'RISK_LIMITS_INVALID',
  NotionalExceedsMaxPerOrder: 'RISK_NOTIONAL_EXCEEDS_MAX_PER_ORDER',
  NotionalExceedsMaxPerMinute: 'RISK_NOTIONAL_EXCEEDS_MAX_PER_MINUTE',
  OrderRateExceedsMaxPerSecond: 'RISK_ORDER_RATE_EXCEEDS_MAX_PER_SECOND',
  OrderRateExceedsMaxPerMinute: 'RISK_ORDER_RATE_EXCEEDS_MAX_PER_MINUTE',
  ExposureExceedsMax: 'RISK_EXPOSURE_EXCEEDS_MAX_OPEN',
  /** Other instances' admissions kept coming between this one's decision and its publication: ask again. */
  AdmissionContended: 'RISK_ADMISSION_CONTENDED',
} as const;
export type RiskCode = (typeof RiskCode)[keyof typeof RiskCode];

/** Control error codes (besides the bus's `INVALID_REQUEST`). */
export const RiskControlError = {
  /** `expectedRevision` given and the scope's entry has moved on: read again, decide again. */
  Conflict: 'RISK_CONTROL_CONFLICT',
  /** The change is in effect but its audit record could not be stored (NATS/JetStream trouble). */
  AuditNotStored: 'RISK_AUDIT_NOT_STORED',
  /** The store (KV) could not be written: nothing changed. */
  StoreUnavailable: 'RISK_STORE_UNAVAILABLE',
} as const;

function IsRiskScopeId(): PropertyDecorator {
  return Matches(RISK_SCOPE_ID, { message: 'id must be 1-64 characters without ., *, > or whitespace' });
}

const BY_RULE = 'by must be 1-128 characters without control or format characters (who makes the change)';
const REASON_RULE = 'reason must say why: 1-1024 characters without control or format characters, not only spaces';

/**
 * Who and why: every change names its author and reason (kept in the audit record). Both are read back by people
 * (`gw trading`, the audit stream), so both are visible text: a reason of `ESC[2K`, CR and a made-up line erased a
 * HALTED strategy's line on an operator's terminal (security tester).
 */
abstract class AuditedChange {
  @IsString({ message: BY_RULE })
  @MaxLength(128, { message: BY_RULE })
  @Matches(VISIBLE_TEXT, { message: BY_RULE })
  by!: string;

  @IsString({ message: REASON_RULE })
  @MinLength(1, { message: REASON_RULE })
  @MaxLength(1024, { message: REASON_RULE })
  @Matches(VISIBLE_TEXT, { message: REASON_RULE })
  reason!: string;
}

/** A change of one scope: `id` is required for accountGroup and strategy, absent for global. */
abstract class ScopedChange extends AuditedChange {
  @IsIn(RISK_SCOPE_KINDS)
  scope!: RiskScopeKind;

  @ValidateIf((o: ScopedChange) => o.scope !== 'global' || o.id !== undefined)
  @IsString()
  @IsRiskScopeId()
  @ValidateBy({
    name: 'noIdForGlobal',
    validator: {
      validate: (_value, args) => (args?.object as ScopedChange).scope !== 'global',
      defaultMessage: () => 'id must be absent for the global scope',
    },
  })
  @ValidateBy({
    name: 'strategyIdRule',
    validator: {
      // an order's strategyId follows this rule: a strategy change naming anything else applies to no order
      validate: (value, args) =>
        (args?.object as ScopedChange).scope !== 'strategy' || (typeof value === 'string' && STRATEGY_ID.test(value)),
      defaultMessage: () => 'a strategy id is 1-64 letters, digits, _ or - (as an order’s strategyId)',
    },
  })
  id?: string;

  /** Compare-and-set: applied only if the scope's entry is still at this revision (0: never set). */
  @Optional()
  @IsInt()
  @Min(0)
  expectedRevision?: number;
}

/** On `…exec.risk.state.set`. */
export class TradingStateChange extends ScopedChange {
  @IsIn(TRADING_STATES)
  state!: TradingState;
}

/** On `…exec.risk.kill`: global HALTED. */
export class KillSwitchRequest extends AuditedChange {
  @Optional()
  @Equals(true, { message: 'halt must be true (the kill switch only halts; resume with state.set)' })
  halt?: true;
}

/** On `…exec.risk.limits.set`: the scope's run-time limits replace its file entry; `null` removes the override. */
export class RiskLimitsChange extends ScopedChange {
  @ValidateBy({
    name: 'isRiskLimitSet',
    validator: {
      validate: (value) => value === null || limitSetProblems(value, 'limits').length === 0,
      defaultMessage: (args) => limitSetProblems(args?.value, 'limits').slice(0, 20).join('; ') || 'limits is invalid',
    },
  })
  limits!: RiskLimitSet | null;
}

/** On `…exec.risk.limits.get` (optional filter) and `…exec.risk.state.get` (body ignored). */
export class RiskScopeQuery {
  @Optional()
  @IsIn(RISK_SCOPE_KINDS)
  scope?: RiskScopeKind;

  @Optional()
  @IsString()
  @IsRiskScopeId()
  id?: string;
}

/** One scope's trading state as stored (KV) and reported. Absent from the store: ACTIVE. */
export interface TradingStateEntry {
  scope: RiskScopeKind;
  id?: string;
  state: TradingState;
  by: string;
  reason: string;
  /** ISO 8601 time of the change. */
  at: string;
  /**
   * The store's revision of this entry. One counter for the whole store (every scope's state and limits): it grows
   * with changes to other scopes too; a change's `expectedRevision` is compared with its own scope's.
   */
  revision: number;
}

/** A scope never set: ACTIVE, revision 0; nobody, no reason and no time to tell (outside tester t3 F11). */
export interface UnsetTradingStateEntry {
  scope: RiskScopeKind;
  id?: string;
  state: 'ACTIVE';
  revision: 0;
}

export interface TradingStatesReply {
  ok: true;
  /** false: the store cannot be read right now; every order is refused (fail closed). */
  readable: boolean;
  /** The global scope's entry; without `by`, `reason` and `at` while it was never set. */
  global: TradingStateEntry | UnsetTradingStateEntry;
  accountGroups: TradingStateEntry[];
  strategies: TradingStateEntry[];
}

export interface TradingStateChanged {
  ok: true;
  entry: TradingStateEntry;
  auditId: string;
  /** The change is applied; what the operator should know, e.g. an account group the venue does not list. */
  warnings?: string[];
}

export interface RiskLimitOverride {
  scope: RiskScopeKind;
  id?: string;
  limits: RiskLimitSet;
  by: string;
  reason: string;
  at: string;
  revision: number;
}

export interface RiskLimitsReply {
  ok: true;
  file: RiskLimitsFile;
  overrides: RiskLimitOverride[];
  /** With a scope query: the limit set in effect for it. */
  effective?: RiskLimitSet | null;
}

export interface RiskLimitsChanged {
  ok: true;
  scope: RiskScopeKind;
  id?: string;
  limits: RiskLimitSet | null;
  revision: number;
  auditId: string;
  /** As in TradingStateChanged. */
  warnings?: string[];
}

export const RISK_AUDIT_KINDS = ['state', 'limits'] as const;
export type RiskAuditKind = (typeof RISK_AUDIT_KINDS)[number];

/** On `…exec.risk.audit.{kind}` (JetStream, `Nats-Msg-Id` = `id`): who changed what, when and why. */
export interface RiskAuditRecord {
  v: 1;
  id: string;
  kind: RiskAuditKind;
  scope: RiskScopeKind;
  scopeId?: string;
  by: string;
  reason: string;
  at: string;
  /**
   * Subject the change came over, `config` (TRADING_KILL_SWITCH at start-up) or `store-loss` (written back by
   * the gateway after NATS lost the store).
   */
  via: string;
  before: TradingState | RiskLimitSet | null;
  after: TradingState | RiskLimitSet | null;
  revision: number;
  instance: string;
}

export type TradingStatesAnswer = TradingStatesReply | ErrorReply;
export type TradingStateChangeAnswer = TradingStateChanged | ErrorReply;
export type RiskLimitsAnswer = RiskLimitsReply | ErrorReply;
export type RiskLimitsChangeAnswer = RiskLimitsChanged | ErrorReply;
