/** R11 credit limits (§4.11), decimals as strings. */
import type { DataList } from './common.js';
import { decimalText, digitsOrText, listOf, optional, record, text, type Reader } from './shape.js';

export interface CreditLimit {
  accountGroupUuid: string;
  ccy: string;
  limit: string;
  used: string;
  available: string;
}

export interface CreditLimits extends DataList<CreditLimit> {
  resultCode?: string;
  /** Epoch milliseconds as text. */
  timestamp?: string;
}

const creditLimitReader = record<CreditLimit>({
  accountGroupUuid: text,
  ccy: text,
  limit: decimalText,
  used: decimalText,
  available: decimalText,
});

export const creditLimitsReader: Reader<CreditLimits> = record<CreditLimits>({
  data: listOf(creditLimitReader),
  resultCode: optional(text),
  timestamp: optional(digitsOrText),
});
