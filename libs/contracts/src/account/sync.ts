/**
 * The account's state as mirrored by the REST sync (§4.4–§4.11), on NATS. Plain JSON, decimals as strings.
 *
 * Current state, one JetStream KV bucket per resource (`AccountStateBucket`), one key per record:
 *   balances        `{accountGroupUuid}.{ccy}`        BalanceState
 *   account details `{accountGroupUuid}`              the account-details record (§2.5)
 *   beneficiaries   `{uuid}`, senders `{uuid}`        participant records (§2.5)
 *   limits          `{accountGroupUuid}.{ccy}`        credit limit record (every field kept)
 *   pairs           `{BASE}.{QUOTE}`                  pair record (every field kept)
 * Each KV value is a `MirroredRecord` (version counts the record's changes).
 *
 * Trades and transfers have no bucket: their history stream `GW_ACCT_HISTORY_EVENTS_{account}` (one message
 * per subject, kept for ever) is their store. Every change, on `GW_ACCT_STATE_EVENTS_{account}` or the history
 * stream (Nats-Msg-Id `{resource}:{key}:{version}`, so a restart never publishes a change twice):
 *   {prefix}.{account}.acct.{resource}.{change}.{key}      AccountStateChanged
 * with change `created`, `changed`, `state-changed` (trades: the state moved), `removed`; e.g.
 *   gw.v1.acct1.acct.balance.changed.{group}.USD, gw.v1.acct1.acct.trade.created.{uuid},
 *   gw.v1.acct1.acct.trade.state-changed.{uuid}
 * and balance drifts (a balance that does not match the transactions that moved it):
 *   {prefix}.{account}.acct.drift.{accountGroupUuid}.{ccy}   BalanceDrift
 *
 * Queries (request/reply, `{ok:true,total,records,asOf,stale}` or an error reply):
 *   {prefix}.{account}.acct.{resource}.query   e.g. acct.balance.query, acct.trade.query (filters: TradeQuery;
 *   its reply's `next` pages on exactly: list-cursor.ts), acct.transaction-list.query (the same)
 * A query's unknown field or bad value is refused (INVALID_REQUEST naming the field, never echoing the value).
 * Records are the last known ones: `asOf`/`stale` (Freshness) say how current they are.
 */
import { IsBoolean, IsIn, IsInt, IsString, Matches, Max, MaxLength, Min, ValidateBy } from 'class-validator';
import type { ErrorReply } from '../reply.js';
import type { Subjects } from '../subjects.js';
import { RefuseUnknownFields, Optional } from '../validate.js';
import { CCY_RULE, CURRENCY_CODE } from '../venue-codes.js';
import { IsListCursor } from './list-cursor.js';

/** The mirrored resources, as subject tokens. */
export const MIRRORED_RESOURCES = [
  'balance',
  'trade',
  'transfer',
  'account-details',
  'beneficiary',
  'sender',
  'limit',
  'pair',
] as const;
export type MirroredResource = (typeof MIRRORED_RESOURCES)[number];

export type StateChange = 'created' | 'changed' | 'state-changed' | 'removed';

/** A KV value: the record and how many times it changed. */
export interface MirroredRecord<T> {
  version: number;
  /** Epoch ms when the sync saw this version. */
  seenAt: number;
  value: T;
}

export interface AccountStateChanged<T = unknown> {
  v: 1;
  resource: MirroredResource;
  key: string;
  change: StateChange;
  version: number;
  seenAt: number;
  /** The record now (absent on `removed`). */
  value?: T;
  /** The record before (absent on `created`). */
  previous?: T;
}

/** A balance per account group and currency (§2.6 `Account_Groups`; deprecated `Wallets` never read). */
export interface BalanceState {
  accountGroupUuid: string;
  accountGroupName?: string;
  natural?: boolean;
  ccy: string;
  /** Total including unsettled amounts. */
  balance: string;
  available: string;
  brokerageAvailable: string;
  unsettledSell?: string;
  unsettledBuy?: string;
}

/** The balance and the balance the newest transaction leg left it at disagree. */
export interface BalanceDrift {
  v: 1;
  accountGroupUuid: string;
  ccy: string;
  balance: string;
  /** `balanceAfter` of the newest leg booked before the balance was read. */
  expected: string;
  transactionUuid: string;
  detectedAt: number;
}

/**
 * `{resource}:{key}:{version}:{digest}` — the digest (of the value, or `removed`) makes a version number reused
 * after a crash between the publish and the KV write a new message when the value differs, and a duplicate
 * (dropped by the stream) when it is the same.
 */
