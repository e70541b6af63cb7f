/**
 * Offset pagination of `{data, total}` lists (trades §4.5, transactions R9): "paginate until a response
 * holds fewer than `max` records". The lists are newest first, so a record booked during the walk shifts
 * later pages by one and a record can be seen twice; records already yielded (by uuid) are skipped.
 *
 * A full page that brings no record not seen before ends the walk too: the venue ignores the paging parameters.
 *
 * Both walks count the rows the venue sent (`page.rows`), never the rows that could be read: a row left out as
 * unreadable must neither end a walk early nor shift the next offset (either would lose the trades after it).
 */
import type { Page } from './records/common.js';

export type PageFetcher<T> = (max: number, offset: number) => Promise<Page<T>>;

export async function* walkPages<T extends { uuid: string }>(
  fetchPage: PageFetcher<T>,
  pageSize: number,
  startOffset = 0,
): AsyncGenerator<T> {
  const seen = new Set<string>();
  let offset = startOffset;
  for (;;) {
    const page = await fetchPage(pageSize, offset);
    let fresh = 0;
    for (const record of page.data) {
      if (seen.has(record.uuid)) continue;
      seen.add(record.uuid);
      fresh += 1;
      yield record;
    }
    if (page.rows < pageSize) return;
    // A full page of records all seen before: a venue that ignores `offset` (or `max`) answers the same rows
    // again and again (AS3 sends them as guesses). Only a page with no record readable says nothing either way.
    if (fresh === 0 && page.data.length > 0) return;
    offset += page.rows;
  }
}

/**
 * A whole list, read: the records that could be read, and how many rows the venue sent that could not be
 * (left out and told row by row): a reader must not take a record missing from it as removed while that is not 0.
 */
export interface Listing<T> {
  records: T[];
  unreadable: number;
}

/**
 * AS6: lists whose service may answer fewer records than asked (participants: its own page size): walk on
 * until `total` distinct records were read; an empty page ends the walk whatever `total` promised.
 *
 * A page of readable records none of which is new ends it too: the service ignores `offset` (§4.6 says the
 * participants service ignores it on account details). The records `total` promised beyond those read are then
 * counted as unreadable, so that a reader does not take the records it never saw as removed.
 */
export async function walkToTotal<T extends { uuid: string }>(
  fetchPage: PageFetcher<T>,
  pageSize: number,
): Promise<Listing<T>> {
  const records = new Map<string, T>();
  let offset = 0;
  let unreadable = 0;
  for (;;) {
    const page = await fetchPage(pageSize, offset);
    let fresh = 0;
    for (const record of page.data) {
      if (records.has(record.uuid)) continue;
      records.set(record.uuid, record);
      fresh += 1;
    }
    unreadable += page.rows - page.data.length;
    offset += page.rows;
    if (fresh === 0 && page.data.length > 0 && offset < page.total) {
      const unseen = Math.max(1, page.total - records.size - unreadable);
      return { records: [...records.values()], unreadable: unreadable + unseen };
    }
    if (page.rows === 0 || offset >= page.total) return { records: [...records.values()], unreadable };
  }
}
