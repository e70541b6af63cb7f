import { IsBoolean, IsIn, IsInt, IsString, Matches, MaxLength, Min } from 'class-validator';
import { Optional } from './validate.js';
import { isOrderOutcomeStatus, type OrderOutcomeStatus } from './order-status.js';

/**
 * clientRequestId rules: the venue's identifier rules (1–64, no `/`, whitespace, control characters or lone
 * surrogates, `IDENTIFIER_FORBIDDEN` of libs/venue-api), and, because it is a token of the outcome subject and its
 * `Nats-Msg-Id`, no `.`, `*` or `>` either.
 */
export const CLIENT_REQUEST_ID = /^[^/\s\p{Cc}\p{Cs}.*>]{1,64}$/u;

/**
 * A quote id as the gateway carries it, from the venue's price to the order frame: 1–512 characters, no control
 * or format (bidi) character, no lone UTF-16 surrogate (it cannot be written as UTF-8: sent back to the venue it
 * would name another quote, spec-gaps K8). The spec shows only "string"; a venue's quote ids are short tokens.
 */
export const QUOTE_ID = /^[^\p{Cc}\p{Cf}\p{Cs}]{1,512}$/u;
export const QUOTE_ID_RULE = 'quoteId must be 1–512 characters without control or format characters or lone surrogates';

/**
 * The `QUOTE_ID` rule, fast for the usual quote id (printable ASCII: a loop over its characters); only other text
 * gets the Unicode class test. Every price frame runs it.
 */
export function isQuoteId(value: unknown): value is string {
  if (typeof value !== 'string' || value.length === 0 || value.length > 512) return false;
  for (let i = 0; i < value.length; i++) {
    const c = value.charCodeAt(i);
    if (c < 0x20 || c > 0x7e) return QUOTE_ID.test(value);
  }
  return true;
}

/** Free text carried for context (an order's instrument): no control or format (bidi) character. */
const PRINTABLE = /^[^\p{Cc}\p{Cf}]*$/u;

/**
 * An order for the connector to send, on `{prefix}.{account}.order.command` (JetStream work queue,
 * `Nats-Msg-Id` = clientRequestId). The execution app records the intent durably before publishing it.
 * The connector sends each clientRequestId at most once, ever: a redelivered command whose frame may
 * already have left is never re-sent; its outcome is resolved, not re-placed.
 */
export class OrderCommand {
  @IsString()
  @Matches(CLIENT_REQUEST_ID, {
    message:
      'clientRequestId must be 1–64 characters without /, ., *, >, whitespace, control characters or lone surrogates',
  })
  clientRequestId!: string;

  @IsString()
  @MaxLength(512, { message: QUOTE_ID_RULE })
  @Matches(QUOTE_ID, { message: QUOTE_ID_RULE })
  quoteId!: string;

  @IsIn(['BUY', 'SELL'])
  side!: 'BUY' | 'SELL';

  /** Optional context for audit and metrics; the quote already carries price, size and tenor. */
  @Optional()
  @IsString()
  @MaxLength(32)
  @Matches(PRINTABLE, { message: 'instrument must not hold control or format characters' })
  instrument?: string;

  @Optional()
  @IsBoolean()
  autoSubscribe?: boolean;

  /**
   * Epoch ms (the connector's clock) after which the order frame must not leave: the command then ends FAILED
   * `SEND_DEADLINE_PASSED` (source `gateway`), never sent. An order held up — the connector down or stalled, a
   * long queue — would otherwise reach the venue minutes later on its old quote, at a price the market has left.
   * Absent: no deadline (the quote's own life at the venue still applies).
   */
  @Optional()
  @IsInt()
  @Min(0)
  sendBy?: number;
}

/** The FAILED code of a command whose `sendBy` passed before its frame could leave (never sent). */
export const SEND_DEADLINE_PASSED = 'SEND_DEADLINE_PASSED';

/** The FAILED code of a command recalled (`OrderRecall`) before its frame could leave (never sent). */
export const RECALLED = 'RECALLED';

/**
 * The FAILED codes the connector gives a command whose frame certainly never left (source `gateway`): never sent,
 * certainly not executed. (A command not sent because the connector is shutting down is handed back to the stream
 * for the next connector, never failed.)
 */
export const OrderNotSentCode = {
  SendDeadlinePassed: SEND_DEADLINE_PASSED,
  Recalled: RECALLED,
  /** No open venue session within the command's wait. */
  NotConnected: 'NOT_CONNECTED',
  /** The order frame failed the venue's message rules before it left. */
  InvalidOrder: 'INVALID_ORDER',
  /** The command failed the contract (`OrderCommand`). */
  InvalidRequest: 'INVALID_REQUEST',
} as const;
export type OrderNotSentCode = (typeof OrderNotSentCode)[keyof typeof OrderNotSentCode];

