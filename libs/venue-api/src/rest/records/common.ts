/** Pieces shared by several records, and the `{data, total}` list envelope. */
import {
  integer,
  isJsonObject,
  listOf,
  optional,
  record,
  rowsOf,
  text,
  type Reader,
  type ShapeError,
} from './shape.js';

/** `{uuid, name}` references (§2.4 accountGroup, beneficiary, sender). */
export interface NamedRef {
  uuid: string;
  name?: string;
}

export const namedRefReader: Reader<NamedRef> = record<NamedRef>({ uuid: text, name: optional(text) });

/** A page of a `{data, total}` envelope; `total` counts every match, not just this page. */
export interface Page<T> {
  /** The rows that could be read (a list read leniently leaves out a row it cannot read, and tells). */
  data: T[];
  /** Sent as a number or (senders, §4.7) a string; read as a whole number either way. */
  total: number;
  /**
   * How many rows the venue sent on this page, read or not: what paging counts (§4.5 "until a response holds
   * fewer than `max` records", the next offset), never `data.length` — a left-out row must not end a walk early.
   */
  rows: number;
}

/**
 * A `{data, total}` page. Without `skipped` one unreadable row fails the page; with it (trades, transactions,
 * beneficiaries, senders) such a row is left out and told to `skipped`, and `rows` still counts it.
 */
export function pageOf<T>(item: Reader<T>, skipped?: (error: ShapeError) => void): Reader<Page<T>> {
  const envelope = record<Omit<Page<T>, 'rows'>>({
    data: skipped === undefined ? listOf(item) : rowsOf(item, skipped),
    total: integer,
  });
  return {
    optional: false,
    read(value, path) {
      const page = envelope.read(value, path);
      const sent = isJsonObject(value) && Array.isArray(value['data']) ? value['data'].length : page.data.length;
      return { ...page, rows: sent };
    },
  };
}

/** `{data}` without a total (R12 pairs, R11 limits). */
export interface DataList<T> {
  data: T[];
}

export function dataListOf<T>(item: Reader<T>): Reader<DataList<T>> {
  return record<DataList<T>>({ data: listOf(item) });
}
