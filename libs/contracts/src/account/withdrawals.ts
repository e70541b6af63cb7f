/**
 * Withdrawals over NATS (§4.9, §3.1, §7.2). Request/reply:
 *
 *   {prefix}.{account}.acct.withdrawal.submit    WithdrawalSubmitRequest → WithdrawalReply
 *   {prefix}.{account}.acct.withdrawal.cancel    WithdrawalCancelRequest → WithdrawalReply
 *   {prefix}.{account}.acct.withdrawal.get       WithdrawalGetRequest    → WithdrawalReply
 *   {prefix}.{account}.acct.withdrawal.list      WithdrawalListRequest   → WithdrawalListReply
 *
 * Events (JetStream, durable; Nats-Msg-Id = `{requestId}:{state}` plus the venue's state when it differs):
 *
 *   {prefix}.{account}.acct.withdrawal.changed.{requestId}   WithdrawalStateChanged
 *
 * The caller's `idempotencyKey` names one request for ever: a repeat returns that request, never a second
 * one. The gateway's `requestId` travels to the venue inside `clientComment` (the API has no reference
 * field), so a submit whose outcome is unknown (HTTP 500) is found again in the venue's list.
 */
import { IsIn, IsInt, IsString, Matches, Max, MaxLength, Min } from 'class-validator';
import type { ErrorReply } from '../reply.js';
import { RefuseUnknownFields, Optional } from '../validate.js';
import {
  ACCOUNT_GROUP_UUID,
  ACCOUNT_GROUP_UUID_RULE,
  CCY_RULE,
  CURRENCY_CODE,
  VENUE_REFERENCE,
  venueReferenceRule,
} from '../venue-codes.js';

export type WithdrawalKind = 'fiat' | 'crypto';

/**
 * The gateway's view of a request:
 *   SUBMITTING        intent stored, submit in flight
 *   UNKNOWN           the submit's outcome is undefined (500, timeout); the venue's lists settle it
 *   PENDING_APPROVAL, PENDING, PROCESSED, CANCELLED, FAILED   the venue's states (§3.1)
 *   REJECTED          the venue (or the gateway, before sending) refused it: never created — but a 401
 *                     (VENUE_UNAUTHORIZED) is watched a while: a venue that carried it out all the same moves it
 *                     to the venue's state (`carriedOutAfterRejection`)
 *   NOT_FOUND         an UNKNOWN request absent from the venue's lists for the settle time: taken as never created
 */
export const WITHDRAWAL_STATES = [
  'SUBMITTING',
  'UNKNOWN',
  'PENDING_APPROVAL',
  'PENDING',
  'PROCESSED',
  'CANCELLED',
  'FAILED',
  'REJECTED',
  'NOT_FOUND',
] as const;
export type WithdrawalRequestState = (typeof WITHDRAWAL_STATES)[number];

const RANK: Readonly<Record<WithdrawalRequestState, number>> = {
  SUBMITTING: 0,
  UNKNOWN: 1,
  PENDING_APPROVAL: 2,
  PENDING: 3,
  PROCESSED: 4,
  CANCELLED: 4,
  FAILED: 4,
  REJECTED: 4,
  NOT_FOUND: 4,
};

export function withdrawalStateRank(state: WithdrawalRequestState): number {
  return RANK[state];
}

export function isFinalWithdrawalState(state: WithdrawalRequestState): boolean {
  return RANK[state] === 4;
}

/** The states the venue's lists show (§3.1). */
const VENUE_STATES: ReadonlySet<WithdrawalRequestState> = new Set([
  'PENDING_APPROVAL',
  'PENDING',
  'PROCESSED',
  'CANCELLED',
  'FAILED',
]);

/**
 * A state only moves forward; the venue's evidence may overturn the gateway's reading that a request was never
 * created: a NOT_FOUND request, or one REJECTED on a 401 (§5.5 says "not processed"; account-sync watches only
 * those), moves to the state the venue's lists show.
 */
export function canFollowWithdrawalState(current: WithdrawalRequestState, next: WithdrawalRequestState): boolean {
  if (current === 'NOT_FOUND') return next !== 'NOT_FOUND' && next !== 'SUBMITTING' && next !== 'UNKNOWN';
  if (current === 'REJECTED') return VENUE_STATES.has(next);
  return RANK[next] > RANK[current];
}