/**
 * On `{prefix}.{account}.order.recall` (core NATS, best effort): the execution app asks the connector not to send
 * these orders if their frames have not left yet — on a halt, for the orders of the halted scope accepted before
 * it. A recalled command ends FAILED `RECALLED` (source `gateway`), never sent; one already sent is unaffected.
 */
export interface OrderRecall {
  v: 1;
  clientRequestIds: string[];
  /** Why (for the log): e.g. `HALTED strategy alpha`. */
  reason: string;
}

/** At most this many ids per recall (a larger set is sent in several). */
export const RECALL_MAX_IDS = 1_000;

/** The recall if `value` is one (ids that are not clientRequestIds are left out), else undefined. */
export function orderRecallOf(value: unknown): OrderRecall | undefined {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return undefined;
  const { v, clientRequestIds, reason } = value as Record<string, unknown>;
  if (v !== 1 || !Array.isArray(clientRequestIds) || clientRequestIds.length > RECALL_MAX_IDS) return undefined;
  const ids = clientRequestIds.filter((id): id is string => typeof id === 'string' && CLIENT_REQUEST_ID.test(id));
  return { v: 1, clientRequestIds: ids, reason: typeof reason === 'string' ? reason.slice(0, 200) : '' };
}

/** How an outcome reached the connector (`OrderOutcome.source`); a bounded metric label too. */
export const ORDER_OUTCOME_SOURCES = ['reply', 'redelivery', 'order-state', 'gateway'] as const;
export type OrderOutcomeSource = (typeof ORDER_OUTCOME_SOURCES)[number];

/** On `{prefix}.{account}.order.outcome.{clientRequestId}`; JetStream `Nats-Msg-Id` = `${clientRequestId}:${status}`. */
export interface OrderOutcome {
  v: 1;
  clientRequestId: string;
  status: OrderOutcomeStatus;
  transactionId?: string;
  quoteId?: string;
  side?: 'BUY' | 'SELL';
  code: string;
  message: string;
  instrument?: string;
  price?: string;
  quantity?: string;
  quoteAmount?: string;
  currency?: string;
  settleDate?: string;
  tradeRef?: string;
  /**
   * Epoch ms the venue gave the message this outcome came from (absent for UNKNOWN). From the order-state
   * endpoint (`source: 'order-state'`) it is when the venue answered that request — venue §2.8: "not the time of
   * any order event" — never the execution time.
   */
  venueTimestamp?: number;
  /**
   * How the outcome reached us: the live reply, a redelivery after reconnect, the order-state endpoint, or
   * the gateway itself (the command was refused, or certainly never sent: FAILED without reaching the venue).
   */
  source: OrderOutcomeSource;
}

export function orderOutcomeMsgId(outcome: Pick<OrderOutcome, 'clientRequestId' | 'status'>): string {
  return `${outcome.clientRequestId}:${outcome.status}`;
}

/**
 * On `{prefix}.{account}.order.contradiction.{clientRequestId}` (the order outcome stream), JetStream `Nats-Msg-Id`
 * = `${clientRequestId}:contradicted:${status}`: the venue contradicted the final outcome the connector published
 * for the order (a SUCCESS reply or redelivery after a FAILED, or the reverse; spec-gaps K7). The published outcome
 * stands — never a second final — and execution looks at the venue's trade list to learn the truth.
 */
export interface OrderContradiction {
  v: 1;
  clientRequestId: string;
  /** The final outcome published, which stands. */
  kept: OrderOutcomeStatus;
  /** The final status the venue gave after it. */
  status: OrderOutcomeStatus;
  source: OrderOutcomeSource;
  /** Epoch ms the connector saw the contradicting evidence. */
  at: number;
}

export function orderContradictionMsgId(contradiction: Pick<OrderContradiction, 'clientRequestId' | 'status'>): string {
  return `${contradiction.clientRequestId}:contradicted:${contradiction.status}`;
}

/** The message as a consumer may trust it, or undefined (read liberally: only what identifies it is needed). */
export function orderContradictionOf(value: unknown): OrderContradiction | undefined {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return undefined;
  const { clientRequestId, kept, status, source, at } = value as Record<string, unknown>;
  if (typeof clientRequestId !== 'string' || !CLIENT_REQUEST_ID.test(clientRequestId)) return undefined;
  if (!isOrderOutcomeStatus(kept) || !isOrderOutcomeStatus(status)) return undefined;
  return {
    v: 1,
    clientRequestId,
    kept,
    status,
    source: (ORDER_OUTCOME_SOURCES as readonly unknown[]).includes(source) ? (source as OrderOutcomeSource) : 'reply',
    at: typeof at === 'number' && Number.isFinite(at) ? at : 0,
  };
}
