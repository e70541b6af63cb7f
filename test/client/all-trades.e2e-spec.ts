/**
 * `account.allTrades()` reads the whole trade history page by page while the account-sync app keeps booking
 * new trades into its mirror: the answer is every trade of the moment the first page was read, each once.
 * Outside tester: paging by `offset` moved by the trades a sync booked between two pages, so the next page
 * repeated as many rows as were booked and the newest ones were never read (48 and 68 duplicates, `stale:false`).
 *
 * Real pieces: the sandbox venue over HTTP, a nats-server, the account-sync app (in the test process) and the
 * SDK. Trades are booked at the venue between the first and the second page (the progress callback holds the
 * reading back until the app has mirrored them: its trade query counts them).
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { GatewayClient } from '#client';
import { AccountSyncSubjects, Subjects } from '#contracts';
import { eventually } from '#testing';
import { SeedIds } from '../../apps/sandbox-venue/src/domain/seed.js';
import {
  ACCOUNT,
  admin,
  request,
  startAccountSyncStack,
  type AccountSyncStack,
} from '../account-sync/webhooks-stack.js';

/** More than two pages of the SDK (1000 a page), seeded in one admin call: their createdAt mostly tie. */
const SEEDED = 2_500;
/** Trades per page of `allTrades`. */
const PAGE = 1_000;
/** Booked while the history is being read. */
const BOOKED_BETWEEN_PAGES = 30;

const subjects = new AccountSyncSubjects(new Subjects('gw.v1', ACCOUNT));
let stack: AccountSyncStack;
let client: GatewayClient;

/**
 * How many trades the app's mirror holds, once its last read of the trades has ended (its trade query, as any
 * consumer asks it); undefined while it is stale (its first read not over yet).
 */
async function mirrored(): Promise<number | undefined> {
  const reply = await request<{ ok: true; total: number; stale: boolean }>(stack, subjects.query('trade'), {
    limit: 1,
  });
  return reply.stale ? undefined : reply.total;
}

/** The uuids of every trade the venue holds (the sandbox's own list). */
async function venueTradeUuids(): Promise<string[]> {
  const response = await fetch(`${stack.venue.adminUrl}/trades`);
  return ((await response.json()) as Array<{ uuid: string }>).map((trade) => trade.uuid);
}

function book(count: number): Promise<unknown> {
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

beforeAll(async () => {
  // a trade's webhooks make the app read the trades again within SYNC_TRIGGER_DELAY_MS (its schedule is hours)
  stack = await startAccountSyncStack({ startApp: false, env: { SYNC_TRIGGER_DELAY_MS: '20' } });
  await book(SEEDED);
  await stack.startApp();
  await eventually(async () => ((await mirrored()) === SEEDED ? true : undefined), {
    what: `${SEEDED} trades mirrored, their read over`,
    timeoutMs: 60_000,
    intervalMs: 200,
  });
  client = await GatewayClient.connect({ servers: stack.nats.url, account: ACCOUNT });
}, 120_000);

afterAll(async () => {
  await client?.close();
  await stack?.stop();
});

describe('allTrades while trades are booked between its pages', () => {
  it('returns every trade of the moment it started, each once, and counts them right', async () => {
    // what the venue holds now, all mirrored (a retry starts from the trades the first attempt booked too)
    const before = await venueTradeUuids();
    expect(before.length).toBeGreaterThan(2 * PAGE);
    await eventually(async () => ((await mirrored()) === before.length ? true : undefined), {
      what: 'every trade of the venue mirrored',
      timeoutMs: 30_000,
      intervalMs: 100,
    });
    const progress: Array<[number, number]> = [];
    const trades = await client.account.allTrades({}, async (read, total) => {
      progress.push([read, total]);
      if (progress.length > 1) return;
      // a sync lands between the first and the second page
      await book(BOOKED_BETWEEN_PAGES);
      await eventually(async () => ((await mirrored()) === before.length + BOOKED_BETWEEN_PAGES ? true : undefined), {
        what: 'the trades booked between the pages mirrored',
        timeoutMs: 30_000,
        intervalMs: 100,
      });
    });

    const uuids = trades.map((trade) => trade.uuid);
    const read = new Set(uuids);
    expect({
      repeated: uuids.length - read.size,
      missing: before.filter((uuid) => !read.has(uuid)).length,
    }).toEqual({ repeated: 0, missing: 0 });
    // the trades booked after the first page are newer than every trade it read: none of them is mixed in
    expect(read).toEqual(new Set(before));
    // newest first, as each page is
    const times = trades.map((trade) => Date.parse(trade.createdAt ?? ''));
    expect(times.every((at, i) => i === 0 || at <= (times[i - 1] as number))).toBe(true);
    // the count said after each page is what the reading ends with (not the trades booked meanwhile)
    const pages = Math.ceil(before.length / PAGE);
    expect(progress).toEqual(
      Array.from({ length: pages }, (_, i) => [Math.min((i + 1) * PAGE, before.length), before.length]),
    );
    expect(trades.stale).toBe(false);
    // a fresh reading has them all
    expect(await client.account.allTrades()).toHaveLength(before.length + BOOKED_BETWEEN_PAGES);
  }, 90_000);
});