export function stateEventMsgId(resource: MirroredResource, key: string, version: number, digest: string): string {
  return `${resource}:${key}:${version}:${digest}`;
}

export function driftMsgId(drift: BalanceDrift): string {
  return `drift:${drift.accountGroupUuid}:${drift.ccy}:${drift.transactionUuid}:${drift.balance}`;
}

const UNSAFE = /[^A-Za-z0-9_=/-]/g;

/** A record key usable both as a KV key and as subject tokens (`.` separates tokens on purpose). */
export function stateKey(...parts: string[]): string {
  return parts.map((part) => (part === '' ? '_' : part.replace(UNSAFE, '_'))).join('.');
}

export class AccountSyncSubjects {
  constructor(private readonly subjects: Subjects) {}

  private scoped(rest: string): string {
    return `${this.subjects.prefix}.${this.subjects.account}.acct.${rest}`;
  }

  stateChanged(resource: MirroredResource, change: StateChange, key: string): string {
    return this.scoped(`${resource}.${change}.${key}`);
  }

  /** Every state change subject of one resource (for the stream and subscribers). */
  allStateChanges(resource: MirroredResource): string {
    return this.scoped(`${resource}.*.>`);
  }

  drift(accountGroupUuid: string, ccy: string): string {
    return this.scoped(`drift.${stateKey(accountGroupUuid, ccy)}`);
  }

  /**
   * Every drift subject: exactly `drift.{group}.{ccy}` — not `drift.>`, which would capture a request on
   * `acct.drift.query` in the state stream (the caller got a storage acknowledgement and a junk drift was stored).
   */
  get allDrifts(): string {
    return this.scoped('drift.*.*');
  }

  query(resource: MirroredResource | 'transaction-list'): string {
    return this.scoped(`${resource}.query`);
  }
}

/** `YYYY-MM-DD`, or with a time `THH:MM[:SS[.fraction]]` and an optional `Z` or `±HH:MM` (none: the app's zone). */
const ISO_INSTANT =
  /^(\d{4})-(\d{2})-(\d{2})(?:T(\d{2}):(\d{2})(?::(\d{2})(?:\.\d{1,9})?)?(?:Z|[+-](\d{2}):(\d{2}))?)?$/;

/** An ISO 8601 date or date-time naming a real calendar day and time (2026-02-30, 2026-13-45, 24:00 are not). */
export function isIsoInstant(value: unknown): value is string {
  if (typeof value !== 'string' || value.length > 40) return false;
  const match = ISO_INSTANT.exec(value);
  if (match === null) return false;
  const [year, month, day, hour = 0, minute = 0, second = 0, zoneHour = 0, zoneMinute = 0] = match
    .slice(1)
    .map((part) => (part === undefined ? undefined : Number(part)));
  const at = new Date(Date.UTC(2000, (month ?? 0) - 1, day, hour, minute, second));
  at.setUTCFullYear(year ?? 0);
  return (
    at.getUTCFullYear() === year &&
    at.getUTCMonth() === (month ?? 0) - 1 &&
    at.getUTCDate() === day &&
    at.getUTCHours() === hour &&
    at.getUTCMinutes() === minute &&
    at.getUTCSeconds() === second &&
    zoneHour <= 23 &&
    zoneMinute <= 59 &&
    !Number.isNaN(Date.parse(value))
  );
}

function IsIsoInstant(): PropertyDecorator {
  return ValidateBy({
    name: 'isIsoInstant',
    validator: {
      validate: isIsoInstant,
      defaultMessage: (args) =>
        `${args?.property ?? 'value'} must be an ISO 8601 date or date-time such as 2026-01-31 or 2026-01-31T12:00:00Z`,
    },
  });
}

/** Filters of `acct.balance.query`. */
@RefuseUnknownFields()
export class BalanceQuery {
  @Optional() @IsString() @MaxLength(64) accountGroupUuid?: string;
  /** A currency code, the withdrawal's rule (venue-codes.ts): INVALID_REQUEST naming the field, never the value. */
  @Optional() @IsString({ message: CCY_RULE }) @Matches(CURRENCY_CODE, { message: CCY_RULE }) ccy?: string;
  /** True: leave out zero balances. */
  @Optional() @IsBoolean() nonZero?: boolean;
}

