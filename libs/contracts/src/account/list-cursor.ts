/**
 * The cursor of the account-sync queries that page a growing history newest first (`acct.trade.query`,
 * `acct.transaction-list.query`). A reply's `next` is the position of its last record; passed back as `before`,
 * the next page starts right after it. Each query orders its records by a time the record never changes (a trade:
 * `createdAt`; a transaction leg: `received`) and the mirror drops none, so every record held when a page was
 * read and placed after it is still after it for the next page: records arriving meanwhile (newer ones) neither
 * repeat rows nor push rows out, as they do with `offset`. Opaque to a consumer: pass `next` back as it came.
 */
import { ValidateBy } from 'class-validator';

/**
 * A position in a newest-first order: `at` (epoch ms, a safe integer; a record without a readable time: 0)
 * newest first, a tie in `uuid` order (UTF-16 code units) — one total order, the same in every instance and
 * after a restart. Written `{at}:{uuid}`.
 */
export interface ListPosition {
  at: number;
  uuid: string;
}

/** A venue uuid is at most 1024 UTF-8 bytes (spec-gaps C8); the time at most 16 digits and a sign. */
const LIST_POSITION = /^(-?\d{1,16}):(.{1,1024})$/s;

export function listCursor(position: ListPosition): string {
  return `${position.at}:${position.uuid}`;
}

/** The position a cursor names; undefined when the value is not a cursor. */
export function parseListCursor(cursor: unknown): ListPosition | undefined {
  if (typeof cursor !== 'string') return undefined;
  const match = LIST_POSITION.exec(cursor);
  const at = Number(match?.[1]);
  if (match === null || !Number.isSafeInteger(at)) return undefined;
  return { at, uuid: match[2] as string };
}

/** The order of the paged queries: negative when `a` comes first (newer, or as new with the lower uuid). */
export function newestFirst(a: ListPosition, b: ListPosition): number {
  if (a.at !== b.at) return b.at - a.at;
  return a.uuid < b.uuid ? -1 : a.uuid > b.uuid ? 1 : 0;
}

/**
 * Property decorator: the value is the `next` of an earlier reply of `query`. The refusal names the field and
 * the query, never the value (which may be up to the payload's size).
 */
export function IsListCursor(query: string): PropertyDecorator {
  return ValidateBy({
    name: 'isListCursor',
    validator: {
      validate: (value) => parseListCursor(value) !== undefined,
      defaultMessage: (args) => `${args?.property ?? 'value'} must be the \`next\` of an earlier ${query} reply`,
    },
  });
}
