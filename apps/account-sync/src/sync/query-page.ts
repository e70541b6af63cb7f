/**
 * How a state query's reply is put together from the records that match it: the page (`limit`, `offset`), the
 * `total`, how current they are (`asOf`, `stale`) — and, for the queries that page a growing history
 * (trades, transaction legs), the cursor: `before` in, `next` out (libs/contracts account/list-cursor.ts).
 */
import { listCursor, newestFirst, parseListCursor, type Freshness, type ListPosition } from '#contracts';
import type { StateQueryReply } from '#contracts';
import type { ResourceFreshness } from './sync-schedule-machine.js';

const DEFAULT_LIMIT = 100;

/** The paging fields of a query (`before`: a cursor the contract validated). */
export interface PageQuery {
  limit?: number;
  offset?: number;
  before?: string;
}

/** The reply fields of a resource's freshness (`asOf` null: no good read since this process started). */
function replyFreshness({ asOf, stale }: ResourceFreshness): Freshness {
  return { asOf: asOf ?? null, stale };
}

/** Every record, as one reply. */
export function all<T>(records: T[], freshness: ResourceFreshness, total: number = records.length): StateQueryReply<T> {
  return { ok: true, total, records, ...replyFreshness(freshness) };
}

function page<T>(records: T[], query: PageQuery, freshness: ResourceFreshness): StateQueryReply<T> {
  const start = query.offset ?? 0;
  return all(records.slice(start, start + (query.limit ?? DEFAULT_LIMIT)), freshness, records.length);
}

/**
 * One page of a history read newest first (`newestFirst` on each record's position): the records after
 * `before`, from `offset` on; `next` the position of the page's last record, for the page after it. `records`
 * are the ones matching the query's filters, in any order.
 */
export function cursorPage<T>(
  records: Iterable<T>,
  positionOf: (record: T) => ListPosition,
  query: PageQuery,
  freshness: ResourceFreshness,
): StateQueryReply<T> {
  // validated by the contract: a cursor that does not parse never gets here
  const before = query.before === undefined ? undefined : parseListCursor(query.before);
  const ordered = [...records]
    .map((record) => [positionOf(record), record] as const)
    .filter(([position]) => before === undefined || newestFirst(before, position) < 0)
    .sort(([a], [b]) => newestFirst(a, b));
  const reply = page(ordered, query, freshness);
  if (!reply.ok) return reply;
  const last = reply.records.at(-1);
  return {
    ...reply,
    records: reply.records.map(([, record]) => record),
    ...(last === undefined ? {} : { next: listCursor(last[0]) }),
  };
}
