/** Pieces shared by several records, and the `{data, total}` list envelope. */
import { integer, listOf, optional, record, text, type Reader } from './shape.js';

/** `{uuid, name}` references (§2.4 accountGroup, beneficiary, sender). */
export interface NamedRef {
  uuid: string;
  name?: string;
}

export const namedRefReader: Reader<NamedRef> = record<NamedRef>({ uuid: text, name: optional(text) });

/** A page of a `{data, total}` envelope; `total` counts every match, not just this page. */
export interface Page<T> {
  data: T[];
  /** Sent as a number or (senders, §4.7) a string; read as a whole number either way. */
  total: number;
}

export function pageOf<T>(item: Reader<T>): Reader<Page<T>> {
  return record<Page<T>>({ data: listOf(item), total: integer });
}

/** `{data}` without a total (R12 pairs, R11 limits). */
export interface DataList<T> {
  data: T[];
}

export function dataListOf<T>(item: Reader<T>): Reader<DataList<T>> {
  return record<DataList<T>>({ data: listOf(item) });
}
