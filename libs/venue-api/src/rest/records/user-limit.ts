/**
 * R11/AS1 credit limits (§4.11, shape not shown), decimals as strings. Read liberally: each field under any
 * plausible name, the record's every field kept in `fields` when it carries one we do not name; the list as
 * `data`, `limits`, `creditLimits`, or a bare array. A record with none of the guessed names is still kept.
 */
import { ShapeError, isJsonObject, type Reader } from './shape.js';
import { decimalField, extraFields, recordList, textField, type PlainFields } from './liberal.js';
import type { DataList } from './common.js';

export interface CreditLimit {
  accountGroupUuid?: string;
  ccy?: string;
  limit?: string;
  used?: string;
  available?: string;
  /** Every field as sent (numbers as exact text), when the record has any field not named above. */
  fields?: PlainFields;
}

export interface CreditLimits extends DataList<CreditLimit> {
  resultCode?: string;
  /** Epoch milliseconds as text. */
  timestamp?: string;
}

const KNOWN = ['accountGroupUuid', 'ccy', 'limit', 'used', 'available'] as const;

export function creditLimitOf(source: Record<string, unknown>): CreditLimit {
  const limit: CreditLimit = {};
  const set = <K extends keyof CreditLimit>(key: K, value: CreditLimit[K] | undefined) => {
    if (value !== undefined) limit[key] = value;
  };
  set('accountGroupUuid', textField(source, ['accountGroupUuid', 'accountGrpUuid', 'accountGroupId', 'accountGroup']));
  set('ccy', textField(source, ['ccy', 'currency', 'ccyCode', 'asset']));
  set('limit', decimalField(source, ['limit', 'creditLimit', 'limitAmount', 'total', 'max']));
  set('used', decimalField(source, ['used', 'utilised', 'utilized', 'usedAmount', 'consumed', 'exposure']));
  set('available', decimalField(source, ['available', 'remaining', 'availableAmount', 'headroom', 'free']));
  return { ...limit, ...extraFields(source, KNOWN) };
}

export const creditLimitsReader: Reader<CreditLimits> = {
  optional: false,
  read(value, path) {
    const list = recordList(value, ['data', 'limits', 'creditLimits', 'userLimits', 'items']);
    if (list === undefined) throw new ShapeError(path, 'no list of credit limits');
    const result: CreditLimits = { data: list.map(creditLimitOf) };
    if (isJsonObject(value)) {
      const resultCode = textField(value, ['resultCode']);
      const timestamp = textField(value, ['timestamp']);
      if (resultCode !== undefined) result.resultCode = resultCode;
      if (timestamp !== undefined) result.timestamp = timestamp;
    }
    return result;
  },
};
