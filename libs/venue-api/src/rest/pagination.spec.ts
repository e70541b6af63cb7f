import { describe, expect, it } from '@jest/globals';
import { walkPages, walkToTotal, type PageFetcher } from './pagination.js';

interface Row {
  uuid: string;
}
const rows = (from: number, count: number): Row[] =>
  Array.from({ length: count }, (_, i) => ({ uuid: `r${from + i}` }));

async function walk(fetchPage: PageFetcher<Row>, pageSize: number): Promise<{ uuids: string[]; calls: number }> {
  let calls = 0;
  const counted: PageFetcher<Row> = (max, offset) => {
    calls += 1;
    if (calls > 1_000) throw new Error('the walk does not end');
    return fetchPage(max, offset);
  };
  const uuids: string[] = [];
  for await (const row of walkPages(counted, pageSize)) uuids.push(row.uuid);
  return { uuids, calls };
}

describe('walkPages', () => {
  it('reads pages until one holds fewer than max rows (§4.5)', async () => {
    const all = rows(0, 250);
    const result = await walk(async (max, offset) => {
      const data = all.slice(offset, offset + max);
      return { data, total: all.length, rows: data.length };
    }, 100);
    expect(result).toEqual({ uuids: all.map((r) => r.uuid), calls: 3 });
  });

  it('ends when a venue ignores max and offset and answers every row each time', async () => {
    const all = rows(0, 250);
    const result = await walk(async () => ({ data: all, total: all.length, rows: all.length }), 200);
    expect(result).toEqual({ uuids: all.map((r) => r.uuid), calls: 2 });
  });

  it('ends when a venue honours max but ignores offset', async () => {
    const all = rows(0, 250);
    const result = await walk(async (max) => ({ data: all.slice(0, max), total: all.length, rows: max }), 100);
    expect(result.uuids).toEqual(all.slice(0, 100).map((r) => r.uuid));
    expect(result.calls).toBe(2);
  });

  it('goes on over a page shifted by a record booked during the walk, and over a page of unreadable rows', async () => {
    const pages = [
      { data: rows(0, 3), rows: 3 },
      { data: [], rows: 3 }, // three rows the venue sent that could not be read
      { data: [...rows(2, 1), ...rows(6, 2)], rows: 3 }, // r2 again: shifted by one
      { data: rows(8, 1), rows: 1 },
    ];
    const result = await walk(
      async (_max, offset) => ({ ...(pages[offset / 3] ?? { data: [], rows: 0 }), total: 10 }),
      3,
    );
    expect(result).toEqual({ uuids: ['r0', 'r1', 'r2', 'r6', 'r7', 'r8'], calls: 4 });
  });
});

describe('walkToTotal (AS6)', () => {
  it("walks pages of the service's own size until total distinct records were read", async () => {
    const all = rows(0, 120);
    const listing = await walkToTotal<Row>(async (_max, offset) => {
      const data = all.slice(offset, offset + 50);
      return { data, total: all.length, rows: data.length };
    }, 100);
    expect(listing.records).toHaveLength(120);
    expect(listing.unreadable).toBe(0);
  });

  it('a service that ignores offset: the walk ends, and the records never seen count as unreadable (not removed)', async () => {
    const all = rows(0, 120);
    let calls = 0;
    const listing = await walkToTotal<Row>(async () => {
      calls += 1;
      return { data: all.slice(0, 50), total: all.length, rows: 50 };
    }, 100);
    expect(listing.records.map((r) => r.uuid)).toEqual(all.slice(0, 50).map((r) => r.uuid));
    expect(listing.unreadable).toBe(70);
    expect(calls).toBe(2);
  });
});
