import { statusRank, type OrderOutcome } from '#contracts';
import type { OrderReply } from '#venue-api';
import type { OrderStateView as OrderStateRecord } from '../rest/venue-sources.js';

/**
 * The venue's order reply (W5) as the outcome the NATS side publishes. Decimals stay the venue's strings.
 * `clientRequestId` is the order's (the reply may have been correlated by transactionId or quoteId).
 */
export function outcomeFromReply(
  clientRequestId: string,
  reply: OrderReply,
  source: OrderOutcome['source'],
): OrderOutcome {
  const outcome: OrderOutcome = {
    v: 1,
    clientRequestId,
    status: reply.orderStatus,
    code: reply.code ?? '',
    message: reply.message ?? '',
    source,
  };
  if (reply.timestamp !== undefined) outcome.venueTimestamp = reply.timestamp;
  if (reply.transactionId) outcome.transactionId = reply.transactionId;
  if (reply.quoteId !== undefined) outcome.quoteId = reply.quoteId;
  if (reply.side !== undefined) outcome.side = reply.side;
  if (reply.instrument !== undefined) outcome.instrument = reply.instrument;
  if (reply.price !== undefined) outcome.price = reply.price;
  if (reply.quantity !== undefined) outcome.quantity = reply.quantity;
  if (reply.quoteAmount !== undefined) outcome.quoteAmount = reply.quoteAmount;
  if (reply.currency !== undefined) outcome.currency = reply.currency;
  if (reply.settleDate !== undefined) outcome.settleDate = reply.settleDate;
  if (reply.tradeRef !== undefined) outcome.tradeRef = reply.tradeRef;
  return outcome;
}

/** A record of the order-state endpoint (§4.10, §2.8) as an outcome. */
export function outcomeFromState(clientRequestId: string, record: OrderStateRecord): OrderOutcome {
  const outcome: OrderOutcome = {
    v: 1,
    clientRequestId,
    status: record.orderStatus,
    code: record.code,
    message: record.message,
    venueTimestamp: record.timestamp,
    source: 'order-state',
  };
  if (record.transactionId) outcome.transactionId = record.transactionId;
  return outcome;
}

export function unknownOutcome(clientRequestId: string, why: string): OrderOutcome {
  return {
    v: 1,
    clientRequestId,
    status: 'UNKNOWN',
    code: 'OUTCOME_UNKNOWN',
    message: why,
    source: 'order-state',
  };
}

/**
 * Picks the record that says the most about our order among the array the endpoint returns. The id is unique
 * only within the account and may be reused (§4.10), so several orders can answer: the records bound to our
 * session are taken when there are any (§2.8); the records of one transaction are one order's history (its
 * highest status counts); records of several transactions that disagree settle nothing — undefined, the order
 * stays unresolved (never FAILED on another order's word) and the trade list decides.
 */
export function bestStateRecord(records: readonly OrderStateRecord[], sessionId: string): OrderStateRecord | undefined {
  const ours = records.filter((r) => r.sessionId === sessionId);
  const byTransaction = new Map<string, OrderStateRecord>();
  for (const record of ours.length > 0 ? ours : records) {
    const held = byTransaction.get(record.transactionId);
    if (held === undefined || statusRank(record.orderStatus) > statusRank(held.orderStatus))
      byTransaction.set(record.transactionId, record);
  }
  const [first, ...others] = byTransaction.values();
  return others.every((r) => r.orderStatus === first?.orderStatus) ? first : undefined;
}
