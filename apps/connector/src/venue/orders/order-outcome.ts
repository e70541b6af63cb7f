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
 * Picks the record that says the most about our order among the array the endpoint returns (the id may be
 * reused, so several can match): the highest status of the lattice, bound to our session first.
 */
export function bestStateRecord(records: readonly OrderStateRecord[], sessionId: string): OrderStateRecord | undefined {
  const rank = (r: OrderStateRecord): number => statusRank(r.orderStatus) * 2 + (r.sessionId === sessionId ? 1 : 0);
  let best: OrderStateRecord | undefined;
  for (const record of records) if (best === undefined || rank(record) > rank(best)) best = record;
  return best;
}
