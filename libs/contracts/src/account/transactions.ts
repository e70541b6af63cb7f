/**
 * The account's transaction legs on NATS (§2.9, §3.3, §6.1): one event per (transaction uuid, state) on a
 * durable stream, and a query for a transaction's current state.
 *
 *   {prefix}.{account}.acct.transaction.changed.{uuid}   TransactionStateChanged (JetStream, durable;
 *                                                        Nats-Msg-Id = `{uuid}:{state}`)
 *   {prefix}.{account}.acct.transaction.get              request/reply: TransactionGetRequest → TransactionGetReply
 *
 * A transaction's state only moves forward (see `canFollowTransactionState`): PENDING first, then one of
 * PROCESSED, REVERSED, CANCELLED; REVERSED and CANCELLED are failures (the transfer did not complete).
 */
import { IsString, MaxLength, MinLength } from 'class-validator';
import { RefuseUnknownFields } from '../validate.js';
import type { ErrorReply } from '../reply.js';

export const TRANSACTION_STATES = ['PENDING', 'PROCESSED', 'REVERSED', 'CANCELLED'] as const;
export type TransactionLegState = (typeof TRANSACTION_STATES)[number];

/** What a state means for the money: still moving, arrived, or did not complete (§6.1 rule 6). */
export type TransactionOutcome = 'pending' | 'completed' | 'failed';

const RANK: Readonly<Record<TransactionLegState, number>> = {
  PENDING: 0,
  PROCESSED: 1,
  // docs/spec-gaps.md WH2: a reversal or cancellation after PROCESSED is read as a later state.
  REVERSED: 2,
  CANCELLED: 2,
};

export function transactionStateRank(state: TransactionLegState): number {
  return RANK[state];
}

/** Whether `next` may follow `current` (undefined: nothing held yet). Equal ranks never follow each other. */
export function canFollowTransactionState(
  current: TransactionLegState | undefined,
  next: TransactionLegState,
): boolean {
  return current === undefined || RANK[next] > RANK[current];
}

export function transactionOutcomeOf(state: TransactionLegState): TransactionOutcome {
  if (state === 'PENDING') return 'pending';
  return state === 'PROCESSED' ? 'completed' : 'failed';
}

export function isTransactionLegState(value: unknown): value is TransactionLegState {
  return typeof value === 'string' && (TRANSACTION_STATES as readonly string[]).includes(value);
}

/** A transaction leg as published: the venue's record (§2.9), every amount an exact decimal string. */
export interface TransactionLeg {
  uuid: string;
  transactionClass: string;
  transactionType: string;
  transactionState: TransactionLegState;
  ccy: string;
  amount: string;
  fee?: string;
  balanceBefore?: string;
  balanceAfter?: string;
  userUuid?: string;
  received?: number;
  processed?: number;
  timestampMillis?: number;
  displayTitle?: string | null;
  displayDescription?: string | null;
  paymentTransferType?: string | null;
  customRef?: string;
  quoteId?: string;
  tradeId?: string;
  tradeRef?: string;
  executedPrice?: string;
  settleDate?: string;
  beneficiaryUuid?: string | null;
}

/** On `{prefix}.{account}.acct.transaction.changed.{uuid}`: one message per (uuid, state), ever. */
export interface TransactionStateChanged {
  v: 1;
  uuid: string;
  state: TransactionLegState;
  /** The state held before this one (null for the first state seen). */
  previousState: TransactionLegState | null;
  outcome: TransactionOutcome;
  /** REVERSED or CANCELLED: the transfer did not complete and needs its own handling. */
  failed: boolean;
  /** Where the gateway learnt it: the venue's webhook or its transaction list (a missed webhook, filled). */
  source: 'webhook' | 'list';
  /**
   * Set when this state replaces a webhook's final state that the venue's list kept contradicting (spec-gaps WH12):
   * the earlier event was wrong; `previousState` is what it said.
   */
  corrected?: true;
  /** Epoch ms when the gateway stored it. */
  storedAt: number;
  leg: TransactionLeg;
}

export function transactionEventMsgId(uuid: string, state: TransactionLegState): string {
  return `${uuid}:${state}`;
}

/** Request on `{prefix}.{account}.acct.transaction.get`. */
@RefuseUnknownFields()
export class TransactionGetRequest {
  @IsString()
  @MinLength(1)
  // the venue-api identifier bound (MAX_IDENTIFIER_BYTES): §2.9 says only "string"
  @MaxLength(1024)
  uuid!: string;
}

export type TransactionGetReply = { ok: true; transaction: TransactionStateChanged } | ErrorReply;

export const TransactionErrorCode = {
  NotFound: 'NOT_FOUND',
} as const;

const SAFE_TOKEN = /^[A-Za-z0-9_-]{1,128}$/;

/**
 * The subject token of a transaction uuid: the uuid itself when it is a plain token (every uuid the venue
 * shows), else `x` + its base64url form, so a uuid can never break out of its subject.
 */
export function transactionToken(uuid: string): string {
  return SAFE_TOKEN.test(uuid) && !uuid.startsWith('x') ? uuid : `x${Buffer.from(uuid, 'utf8').toString('base64url')}`;
}

export class TransactionSubjects {
  constructor(
    private readonly prefix: string,
    private readonly account: string,
  ) {}

  changed(uuid: string): string {
    return `${this.scope}.changed.${transactionToken(uuid)}`;
  }
  get allChanged(): string {
    return `${this.scope}.changed.>`;
  }
  get get(): string {
    return `${this.scope}.get`;
  }
  private get scope(): string {
    return `${this.prefix}.${this.account}.acct.transaction`;
  }
}
