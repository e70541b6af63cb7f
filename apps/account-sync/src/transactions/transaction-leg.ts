/** The venue's transaction record (§2.9) as the published leg: the same fields, amounts as exact strings. */
import type { TransactionLeg } from '#contracts';
import type { TransactionRecord } from '#venue-api';

export function legOf(record: TransactionRecord): TransactionLeg {
  const leg: TransactionLeg = {
    uuid: record.uuid,
    transactionClass: record.transactionClass,
    transactionType: record.transactionType,
    transactionState: record.transactionState,
    ccy: record.ccy,
    amount: record.amount,
  };
  const optional = [
    'fee',
    'balanceBefore',
    'balanceAfter',
    'userUuid',
    'received',
    'processed',
    'timestampMillis',
    'displayTitle',
    'displayDescription',
    'paymentTransferType',
    'customRef',
    'quoteId',
    'tradeId',
    'tradeRef',
    'executedPrice',
    'settleDate',
    'beneficiaryUuid',
  ] as const;
  const target = leg as unknown as Record<string, unknown>;
  for (const field of optional) {
    const value = record[field];
    if (value !== undefined) target[field] = value;
  }
  return leg;
}