/** Positive plain decimal (no exponent: the venue judges the scale on the text sent, §4.9). */
const PLAIN_POSITIVE_DECIMAL = /^(?:0|[1-9]\d{0,30})(?:\.\d{1,30})?$/;
const IDEMPOTENCY_KEY = /^[A-Za-z0-9_:-]{1,64}$/;
/** Any length of text without control, format (bidi, zero-width), line-separator characters or lone surrogates. */
const NO_UNPRINTABLE = /^[^\p{Cc}\p{Cf}\p{Cs}\u2028\u2029]*$/u;

/** How the gateway's requestId is written into clientComment: `gw:{requestId}` then the caller's comment. */
export const WITHDRAWAL_REFERENCE_PREFIX = 'gw:';
/** requestId is 24 lowercase hex characters; the reference and a space take 28 of the venue's 1024. */
export const MAX_CALLER_COMMENT = 1024 - (WITHDRAWAL_REFERENCE_PREFIX.length + 24 + 1);

/**
 * Request on `{prefix}.{account}.acct.withdrawal.submit`. A field it does not know is refused, naming it: a misspelt
 * `clientComment` must not be dropped from a request that moves money.
 */
@RefuseUnknownFields()
export class WithdrawalSubmitRequest {
  /** The caller's name for this request; a repeat with the same key returns the same request. */
  @IsString()
  @Matches(IDEMPOTENCY_KEY, { message: 'idempotencyKey must be 1-64 characters of A-Z a-z 0-9 _ : -' })
  idempotencyKey!: string;

  @IsIn(['fiat', 'crypto'])
  kind!: WithdrawalKind;

  /**
   * §2.3: the account-group UUID; it reaches the venue's account details and submit (tester t2 F2: `a\u0000b`,
   * `\u202Eabc` and `Infinity` were sent to the venue, each costing a REST call, before being refused).
   */
  @IsString({ message: ACCOUNT_GROUP_UUID_RULE })
  @Matches(ACCOUNT_GROUP_UUID, { message: ACCOUNT_GROUP_UUID_RULE })
  accountGroupUuid!: string;

  /**
   * The venue's currency or asset code (§4.9 gives no format beyond "supported by the platform"): visible text
   * without white space. It goes to the venue and comes back in replies and the CLI, so never a control, format
   * or bidi character (security tester: `a\u0000b` passed and was repeated in a refusal).
   */
  @IsString({ message: CCY_RULE })
  @Matches(CURRENCY_CODE, { message: CCY_RULE })
  ccy!: string;

  /** Exact decimal string; at most two decimals as written for fiat (`1.50` yes, `1.500` no), eight for crypto. */
  @IsString()
  @Matches(PLAIN_POSITIVE_DECIMAL, { message: 'amount must be a plain decimal string such as "100.50"' })
  amount!: string;

  /** Fiat: the bank account (enabled, verified, currency = ccy). */
  @Optional()
  @IsString({ message: venueReferenceRule('bankAccountUuid') })
  @Matches(VENUE_REFERENCE, { message: venueReferenceRule('bankAccountUuid') })
  bankAccountUuid?: string;

  /** Crypto: the wallet (enabled, whitelisted, asset = ccy). */
  @Optional()
  @IsString({ message: venueReferenceRule('walletUuid') })
  @Matches(VENUE_REFERENCE, { message: venueReferenceRule('walletUuid') })
  walletUuid?: string;

  /**
   * Free text; the gateway's reference takes part of the venue's 1024 characters (see MAX_CALLER_COMMENT). Read
   * back by people (the venue's lists, `gw withdrawals`): no control, format or line-separator character.
   */
  @Optional()
  @IsString()
  @Matches(NO_UNPRINTABLE, { message: 'clientComment must be text without control or format characters' })
  @MaxLength(MAX_CALLER_COMMENT, {
    message: `clientComment must be at most ${MAX_CALLER_COMMENT} characters (the gateway's reference takes the rest of 1024)`,
  })
  clientComment?: string;
}

/** Request on `…withdrawal.cancel` and `…withdrawal.get`: the gateway's requestId or the caller's key. */
@RefuseUnknownFields()
export class WithdrawalGetRequest {
  @Optional()
  @IsString()
  @Matches(/^[a-z0-9]{1,64}$/, { message: 'requestId must be the gateway request id' })
  requestId?: string;

  @Optional()
  @IsString()
  @Matches(IDEMPOTENCY_KEY, { message: 'idempotencyKey must be 1-64 characters of A-Z a-z 0-9 _ : -' })
  idempotencyKey?: string;
}

/**
 * Request on `…withdrawal.cancel`. `accountGroupUuid`: needed only for a request restored from a venue's fiat row that
 * did not show its group (`accountGroupUuid: ''`, WD9) — the venue's cancel takes the group (§4.9); otherwise it may
 * be left out, and must be the request's own if given.
 */
