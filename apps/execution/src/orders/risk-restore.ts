/**
 * A journal record as pre-trade risk's `restore` takes it: after a restart (every order still open in the
 * journal, final ones included: the crash may have come before risk stored their fill) and when this instance
 * takes over a dead instance's order, so exposure and windows count it where it is now handled.
 */
import type { RiskOrder, RiskOrderEvent, UndoneFill } from '../risk/risk-gate.js';
import { isFinalState, type OrderRecord } from './order-record.js';

/** What a final order tells risk: its fill (the quote's amounts when the venue's are not known), or not executed. */
export function finalRiskEvent(record: OrderRecord): RiskOrderEvent {
  if (record.state !== 'SUCCESS') return { kind: 'not-executed', orderId: record.orderId };
  const fill = record.fill;
  return {
    kind: 'filled',
    orderId: record.orderId,
    baseAmount: fill?.baseAmount ?? record.quote.quantity ?? '0',
    quoteAmount: fill?.quoteAmount ?? record.quote.quoteAmount ?? '0',
    price: fill?.price ?? record.quote.price ?? '0',
    ...(record.instrument !== undefined
      ? {
          order: {
            strategyId: record.strategyId,
            accountGroup: record.accountGroup,
            side: record.side,
            instrument: record.instrument,
          },
        }
      : {}),
  };
}

/**
 * What risk takes back when the venue undoes a SUCCESS order's trade: the amounts its `filled` event counted.
 * Undefined when the order's currencies are not known (neither its instrument nor its fill names them).
 */
export function undoneRiskEvent(record: OrderRecord): UndoneFill | undefined {
  const filled = finalRiskEvent(record);
  const instrument =
    record.instrument ?? (record.fill ? `${record.fill.baseCurrency}.${record.fill.quoteCurrency}` : undefined);
  if (filled.kind !== 'filled' || instrument === undefined) return undefined;
  return {
    kind: 'undone',
    orderId: record.orderId,
    baseAmount: filled.baseAmount,
    quoteAmount: filled.quoteAmount,
    order: { strategyId: record.strategyId, accountGroup: record.accountGroup, side: record.side, instrument },
  };
}

export function riskRestoreOf(record: OrderRecord): {
  order: RiskOrder;
  admittedAt: number;
  event?: RiskOrderEvent;
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
  const event: RiskOrderEvent | undefined = isFinalState(record.state)
    ? finalRiskEvent(record)
    : unknown
      ? { kind: 'unknown', orderId: record.orderId }
      : undefined;
  return { order, admittedAt: record.acceptedAt, ...(event !== undefined ? { event } : {}) };
}
