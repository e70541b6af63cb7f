/**
 * The order as the journal keeps it (KV `order.<orderId>`, written with compare-and-set by its owner):
 * everything needed to resume it after a restart — never to send it again.
 */
import type {
  EvidenceSource,
  OrderCorrection,
  OrderFill,
  OrderOutcomeStatus,
  OrderState,
  OrderView,
  UndoneTrade,
} from '#contracts';

/** What the app knew of the quote when it accepted the order. */
export interface RecordedQuote {
  venueTimestamp?: number;
  /** venueTimestamp + quote life; without a venue timestamp, acceptance + quote life (an upper bound). */
  quoteExpiresAt: number;
  /** The side the order executes on (offer for BUY, bid for SELL). */
  price?: string;
  quantity?: string;
  quoteAmount?: string;
}

export interface OrderRecord {
  v: 1;
  orderId: string;
  clientRequestId: string;
  idempotencyKey: string;
  /** sha-256 of the request's payload, to tell "same key, same payload" from "same key, other payload". */
  payloadHash: string;
  strategyId: string;
  accountGroup: string;
  side: 'BUY' | 'SELL';
  instrument?: string;
  quoteId: string;
  /** The size ordered: the quote request's (quantity plain), or the quote's stream's for an order by quoteId. */
  quantity?: string;
  currency?: string;
  tenor?: string;
  quote: RecordedQuote;
  worstPrice?: string;
  /** The algo's own send deadline (PlaceOrderRequest.sendBy), when it gave one. */
  sendBy?: number;
  state: OrderState;
  status?: OrderOutcomeStatus;
  code?: string;
  message?: string;
  fill?: OrderFill;
  evidence?: EvidenceSource;
  /** The venue undid the order's trade after it settled SUCCESS here (written by `UndoneFills`, never cleared). */
  undone?: UndoneTrade;
  /** The venue contradicted the order's FAILED and its trade list was read (written by `ContradictedFailures`). */
  correction?: OrderCorrection;
  acceptedAt: number;
  sentAt?: number;
  /**
   * The venue has shown it knows the order (a PENDING or INDETERMINATE outcome, both only ever its word): an
   * order-state endpoint that no longer lists it (24 h retention, §8) proves nothing then — it is never concluded
   * "not executed", only settled by the trade list or an outcome.
   */
  venueSeen?: true;
  /** When the order first became UNKNOWN or INDETERMINATE (cleared when final). */
  unresolvedSince?: number;
  updatedAt: number;
  /** The instance that handles the order (ownership; taken over by compare-and-set when that instance died). */
  owner: string;
  /** Sequence number of the last state event published for this order. */
  eventSeq: number;
}

/**
 * When the order's command may leave for the venue at the latest (its `sendBy`): acceptance + the app's send
 * deadline, at most the quote's expiry and the algo's own `sendBy`. From the record, so a command published again
 * (a restart) carries the same deadline.
 */
export function commandSendBy(record: OrderRecord, sendDeadlineMs: number): number {
  return Math.min(
    record.acceptedAt + sendDeadlineMs,
    record.quote.quoteExpiresAt,
    record.sendBy ?? Number.POSITIVE_INFINITY,
  );
}

/** An order with no outcome this long after its command's `sendBy` is of unknown outcome (a frame that left by then
 * has been answered, or has timed out to UNKNOWN at the connector: ORDER_REPLY_TIMEOUT_MS). */
export const SILENT_AFTER_SEND_BY_MS = 30_000;

/**
 * Since when the order's outcome is unknown, if it is: UNKNOWN or INDETERMINATE (`unresolvedSince`), or no outcome
 * at all (INTENT_RECORDED, SENT) `SILENT_AFTER_SEND_BY_MS` past its command's `sendBy` — counted from that `sendBy`
 * (outside tester: such orders waited for their quote's expiry unseen by the unresolved gauge and its alert).
 */
export function unresolvedSince(record: OrderRecord, sendDeadlineMs: number, now: number): number | undefined {
  if (record.unresolvedSince !== undefined) return record.unresolvedSince;
  if (record.state !== 'INTENT_RECORDED' && record.state !== 'SENT') return undefined;
  const sendBy = commandSendBy(record, sendDeadlineMs);
  return now > sendBy + SILENT_AFTER_SEND_BY_MS ? sendBy : undefined;
}

export function isFinalState(state: OrderState): boolean {
  return state === 'SUCCESS' || state === 'FAILED';
}

export function viewOf(record: OrderRecord): OrderView {
  return {
    v: 1,
    orderId: record.orderId,
    clientRequestId: record.clientRequestId,
    idempotencyKey: record.idempotencyKey,
    strategyId: record.strategyId,
    accountGroup: record.accountGroup,
    side: record.side,
    ...(record.instrument !== undefined ? { instrument: record.instrument } : {}),
    quoteId: record.quoteId,
    ...(record.quantity !== undefined ? { quantity: record.quantity } : {}),
    ...(record.currency !== undefined ? { currency: record.currency } : {}),
    ...(record.tenor !== undefined ? { tenor: record.tenor } : {}),
    ...(record.worstPrice !== undefined ? { worstPrice: record.worstPrice } : {}),
    ...(record.sendBy !== undefined ? { sendBy: record.sendBy } : {}),
    state: record.state,
    ...(record.status !== undefined ? { status: record.status } : {}),
    final: isFinalState(record.state),
    // the venue's SUCCESS says code "" and message "": nothing to show
    ...(record.code !== undefined && record.code !== '' ? { code: record.code } : {}),
    ...(record.message !== undefined && record.message !== '' ? { message: record.message } : {}),
    ...(record.fill !== undefined ? { fill: record.fill } : {}),
    ...(record.evidence !== undefined ? { evidence: record.evidence } : {}),
    ...(record.undone !== undefined ? { undone: record.undone } : {}),
    ...(record.correction !== undefined ? { correction: record.correction } : {}),
    acceptedAt: record.acceptedAt,
    updatedAt: record.updatedAt,
    quoteExpiresAt: record.quote.quoteExpiresAt,
  };
}
