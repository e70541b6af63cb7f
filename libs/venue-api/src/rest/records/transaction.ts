/**
 * §2.9 transaction record: an element of the transaction list (R9) and the webhook body. Amounts are JSON
 * numbers on the wire and are read from their exact text (R15).
 */
import { parseJsonLossless } from '../../money/lossless-json.js';
import { decimalText, identifier, integer, nullable, oneOf, optional, record, text, type Reader } from './shape.js';

export type TransactionClass = 'OTCTRADE' | 'RFSTRADE' | 'COIN' | 'CASH';
export type TransactionState = 'PENDING' | 'PROCESSED' | 'REVERSED' | 'CANCELLED';
export type TransactionType = 'TRADE_CREDIT' | 'TRADE_DEBIT' | 'DEPOSIT' | 'WITHDRAWAL';

export interface TransactionRecord {
  /** Identifier; the idempotency key of webhook processing. */
  uuid: string;
  transactionClass: TransactionClass;
  userUuid?: string;
  amount: string;
  fee?: string;
  balanceBefore?: string;
  balanceAfter?: string;
  ccy: string;
  transactionState: TransactionState;
  transactionType: TransactionType;
  /** Epoch milliseconds. */
  received?: number;
  processed?: number;
  timestampMillis?: number;
  displayTitle: string | null;
  displayDescription: string | null;
  paymentTransferType: string | null;
  customRef?: string;
  quoteId?: string;
  tradeId?: string;
  tradeRef?: string;
  executedPrice?: string;
  /** YYYY-MM-DD. */
  settleDate?: string;
  beneficiaryUuid: string | null;
  /** AS7: not in §2.9's table; read when the venue sends it (the sandbox does, R29). */
  accountGroupUuid?: string;
}

export const transactionReader: Reader<TransactionRecord> = record<TransactionRecord>({
  uuid: identifier,
  transactionClass: oneOf('OTCTRADE', 'RFSTRADE', 'COIN', 'CASH'),
  userUuid: optional(text),
  amount: decimalText,
  fee: optional(decimalText),
  balanceBefore: optional(decimalText),
  balanceAfter: optional(decimalText),
  ccy: text,
  transactionState: oneOf('PENDING', 'PROCESSED', 'REVERSED', 'CANCELLED'),
  transactionType: oneOf('TRADE_CREDIT', 'TRADE_DEBIT', 'DEPOSIT', 'WITHDRAWAL'),
  received: optional(integer),
  processed: optional(integer),
  timestampMillis: optional(integer),
  displayTitle: nullable(text),
  displayDescription: nullable(text),
  paymentTransferType: nullable(text),
  customRef: optional(text),
  quoteId: optional(text),
  tradeId: optional(text),
  tradeRef: optional(text),
  executedPrice: optional(text),
  settleDate: optional(text),
  beneficiaryUuid: nullable(text),
  accountGroupUuid: optional(text),
});

/**
 * Reads a webhook notification body (§6.1: same shape as a transaction list record) from its raw text,
 * losslessly. @throws InvalidJsonError when the text is not JSON, ShapeError when it is not a record.
 */
export function parseTransactionNotification(bodyText: string): TransactionRecord {
  return transactionReader.read(parseJsonLossless(bodyText), 'notification');
}