export class WithdrawalCancelRequest extends WithdrawalGetRequest {
  /** Sent in the venue's cancel body: a UUID like a submit's (spec-gaps WD10). */
  @Optional()
  @IsString({ message: ACCOUNT_GROUP_UUID_RULE })
  @Matches(ACCOUNT_GROUP_UUID, { message: ACCOUNT_GROUP_UUID_RULE })
  accountGroupUuid?: string;
}

/** Request on `…withdrawal.list`: the venue's own lists (every API-raised request of the account's groups). */
@RefuseUnknownFields()
export class WithdrawalListRequest {
  @Optional()
  @IsIn(['fiat', 'crypto'])
  kind?: WithdrawalKind;

  /** At most this many rows per kind (newest first); default 500. */
  @Optional()
  @IsInt()
  @Min(1)
  @Max(2_000)
  limit?: number;
}

/** A request as the gateway tracks it. */
export interface WithdrawalView {
  requestId: string;
  /**
   * The caller's key; `''` on a request `restored` from the venue's lists whose key was not presented since (the
   * venue holds only the requestId, a one-way digest of the key: a submit, get or cancel by the key still finds it).
   */
  idempotencyKey: string;
  kind: WithdrawalKind;
  state: WithdrawalRequestState;
  accountGroupUuid: string;
  ccy: string;
  amount: string;
  bankAccountUuid?: string;
  walletUuid?: string;
  /** The caller's own comment (without the gateway's reference). */
  clientComment?: string;
  /** The venue's request uuid, once known. */
  venueUuid?: string;
  /**
   * For REJECTED: the reason (a WithdrawalErrorCode) and the venue's message. Kept when the venue's lists later show
   * the request (`carriedOutAfterRejection`): what the gateway had answered.
   */
  rejection?: { code: string; message: string };
  /**
   * A cancel the gateway sent is pending (the venue's list confirms the CANCELLED state); back to false when the
   * venue refused it (409 not cancellable, 404, 401/403).
   */
  cancelRequested?: boolean;
  createdAt: number;
  updatedAt: number;
  /** The venue's `lastUpdated`, when seen in a list. */
  venueLastUpdated?: string;
  /**
   * The venue uuids of further requests its lists hold with this request's reference and fields: the venue carried
   * it out more than once (a 401 after processing it, contrary to §5.5, and the REST client's one re-send). Only
   * `venueUuid` is followed; each of these must be cancelled at the venue by hand (docs/runbook.md).
   */
  duplicates?: string[];
  /**
   * The venue carried out a request the gateway had answered REJECTED / VENUE_UNAUTHORIZED (a 401 to the send and to
   * its re-send, which §5.5 makes "not processed"): its lists showed a row with this request's reference and fields.
   * The row as first seen (its venue uuid and state, when shown) and when (epoch ms). `state` and `venueUuid` follow
   * that row from then on; `rejection` keeps what was answered. Money may be moving: see docs/runbook.md.
   */
  carriedOutAfterRejection?: { venueUuid: string; venueState?: WithdrawalRequestState; foundAt: number };
  /**
   * Rebuilt from the venue's lists (epoch ms) after NATS lost the records: the venue's row with our reference
   * (`gw:{requestId}`) gave its state and fields; a field its row did not show is `''` (or absent) — a fiat row's
   * `accountGroupUuid` among them (§2.7 shows none: a cancel then names it). Such a request is never sent again: a
   * submit with its key answers it.
   */
  restored?: { at: number };
}

/** A failure about an existing request (REJECTED, a refused cancel) carries the request too. */
export type WithdrawalReply = { ok: true; withdrawal: WithdrawalView } | (ErrorReply & { withdrawal?: WithdrawalView });

/** A row of the venue's list (§2.7); names and aliases are absent when the venue's participants service is down. */
export interface WithdrawalListItem {
  kind: WithdrawalKind;
  venueUuid: string;
  /** The gateway's requestId when the row carries its reference. */
  requestId?: string;
  state?: string;
  amount?: string;
  ccy?: string;
  accountGroupUuid?: string;
  accountGroupName?: string;
  requestor?: string;
  clientComment?: string;
  bankAccount?: { uuid: string; name?: string; alias?: string };
  wallet?: { uuid: string; address?: string; alias?: string };
  coinAddress?: string;
  dateCreated?: string;
  lastUpdated?: string;
}