/**
 * Filters of `acct.trade.query` (newest first; `limit` default 100, at most 1000). `total` counts the trades
 * matching every filter, `before` included; `offset` skips rows after `before` (or from the newest).
 */
@RefuseUnknownFields()
export class TradeQuery {
  @Optional() @IsString() @MaxLength(64) accountGroupUuid?: string;
  @Optional() @IsIn(['PENDING_SETTLEMENT', 'SETTLED', 'CANCELLED', 'FAILED']) state?: string;
  @Optional() @IsIn(['BUY', 'SELL']) side?: string;
  @Optional() @IsIn(['OTC', 'RFS']) tradeClass?: string;
  @Optional() @IsString() @MaxLength(128) clientRef?: string;
  @Optional() @IsString() @MaxLength(128) tradeRef?: string;
  /** ISO 8601 date or date-time (`isIsoInstant`); on createdAt, inclusive. */
  @Optional() @IsIsoInstant() from?: string;
  @Optional() @IsIsoInstant() to?: string;
  @Optional() @IsInt() @Min(1) @Max(1000) limit?: number;
  @Optional() @IsInt() @Min(0) offset?: number;
  /**
   * Only the trades after this position in the order (`ListPosition`, at: createdAt): the `next` of the previous
   * page. Reading a history page by page, this — not `offset` — gives each trade once, however many are booked
   * meanwhile.
   */
  @Optional() @IsListCursor('trade query') before?: string;
}

/**
 * Filters of `acct.transaction-list.query`: the legs the sync read from the venue's list, newest `received`
 * first (the time the venue booked the leg, which its state changes leave alone; none or unreadable: 0, after
 * every leg with one), a tie by uuid (`ListPosition`, at: received). Not `timestampMillis`: the venue sets it
 * again at each state change, so a leg ordered by it would jump to the top when processed (spec-gaps AS11).
 * `limit` default 100, at most 1000; `total` counts the legs matching every filter, `before` included;
 * `offset` skips rows after `before` (or from the newest).
 */
@RefuseUnknownFields()
export class TransactionListQuery {
  @Optional() @IsString() @MaxLength(64) accountGroupUuid?: string;
  /** A currency code, the withdrawal's rule (venue-codes.ts): INVALID_REQUEST naming the field, never the value. */
  @Optional() @IsString({ message: CCY_RULE }) @Matches(CURRENCY_CODE, { message: CCY_RULE }) ccy?: string;
  @Optional() @IsIn(['PENDING', 'PROCESSED', 'REVERSED', 'CANCELLED']) state?: string;
  @Optional() @IsIn(['TRADE_CREDIT', 'TRADE_DEBIT', 'DEPOSIT', 'WITHDRAWAL']) type?: string;
  @Optional() @IsString() @MaxLength(128) tradeId?: string;
  @Optional() @IsInt() @Min(1) @Max(1000) limit?: number;
  @Optional() @IsInt() @Min(0) offset?: number;
  /**
   * Only the legs after this position in the order: the `next` of the previous page. Reading the list page by
   * page, this — not `offset` — gives each leg once, however many arrive meanwhile (webhooks, syncs).
   */
  @Optional() @IsListCursor('transaction list query') before?: string;
}

/** Filters of the other queries (account details, beneficiaries, senders, limits, transfers). */
@RefuseUnknownFields()
export class StateQuery {
  @Optional() @IsString() @MaxLength(64) accountGroupUuid?: string;
}

/** `acct.pair.query` takes no filter: `{}` (or an empty body); any field is refused as unknown. */
@RefuseUnknownFields()
export class PairQuery {}

/**
 * How current a query's records are, judged by the account-sync app that answers. Records are always the last
 * known ones (an old balance is still worth having), so a consumer must look at `stale` before taking them as
 * live.
 */
export interface Freshness {
  /**
   * Epoch ms when the answering process's last successful venue read of this data set ended; null: none since
   * it started (the records are what an earlier run stored, of unknown age).
   */
  asOf: number | null;
  /**
   * True when no successful read is at most `SYNC_STALE_INTERVALS` × the resource's interval old (the bound the
   * `sync` check of /health uses), or none happened since the process started.
   */
  stale: boolean;
}

export type StateQueryReply<T> =
  | ({
      ok: true;
      total: number;
      records: T[];
      /**
       * `acct.trade.query` and `acct.transaction-list.query`, when `records` is not empty: the position of the
       * last record (`ListPosition`), for `before`.
       */
      next?: string;
    } & Freshness)
  | ErrorReply;
