import { describe, expect, it } from '@jest/globals';
import { parseListCursor, type TradeQuery, type TransactionListQuery } from '#contracts';
import type { Trade, TransactionRecord } from '#venue-api';
import { ofAccountGroup, tradePage, transactionListPage } from './state-queries.js';

const FRESH = { asOf: 1_000, stale: false };

function trade(uuid: string, createdAt?: string, state = 'SETTLED'): Trade {
  return { uuid, state, ...(createdAt === undefined ? {} : { createdAt }) };
}

function uuidsOf(trades: Trade[], query: TradeQuery): string[] {
  const reply = tradePage(trades, query, FRESH);
  if (!reply.ok) throw new Error('refused');
  return reply.records.map((t) => t.uuid);
}

/** Every page of a query read by cursor, `between(page)` run after each (the mirror moving on). */
function readByCursor(trades: Trade[], limit: number, between: (page: number) => void = () => undefined): string[] {
  const read: string[] = [];
  let before: string | undefined;
  for (let page = 1; ; page += 1) {
    const reply = tradePage(trades, { limit, ...(before === undefined ? {} : { before }) }, FRESH);
    if (!reply.ok) throw new Error('refused');
    read.push(...reply.records.map((t) => t.uuid));
    if (reply.records.length < limit) return read;
    before = reply.next;
    between(page);
  }
}

describe('trade query pages', () => {
  // three trades in one millisecond (a bulk booking), in the mirror's own (arbitrary) order
  const T1 = '2026-01-01T10:00:00.000Z';
  const T2 = '2026-01-01T10:00:01.000Z';
  const held = () => [trade('c', T1), trade('a', T1), trade('old'), trade('b', T1), trade('new', T2)];

  it('newest first, a tie by uuid, a trade without createdAt last: one order whatever the mirror holds first', () => {
    expect(uuidsOf(held(), {})).toEqual(['new', 'a', 'b', 'c', 'old']);
    expect(uuidsOf(held().reverse(), {})).toEqual(['new', 'a', 'b', 'c', 'old']);
  });

  it('next is the position of the last record; before starts right after it, within a tie too', () => {
    const first = tradePage(held(), { limit: 2 }, FRESH);
    if (!first.ok) throw new Error('refused');
    expect(first.records.map((t) => t.uuid)).toEqual(['new', 'a']);
    expect(parseListCursor(first.next)).toEqual({ at: Date.parse(T1), uuid: 'a' });
    const second = tradePage(held(), { limit: 2, before: first.next as string }, FRESH);
    // total counts what matches every filter, the cursor included: this page and what comes after it
    expect(second).toMatchObject({ ok: true, total: 3, asOf: 1_000, stale: false });
    expect(uuidsOf(held(), { limit: 2, before: first.next as string })).toEqual(['b', 'c']);
    // offset skips rows after the cursor; an empty page has no next
    expect(uuidsOf(held(), { before: first.next as string, offset: 2 })).toEqual(['old']);
    expect(tradePage(held(), { before: first.next as string, offset: 3 }, FRESH)).not.toHaveProperty('next');
  });

  it('trades booked between two pages neither repeat a trade nor push one out (an offset does both)', () => {
    const history = Array.from({ length: 25 }, (_, i) =>
      trade(`t${String(i).padStart(2, '0')}`, new Date(Date.UTC(2026, 0, 1, 0, 0, i % 5)).toISOString()),
    );
    const mirror = [...history];
    const booked = (page: number) => {
      for (let i = 0; i < 3; i += 1) mirror.push(trade(`new-${page}-${i}`, `2026-02-0${page}T00:00:00Z`));
    };
    const read = readByCursor(mirror, 10, booked);
    expect(read).toHaveLength(history.length);
    expect(new Set(read)).toEqual(new Set(history.map((t) => t.uuid)));

    // the same reading by offset: the rows booked before the second page come back, the oldest never do
    const byOffset: string[] = [];
    const moving = [...history];
    for (let page = 1; page <= 3; page += 1) {
      byOffset.push(...uuidsOf(moving, { limit: 10, offset: byOffset.length }));
      for (let i = 0; i < 3; i += 1) moving.push(trade(`new-${page}-${i}`, `2026-02-0${page}T00:00:00Z`));
    }
    expect(byOffset).toHaveLength(history.length + 3 + 2);
    expect(new Set(byOffset).size).toBe(byOffset.length - 6);
    expect(history.filter((t) => !byOffset.includes(t.uuid))).not.toEqual([]);
  });

  it('filters apply before the page: total and next count the matching trades only', () => {
    const trades = [trade('p1', T2, 'PENDING_SETTLEMENT'), ...held(), trade('p2', T1, 'PENDING_SETTLEMENT')];
    const reply = tradePage(trades, { state: 'PENDING_SETTLEMENT', limit: 1 }, FRESH);
    expect(reply).toMatchObject({ ok: true, total: 2, records: [{ uuid: 'p1' }] });
    if (!reply.ok) throw new Error('refused');
    expect(uuidsOf(trades, { state: 'PENDING_SETTLEMENT', before: reply.next as string })).toEqual(['p2']);
  });
});