export type WithdrawalListReply = { ok: true; withdrawals: WithdrawalListItem[]; truncated: boolean } | ErrorReply;

/** On `{prefix}.{account}.acct.withdrawal.changed.{requestId}`: one message per change of state. */
export interface WithdrawalStateChanged {
  v: 1;
  previousState: WithdrawalRequestState | null;
  withdrawal: WithdrawalView;
}

/**
 * Codes of error replies and rejections: the gateway's own, and one per §7.2 answer.
 */
export const WithdrawalErrorCode = {
  /** Refused before sending (amount, comment, bank account or wallet not usable…). */
  InvalidRequest: 'INVALID_REQUEST',
  BankAccountUnusable: 'BANK_ACCOUNT_UNUSABLE',
  WalletUnusable: 'WALLET_UNUSABLE',
  /** The idempotency key names an earlier request with other parameters. */
  IdempotencyConflict: 'IDEMPOTENCY_CONFLICT',
  /** No such request (gateway) or 404 `Request not found` (venue). */
  NotFound: 'NOT_FOUND',
  /** 409: cancel not allowed in the current state. */
  NotCancellable: 'NOT_CANCELLABLE',
  /** 401: authentication, nonce/tonce, or throttling (indistinguishable, §5.5). */
  Unauthorized: 'VENUE_UNAUTHORIZED',
  /** 403: invalid signed params, no Move Funds, or no ROLE_OPERATIONS. */
  Forbidden: 'VENUE_FORBIDDEN',
  /** 422: business validation failed (bank account, currency, insufficient funds); not created. */
  VenueRejected: 'VENUE_REJECTED',
  InsufficientFunds: 'INSUFFICIENT_FUNDS',
  /** 500 or no answer: outcome undefined; the gateway settles it from the venue's lists, never re-sends. */
  OutcomeUnknown: 'OUTCOME_UNKNOWN',
  /** The venue could not be asked (connection refused, throttled, account details unavailable). */
  VenueUnavailable: 'VENUE_UNAVAILABLE',
  /** NATS storage failed: nothing was sent. */
  StorageUnavailable: 'STORAGE_UNAVAILABLE',
  /**
   * The request reached account-sync while it was stopping (a restart, a deploy): nothing was stored or sent.
   * Ask again with the same idempotency key (its next life, or another instance, answers).
   */
  Stopping: 'ACCOUNT_SYNC_STOPPING',
  /**
   * NATS lost the withdrawal records and they are not rebuilt from the venue's lists yet (the lists could not be
   * read): a submit of a key not held is refused — nothing stored or sent — until they are. Ask again with the same key.
   */
  Restoring: 'WITHDRAWALS_RESTORING',
} as const;
export type WithdrawalErrorCodeValue = (typeof WithdrawalErrorCode)[keyof typeof WithdrawalErrorCode];

export function withdrawalComment(requestId: string, callerComment: string | undefined): string {
  const reference = `${WITHDRAWAL_REFERENCE_PREFIX}${requestId}`;
  return callerComment === undefined || callerComment === '' ? reference : `${reference} ${callerComment}`;
}

/** The gateway requestId a venue comment carries, if any. */
export function requestIdOfComment(comment: string | undefined): string | undefined {
  if (comment === undefined) return undefined;
  const match = /^gw:([a-f0-9]{24})(?:\s|$)/.exec(comment);
  return match?.[1];
}

/** The caller's part of a venue comment. */
export function callerPartOfComment(comment: string | undefined): string | undefined {
  if (comment === undefined) return undefined;
  const match = /^gw:[a-f0-9]{24}(?: (.*))?$/s.exec(comment);
  if (!match) return comment;
  return match[1];
}

export function withdrawalEventMsgId(requestId: string, state: WithdrawalRequestState, extra = ''): string {
  return extra === '' ? `${requestId}:${state}` : `${requestId}:${state}:${extra}`;
}

export class WithdrawalSubjects {
  constructor(
    private readonly prefix: string,
    readonly account: string,
  ) {}
  get submit(): string {
    return `${this.scope}.submit`;
  }
  get cancel(): string {
    return `${this.scope}.cancel`;
  }
  get get(): string {
    return `${this.scope}.get`;
  }
  get list(): string {
    return `${this.scope}.list`;
  }
  changed(requestId: string): string {
    return `${this.scope}.changed.${requestId}`;
  }
  get allChanged(): string {
    return `${this.scope}.changed.>`;
  }
  private get scope(): string {
    return `${this.prefix}.${this.account}.acct.withdrawal`;
  }
}
