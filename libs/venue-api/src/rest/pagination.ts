/**
 * Offset pagination of `{data, total}` lists (trades §4.5, transactions R9): "paginate until a response
 * holds fewer than `max` records". The lists are newest first, so a record booked during the walk shifts
 * later pages by one and a record can be seen twice; records already yielded (by uuid) are skipped.
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
    for (const record of page.data) {
      if (seen.has(record.uuid)) continue;
      seen.add(record.uuid);
      yield record;
    }
    if (page.data.length < pageSize) return;
    offset += page.data.length;
  }
}
