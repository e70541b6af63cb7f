/**
 * `account.allTransactions()` reads the whole transaction list page by page while legs keep arriving (webhooks,
 * the syncs they trigger) and old ones change state: the answer is every leg of the moment the first page was
 * read, each once. Paged by `offset`, the legs that arrived between two pages moved every row down: the next page
 * repeated as many rows as arrived and the oldest were never read.
 *
 * Real pieces: the sandbox venue over HTTP (posting real webhooks), a nats-server, the account-sync app (in the
 * test process, reading the list every second) and the SDK. Between the first and the second page, trades are booked at the venue (two legs
 * each) and the oldest legs — deposits, read on the last page — are processed (the venue stamps their
 * `timestampMillis` again); the progress callback holds the reading back until the app has mirrored both.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { GatewayClient } from '#client';
import { AccountSyncSubjects, Subjects } from '#contracts';
import { SeedIds } from '../../apps/sandbox-venue/src/domain/seed.js';
import {
  ACCOUNT,
  admin,
  request,
  startAccountSyncStack,
  type AccountSyncStack,
} from '../account-sync/webhooks-stack.js';
import { PAGE, bookDeskTrades, mirrored, progressOf, repeatedAndMissing, untilMirrored } from './history-reading.js';

/** Desk trades seeded in one admin call, two legs each: more than two pages of the SDK (1000 a page). */
const SEEDED_TRADES = 1_100;
/** PENDING deposits made before them: the oldest legs, processed while the list is being read. */
const DEPOSITS = 3;
/** Trades booked while the list is being read (two legs each). */
const BOOKED_BETWEEN_PAGES = 30;

let stack: AccountSyncStack;
let client: GatewayClient;
const deposits: string[] = [];

/** The uuids of every leg the venue holds (the sandbox's own list). */
async function venueLegUuids(): Promise<string[]> {
  const response = await fetch(`${stack.venue.adminUrl}/transactions`);
  return ((await response.json()) as Array<{ uuid: string }>).map((leg) => leg.uuid);
}

const legs = (count: number) => async () => (await mirrored(stack, 'transaction-list')) === count;

beforeAll(async () => {
  // the query answers the legs read from the venue's list (a webhook alone does not trigger that read): every second
  stack = await startAccountSyncStack({
    startApp: false,
    env: { SYNC_FAST_INTERVAL_MS: '1000', SYNC_SLOW_INTERVAL_MS: '60000' },
  });
  for (let i = 0; i < DEPOSITS; i += 1) {
    const leg = await admin<{ uuid: string }>(stack.venue, '/deposits', {
      accountGroupUuid: SeedIds.defaultGroup,
      ccy: 'USD',
      amount: '100.00',
      customRef: `all-transactions-${i}`,
    });
    deposits.push(leg.uuid);
  }
  await bookDeskTrades(stack, SEEDED_TRADES);
  await stack.startApp();
  const held = (await venueLegUuids()).length;
  await untilMirrored(`${held} legs mirrored, their read over`, legs(held), 90_000);
  client = await GatewayClient.connect({ servers: stack.nats.url, account: ACCOUNT });
}, 180_000);

afterAll(async () => {
  await client?.close();
  await stack?.stop();
});

describe('allTransactions while legs arrive and change state between its pages', () => {
  it('returns every leg of the moment it started, each once, in one order, and counts them right', async () => {
    // what the venue holds now, all mirrored (a retry starts from the legs the first attempt made too)
    const before = await venueLegUuids();
    expect(before.length).toBeGreaterThan(2 * PAGE);
    await untilMirrored('every leg of the venue mirrored', legs(before.length));
    const progress: Array<[number, number]> = [];
    const read = await client.account.allTransactions({}, async (done, total) => {
      progress.push([done, total]);
      if (progress.length > 1) return;
      // webhooks and the syncs after them land between the first and the second page
      await bookDeskTrades(stack, BOOKED_BETWEEN_PAGES);
      // (a retry finds them processed already: 409)
      for (const uuid of deposits) await admin(stack.venue, `/transactions/${uuid}/process`).catch(() => undefined);
      await untilMirrored(
        'the legs booked and processed between the pages mirrored',
        async () =>
          (await legs(before.length + 2 * BOOKED_BETWEEN_PAGES)()) &&
          (await mirrored(stack, 'transaction-list', { type: 'DEPOSIT', state: 'PENDING' })) === 0,
      );
    });

    const uuids = read.map((leg) => leg.uuid);
    expect(repeatedAndMissing(uuids, before)).toEqual({ repeated: 0, missing: 0 });
    // the legs booked after the first page are newer than every leg it read: none of them is mixed in
    expect(new Set(uuids)).toEqual(new Set(before));
    // newest received first, as each page is; the deposits, processed meanwhile, kept their place (the oldest)
    const times = read.map((leg) => leg.received as number);
    expect(times.every((at, i) => i === 0 || at <= (times[i - 1] as number))).toBe(true);
    expect(new Set(uuids.slice(-DEPOSITS))).toEqual(new Set(deposits));
    expect(read.slice(-DEPOSITS).map((leg) => leg.transactionState)).toEqual(Array(DEPOSITS).fill('PROCESSED'));
    // the count said after each page is what the reading ends with (not the legs that arrived meanwhile)
    expect(progress).toEqual(progressOf(before.length));
    expect(read.stale).toBe(false);
    // a fresh reading has them all
    expect(await client.account.allTransactions()).toHaveLength(before.length + 2 * BOOKED_BETWEEN_PAGES);
  }, 90_000);

  it('a cursor that is not one is refused, naming the field, without echoing it', async () => {
    const reply = await request<{ ok: false; error: { code: string; message: string } }>(
      stack,
      new AccountSyncSubjects(new Subjects('gw.v1', ACCOUNT)).query('transaction-list'),
      { before: `not-a-cursor-${'x'.repeat(2_000)}` },
    );
    expect(reply).toMatchObject({ ok: false, error: { code: 'INVALID_REQUEST' } });
    expect(reply.error.message).toBe('before must be the `next` of an earlier transaction list query reply');
  });
});
