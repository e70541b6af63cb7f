/**
 * R10/AS3 internal transfers between account groups (§4.11, shape not shown). Every field of a record is
 * kept (`fields`, when the record has one not named here); the named ones are looked up under plausible
 * names. A record needs an identifier (`uuid`, or `id`/`transferUuid`) to be paged and deduplicated.
 */
import { ShapeError, integer, isJsonObject, rowsOf, type Reader } from './shape.js';
import { decimalField, extraFields, textField, type PlainFields } from './liberal.js';
import type { Page } from './common.js';

export interface TransferRecord {
  uuid: string;
  fromAccountGroupUuid?: string;
  toAccountGroupUuid?: string;
  ccy?: string;
  /** Decimal string. */
  amount?: string;
  state?: string;
  createdAt?: string;
  fields?: PlainFields;
}

const KNOWN = ['uuid', 'fromAccountGroupUuid', 'toAccountGroupUuid', 'ccy', 'amount', 'state', 'createdAt'] as const;

export const transferReader: Reader<TransferRecord> = {
  optional: false,
  read(value, path) {
    if (!isJsonObject(value)) throw new ShapeError(path, 'expected an object');
    const uuid = textField(value, ['uuid', 'id', 'transferUuid', 'transferId']);
    if (uuid === undefined) throw new ShapeError(`${path}.uuid`, 'no transfer identifier');
    const transfer: TransferRecord = { uuid };
    const set = <K extends keyof TransferRecord>(key: K, found: TransferRecord[K] | undefined) => {
      if (found !== undefined) transfer[key] = found;
    };
    set(
      'fromAccountGroupUuid',
      textField(value, ['fromAccountGroupUuid', 'fromAccountGroup', 'sourceAccountGroupUuid']),
    );
    set(
      'toAccountGroupUuid',
      textField(value, ['toAccountGroupUuid', 'toAccountGroup', 'destinationAccountGroupUuid']),
    );
    set('ccy', textField(value, ['ccy', 'currency']));
    set('amount', decimalField(value, ['amount', 'value']));
    set('state', textField(value, ['state', 'status', 'transferState']));
    set('createdAt', textField(value, ['createdAt', 'created', 'dateCreated', 'timestamp']));
    return { ...transfer, ...extraFields(value, KNOWN) };
  },
};

/**
 * `{data, total}`; a bare array or a missing total is read too (total = the rows sent). Rows are read one by one:
 * a row that cannot be read (no identifier) is left out and told to `skipped`, never the page lost with it.
 */
export function transferPageOf(skipped: (error: ShapeError) => void): Reader<Page<TransferRecord>> {
  const rows = rowsOf(transferReader, skipped);
  return {
    optional: false,
    read(value, path) {
      const list = Array.isArray(value)
        ? value
        : isJsonObject(value)
          ? (value['data'] ?? value['transfers'])
          : undefined;
      if (!Array.isArray(list)) throw new ShapeError(`${path}.data`, 'no list of transfers');
      const data = rows.read(list, `${path}.data`);
      const rawTotal = isJsonObject(value) ? value['total'] : undefined;
      const total = rawTotal === undefined || rawTotal === null ? list.length : integer.read(rawTotal, `${path}.total`);
      return { data, total, rows: list.length };
    },
  };
}
