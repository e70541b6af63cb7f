/**
 * §2.9 transaction record: an element of the transaction list (R9) and the webhook body. Amounts are JSON
 * numbers on the wire and are read from their exact text (R15).
 *
 * What a leg needs to be stored and published (the ledger orders a uuid's states, C8): `uuid`,
 * `transactionState` (one of §3.3's four: the ledger cannot rank another), `amount`, `ccy` (a currency code:
 * 1-16 visible characters, WH15), and a
 * `transactionClass`/`transactionType` string (a value outside §2.9's lists is kept as sent). Every other field
 * is read liberally: a value of another kind reads as not known, the leg is kept.
 */
import { InvalidJsonError } from '../../money/invalid-json-error.js';
import { parseJsonLossless } from '../../money/lossless-json.js';
import {
  currencyCode,
  decimalText,
  identifier,
  integer,
  isJsonObject,
  lenient,
  nullableLenient,
  oneOf,
  openText,
  record,
  ShapeError,
  text,
  type Open,
  type Reader,
} from './shape.js';

export type TransactionClass = 'OTCTRADE' | 'RFSTRADE' | 'COIN' | 'CASH';
export type TransactionState = 'PENDING' | 'PROCESSED' | 'REVERSED' | 'CANCELLED';
export type TransactionType = 'TRADE_CREDIT' | 'TRADE_DEBIT' | 'DEPOSIT' | 'WITHDRAWAL';

export interface TransactionRecord {
  /** Identifier; the idempotency key of webhook processing. */
  uuid: string;
  transactionClass: Open<TransactionClass>;
  userUuid?: string;
  amount: string;
  fee?: string;
  balanceBefore?: string;
  balanceAfter?: string;
  ccy: string;
  transactionState: TransactionState;
  transactionType: Open<TransactionType>;
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
  transactionClass: openText<TransactionClass>(),
  userUuid: lenient(text),
  amount: decimalText,
  fee: lenient(decimalText),
  balanceBefore: lenient(decimalText),
  balanceAfter: lenient(decimalText),
  ccy: currencyCode,
  transactionState: oneOf('PENDING', 'PROCESSED', 'REVERSED', 'CANCELLED'),
  transactionType: openText<TransactionType>(),
  received: lenient(integer),
  processed: lenient(integer),
  timestampMillis: lenient(integer),
  displayTitle: nullableLenient(text),
  displayDescription: nullableLenient(text),
  paymentTransferType: nullableLenient(text),
  customRef: lenient(text),
  quoteId: lenient(text),
  tradeId: lenient(text),
  tradeRef: lenient(text),
  executedPrice: lenient(text),
  settleDate: lenient(text),
  beneficiaryUuid: nullableLenient(text),
  accountGroupUuid: lenient(text),
});

/**
 * Reads a webhook notification body (§6.1: same shape as a transaction list record) from its raw text,
 * losslessly. @throws InvalidJsonError when the text is not JSON, ShapeError when it is not a record.
 */
export function parseTransactionNotification(bodyText: string): TransactionRecord {
  return transactionReader.read(parseJsonLossless(bodyText), 'notification');
}

/**
 * A webhook notification, read: the record; or why not, with the `uuid` when that much was readable (the
 * notification names a transaction that exists, and must not be lost: the receiver asks for it again, §6.1 rule 5)
 * — none when the body is not JSON or carries no usable uuid (nothing a retry could make usable).
 */
export type NotificationReading =
  { ok: true; record: TransactionRecord } | { ok: false; problem: string; uuid?: string };

export function readTransactionNotification(bodyText: string): NotificationReading {
  let value: unknown;
  try {
    value = parseJsonLossless(bodyText);
  } catch (error) {
    if (error instanceof InvalidJsonError) return { ok: false, problem: error.message };
    throw error;
  }
  try {
    return { ok: true, record: transactionReader.read(value, 'notification') };
  } catch (error) {
    if (!(error instanceof ShapeError)) throw error;
    const uuid = isJsonObject(value) ? lenient(identifier).read(value['uuid'], 'notification.uuid') : undefined;
    return uuid === undefined ? { ok: false, problem: error.message } : { ok: false, problem: error.message, uuid };
  }
}
