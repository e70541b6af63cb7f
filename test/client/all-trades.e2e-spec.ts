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
import { ACCOUNT, startAccountSyncStack, type AccountSyncStack } from '../account-sync/webhooks-stack.js';
import { PAGE, bookDeskTrades, mirrored, progressOf, repeatedAndMissing, untilMirrored } from './history-reading.js';

/** More than two pages of the SDK (1000 a page), seeded in one admin call: their createdAt mostly tie. */
const SEEDED = 2_500;
/** Booked while the history is being read. */
const BOOKED_BETWEEN_PAGES = 30;

let stack: AccountSyncStack;
let client: GatewayClient;

/** The uuids of every trade the venue holds (the sandbox's own list). */
async function venueTradeUuids(): Promise<string[]> {
  const response = await fetch(`${stack.venue.adminUrl}/trades`);
  return ((await response.json()) as Array<{ uuid: string }>).map((trade) => trade.uuid);
}

const trades = (count: number) => async () => (await mirrored(stack, 'trade')) === count;

beforeAll(async () => {
  // a trade's webhooks make the app read the trades again within SYNC_TRIGGER_DELAY_MS (its schedule is hours)
  stack = await startAccountSyncStack({ startApp: false, env: { SYNC_TRIGGER_DELAY_MS: '20' } });
  await bookDeskTrades(stack, SEEDED);
  await stack.startApp();
  await untilMirrored(`${SEEDED} trades mirrored, their read over`, trades(SEEDED), 60_000);
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
    await untilMirrored('every trade of the venue mirrored', trades(before.length));
    const progress: Array<[number, number]> = [];
    const read = await client.account.allTrades({}, async (done, total) => {
      progress.push([done, total]);
      if (progress.length > 1) return;
      // a sync lands between the first and the second page
      await bookDeskTrades(stack, BOOKED_BETWEEN_PAGES);
      await untilMirrored('the trades booked between the pages mirrored', trades(before.length + BOOKED_BETWEEN_PAGES));
    });

    const uuids = read.map((trade) => trade.uuid);
    expect(repeatedAndMissing(uuids, before)).toEqual({ repeated: 0, missing: 0 });
    // the trades booked after the first page are newer than every trade it read: none of them is mixed in
    expect(new Set(uuids)).toEqual(new Set(before));
    // newest first, as each page is
    const times = read.map((trade) => Date.parse(trade.createdAt ?? ''));
    expect(times.every((at, i) => i === 0 || at <= (times[i - 1] as number))).toBe(true);
    // the count said after each page is what the reading ends with (not the trades booked meanwhile)
    expect(progress).toEqual(progressOf(before.length));
    expect(read.stale).toBe(false);
    // a fresh reading has them all
    expect(await client.account.allTrades()).toHaveLength(before.length + BOOKED_BETWEEN_PAGES);
  }, 90_000);
});
