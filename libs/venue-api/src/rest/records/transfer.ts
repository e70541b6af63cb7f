/** R10 internal transfers between account groups (§4.11). */
import { decimalText, optional, record, text, type Reader } from './shape.js';

export interface TransferRecord {
  uuid: string;
  fromAccountGroupUuid?: string;
  toAccountGroupUuid?: string;
  ccy?: string;
  /** Decimal string. */
  amount?: string;
  state?: string;
  createdAt?: string;
}

export const transferReader: Reader<TransferRecord> = record<TransferRecord>({
  uuid: text,
  fromAccountGroupUuid: optional(text),
  toAccountGroupUuid: optional(text),
  ccy: optional(text),
  amount: optional(decimalText),
  state: optional(text),
  createdAt: optional(text),
});
