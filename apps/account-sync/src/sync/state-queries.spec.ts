import { describe, expect, it } from '@jest/globals';
import { parseTradeCursor, type TradeQuery } from '#contracts';
import type { Trade } from '#venue-api';
import { tradePage } from './state-queries.js';

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
    expect(parseTradeCursor(first.next)).toEqual({ createdAt: Date.parse(T1), uuid: 'a' });
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