function leg(uuid: string, received: number | undefined, fields: Partial<TransactionRecord> = {}): TransactionRecord {
  return {
    uuid,
    transactionClass: 'CASH',
    transactionType: 'DEPOSIT',
    transactionState: 'PENDING',
    ccy: 'USD',
    amount: '10',
    displayTitle: null,
    displayDescription: null,
    paymentTransferType: null,
    beneficiaryUuid: null,
    ...(received === undefined ? {} : { received, timestampMillis: received }),
    ...fields,
  };
}

/** The legs' uuids of one transaction list page (`next` kept in `cursor`). */
function legPage(
  legs: Map<string, TransactionRecord>,
  query: TransactionListQuery,
): { uuids: string[]; next?: string } {
  const reply = transactionListPage(legs.values(), query, FRESH);
  if (!reply.ok) throw new Error('refused');
  return { uuids: reply.records.map((l) => l.uuid), ...(reply.next === undefined ? {} : { next: reply.next }) };
}

/** Legs by uuid, as the sync engine holds them (a changed leg replaces the one held, in place). */
function held(...legs: TransactionRecord[]): Map<string, TransactionRecord> {
  return new Map(legs.map((l) => [l.uuid, l]));
}

describe('transaction list pages', () => {
  const AT = 1_763_800_000_000;

  it('newest received first, a tie by uuid, a leg without a usable received last: one order whatever is held first', () => {
    const legs = [leg('c', AT), leg('a', AT), leg('none', undefined, { timestampMillis: AT + 9 }), leg('b', AT)];
    const huge = leg('huge', undefined, { received: 1e20 });
    expect(legPage(held(...legs, leg('new', AT + 1), huge), {}).uuids).toEqual(['new', 'a', 'b', 'c', 'huge', 'none']);
    expect(legPage(held(leg('new', AT + 1), ...legs.reverse()), {}).uuids).toEqual(['new', 'a', 'b', 'c', 'none']);
    // every position names a cursor that parses (a time beyond a safe integer sorts as none)
    expect(parseListCursor(legPage(held(huge), {}).next)).toEqual({ at: 0, uuid: 'huge' });
  });

  it('next is the position of the last leg; before starts right after it, within a tie too; offset still pages', () => {
    const legs = held(leg('new', AT + 1), leg('c', AT), leg('a', AT), leg('b', AT), leg('old', AT - 1));
    const first = legPage(legs, { limit: 2 });
    expect(first.uuids).toEqual(['new', 'a']);
    expect(parseListCursor(first.next)).toEqual({ at: AT, uuid: 'a' });
    const reply = transactionListPage(legs.values(), { limit: 2, before: first.next as string }, FRESH);
    expect(reply).toMatchObject({ ok: true, total: 3, records: [{ uuid: 'b' }, { uuid: 'c' }], asOf: 1_000 });
    expect(legPage(legs, { before: first.next as string, offset: 2 })).toMatchObject({ uuids: ['old'] });
    expect(legPage(legs, { before: first.next as string, offset: 3 })).toEqual({ uuids: [] });
    // an old client paging by offset alone gets what it got before
    expect(legPage(legs, { limit: 2, offset: 2 }).uuids).toEqual(['b', 'c']);
  });

  it('a leg that changes state keeps its place: timestampMillis moves, received does not', () => {
    const legs = held(leg('d1', AT), leg('d2', AT - 1), leg('d3', AT - 2), leg('d4', AT - 3));
    const first = legPage(legs, { limit: 2 });
    expect(first.uuids).toEqual(['d1', 'd2']);
    // the oldest leg is processed (the venue stamps timestampMillis and processed now) and a read ones too
    for (const uuid of ['d4', 'd1']) {
      const before = legs.get(uuid) as TransactionRecord;
      legs.set(uuid, {
        ...before,
        transactionState: 'PROCESSED',
        processed: AT + 60_000,
        timestampMillis: AT + 60_000,
      });
    }
    expect(legPage(legs, { limit: 2, before: first.next as string }).uuids).toEqual(['d3', 'd4']);
  });

  it('legs arriving between pages neither repeat a leg nor push one out (an offset does both)', () => {
    const history = Array.from({ length: 25 }, (_, i) => leg(`l${String(i).padStart(2, '0')}`, AT + (i % 5)));
    const arrive = (legs: Map<string, TransactionRecord>, page: number) => {
      for (let i = 0; i < 3; i += 1) legs.set(`new-${page}-${i}`, leg(`new-${page}-${i}`, AT + 1_000 * page));
    };
    const byCursor: string[] = [];
    const mirror = held(...history);
    let before: string | undefined;
    for (let page = 1; page <= 3; page += 1) {
      const read = legPage(mirror, { limit: 10, ...(before === undefined ? {} : { before }) });
      byCursor.push(...read.uuids);
      before = read.next;
      arrive(mirror, page);
    }
    expect(byCursor).toHaveLength(history.length);
    expect(new Set(byCursor)).toEqual(new Set(history.map((l) => l.uuid)));

    const byOffset: string[] = [];
    const moving = held(...history);
    for (let page = 1; page <= 3; page += 1) {
      byOffset.push(...legPage(moving, { limit: 10, offset: byOffset.length }).uuids);
      arrive(moving, page);
    }
    expect(new Set(byOffset).size).toBeLessThan(byOffset.length);
    expect(history.filter((l) => !byOffset.includes(l.uuid))).not.toEqual([]);
  });

  it('filters apply before the page: total and next count the matching legs only', () => {
    const legs = held(
      leg('w1', AT + 2, { transactionType: 'WITHDRAWAL' }),
      leg('d1', AT + 1),
      leg('w2', AT, { transactionType: 'WITHDRAWAL' }),
    );
    const reply = transactionListPage(legs.values(), { type: 'WITHDRAWAL', limit: 1 }, FRESH);
    expect(reply).toMatchObject({ ok: true, total: 2, records: [{ uuid: 'w1' }] });
    if (!reply.ok) throw new Error('refused');
    expect(legPage(legs, { type: 'WITHDRAWAL', before: reply.next as string }).uuids).toEqual(['w2']);
  });

  it('a group filter is a UUID in either case: the legs and trades of that group (WD10)', () => {
    const group = '9a000000-0000-4000-8000-0000000000ab';
    const legs = held(leg('g1', AT + 1, { accountGroupUuid: group }), leg('other', AT, { accountGroupUuid: 'x' }));
    expect(legPage(legs, { accountGroupUuid: group.toUpperCase() }).uuids).toEqual(['g1']);
    const trades = [{ ...trade('t1', '2026-01-01T10:00:00.000Z'), accountGroup: { uuid: group } }, trade('t2')];
    expect(uuidsOf(trades, { accountGroupUuid: group.toUpperCase() })).toEqual(['t1']);
    expect(ofAccountGroup({ accountGroupUuid: group.toUpperCase() }, group)).toBe(true);
    expect(ofAccountGroup({ accountGroupUuid: group }, group.toUpperCase())).toBe(true);
    expect(ofAccountGroup({}, group)).toBe(true);
    expect(ofAccountGroup({ accountGroupUuid: group }, undefined)).toBe(false);
    expect(ofAccountGroup({ accountGroupUuid: 'ABC' }, 'abc')).toBe(false);
  });
});
