/**
 * A journal record as pre-trade risk's `restore` takes it: after a restart (every open order) and when this
 * instance takes over a dead instance's order, so exposure and windows count it where it is now handled.
 */
import type { RiskOrder } from '../risk/risk-gate.js';
import type { OrderRecord } from './order-record.js';

export function riskRestoreOf(record: OrderRecord): {
  order: RiskOrder;
  admittedAt: number;
  event?: { kind: 'unknown'; orderId: string };
} {
  const order: RiskOrder = {
    orderId: record.orderId,
    strategyId: record.strategyId,
    accountGroup: record.accountGroup,
    side: record.side,
    instrument: record.instrument ?? '',
    quote: {
      quoteId: record.quoteId,
      status: 'live',
      ...(record.quote.venueTimestamp !== undefined ? { venueTimestamp: record.quote.venueTimestamp } : {}),
      quoteExpiresAt: record.quote.quoteExpiresAt,
      ...(record.quote.price !== undefined ? { price: record.quote.price } : {}),
      ...(record.quote.quantity !== undefined ? { quantity: record.quote.quantity } : {}),
      ...(record.quote.quoteAmount !== undefined ? { quoteAmount: record.quote.quoteAmount } : {}),
    },
    ...(record.worstPrice !== undefined ? { worstPrice: record.worstPrice } : {}),
  };
  const unknown = record.state === 'UNKNOWN' || record.state === 'INDETERMINATE';
  return {
    order,
    admittedAt: record.acceptedAt,
    ...(unknown ? { event: { kind: 'unknown', orderId: record.orderId } } : {}),
  };
}
