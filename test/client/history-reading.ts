/**
 * What the suites reading a whole history page by page while it grows share (all-trades, all-transactions):
 * desk trades booked at the sandbox, the app's own count of what it mirrored, and the verdict on a reading.
 */
import { AccountSyncSubjects, Subjects } from '#contracts';
import { eventually } from '#testing';
import { SeedIds } from '../../apps/sandbox-venue/src/domain/seed.js';
import { ACCOUNT, admin, request, type AccountSyncStack } from '../account-sync/webhooks-stack.js';

/** Records per page of `allTrades` and `allTransactions`. */
export const PAGE = 1_000;

const subjects = new AccountSyncSubjects(new Subjects('gw.v1', ACCOUNT));

/** `count` identical desk trades at the sandbox in one admin call (each with its two legs; their times mostly tie). */
export function bookDeskTrades(stack: AccountSyncStack, count: number): Promise<unknown> {
  return admin(stack.venue, '/trades/otc-bulk', {
    count,
    accountGroupUuid: SeedIds.defaultGroup,
    instrument: 'BTC.USD',
    side: 'BUY',
    baseAmount: '0.001',
    quoteAmount: '60.00',
    price: '60000.00',
  });
}

/**
 * How many records matching `query` the app holds, once its last read of them has ended (its query, as any
 * consumer asks it); undefined while it is stale (its first read not over yet).
 */
export async function mirrored(
  stack: AccountSyncStack,
  resource: 'trade' | 'transaction-list',
  query: object = {},
): Promise<number | undefined> {
  const reply = await request<{ ok: true; total: number; stale: boolean }>(stack, subjects.query(resource), {
    ...query,
    limit: 1,
  });
  return reply.stale ? undefined : reply.total;
}

/** Waits until `held()` says true (the app mirrored what the caller expects). */
export function untilMirrored(what: string, held: () => Promise<boolean>, timeoutMs = 30_000): Promise<unknown> {
  return eventually(async () => ((await held()) ? true : undefined), { what, timeoutMs, intervalMs: 100 });
}

/** Rows of a reading read more than once, and records of `expected` it never read. */
export function repeatedAndMissing(read: string[], expected: string[]): { repeated: number; missing: number } {
  const once = new Set(read);
  return { repeated: read.length - once.size, missing: expected.filter((uuid) => !once.has(uuid)).length };
}

/** The `progress(read, total)` calls of a reading of `count` records that arrived at none meanwhile. */
export function progressOf(count: number): Array<[number, number]> {
  return Array.from({ length: Math.ceil(count / PAGE) }, (_, i) => [Math.min((i + 1) * PAGE, count), count]);
}
