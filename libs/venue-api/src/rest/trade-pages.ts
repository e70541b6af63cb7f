/**
 * Pagination of the trade list (§4.5): "paginate until a response holds fewer than `max` records".
 * The list is newest first, so a trade booked during the walk shifts later pages by one and a record can
 * be seen twice; records already yielded (by uuid) are skipped.
 */
import type { Page } from './records/common.js';
import type { Trade } from './records/trade.js';

export type TradePageFetcher = (max: number, offset: number) => Promise<Page<Trade>>;

export async function* walkTradePages(
  fetchPage: TradePageFetcher,
  pageSize: number,
  startOffset = 0,
): AsyncGenerator<Trade> {
  const seen = new Set<string>();
  let offset = startOffset;
  for (;;) {
    const page = await fetchPage(pageSize, offset);
    for (const trade of page.data) {
      if (seen.has(trade.uuid)) continue;
      seen.add(trade.uuid);
      yield trade;
    }
    if (page.data.length < pageSize) return;
    offset += page.data.length;
  }
}
