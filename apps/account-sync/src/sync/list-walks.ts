/**
 * How the REST sync walks the two long lists (trades §4.5, transaction legs R9) between full reads, so that its
 * cost per run does not grow with the history or with the records still pending (docs/account-sync.md, spec-gaps
 * AS9/AS10). Pure decisions, unit-tested without I/O; newest-first-list.ts does the reads.
 *
 * - **Recent read** (after a trigger, and at the start of each periodic run): the list newest first, a short first
 *   page and then whole pages, until a page shows a record already held in the same state — and, after a read that
 *   failed, until it is back below where the last good one started (`floor`). Its cost is what is new.
 * - **Sweep** (periodic runs only): one pass walks the window from the oldest record still pending (minus the
 *   overlap; never later than the newest held minus the overlap) to now, by offset, at most `pages` pages per run,
 *   and starts again when it reaches the end. A record that existed when a pass started is read by its end: the
 *   list is newest first and nothing leaves it (no state filter), so rows arriving meanwhile only push the rest
 *   down (read twice, never skipped). A state change of a pending record is therefore seen within two passes.
 */

/** Rows of the first page of a recent read (the spec's default page): an order outcome adds one or two. */
export const RECENT_FIRST_PAGE = 50;

/** Where a sweep pass stands: the window's start (epoch ms; undefined: the whole list) and the rows read so far. */
export interface SweepPass {
  readonly from: number | undefined;
  readonly offset: number;
  readonly startedAt: number;
}

/** What one page of a walk tells. */
export interface PageSeen {
  /** Rows the venue sent (read or not). */
  readonly rows: number;
  /** Rows asked for. */
  readonly max: number;
  /** Some row was held already, in the same state. */
  readonly heldUnchanged: boolean;
  /** The oldest time (createdAt / received) on the page, when any row has one. */
  readonly oldestAt: number | undefined;
}

/** Whether a recent read stops after this page. */
export function recentReadEnds(page: PageSeen, floor: number | undefined): boolean {
  if (page.rows < page.max) return true; // the end of the list
  if (!page.heldUnchanged) return false;
  return floor === undefined || page.oldestAt === undefined || page.oldestAt <= floor;
}

/** Whether a sweep pass ends at this page: a short page, or one wholly older than the window (`from` ignored). */
export function sweepPassEnds(page: PageSeen, from: number | undefined, newestAt: number | undefined): boolean {
  if (page.rows < page.max) return true;
  return from !== undefined && newestAt !== undefined && newestAt < from;
}

/**
 * Where the next sweep pass starts: the oldest pending record's time, never later than the newest record held,
 * minus the overlap (records booked late with an earlier time). Undefined (the whole list) when nothing is held.
 */
export function sweepWindowStart(
  newestHeld: number | undefined,
  oldestPending: number | undefined,
  overlapMs: number,
): number | undefined {
  if (newestHeld === undefined && oldestPending === undefined) return undefined;
  const start = Math.min(newestHeld ?? Number.POSITIVE_INFINITY, oldestPending ?? Number.POSITIVE_INFINITY);
  return start - overlapMs;
}

/** Newest and oldest of some times (undefined ones skipped). */
export function timeSpan(times: Iterable<number | undefined>): { newest?: number; oldest?: number } {
  let newest: number | undefined;
  let oldest: number | undefined;
  for (const at of times) {
    if (at === undefined || Number.isNaN(at)) continue;
    if (newest === undefined || at > newest) newest = at;
    if (oldest === undefined || at < oldest) oldest = at;
  }
  return { ...(newest === undefined ? {} : { newest }), ...(oldest === undefined ? {} : { oldest }) };
}

/** Each item mapped, lazily (a time of every record held, without copying them). */
export function* mapIterable<T, U>(items: Iterable<T>, map: (item: T) => U): Iterable<U> {
  for (const item of items) yield map(item);
}
