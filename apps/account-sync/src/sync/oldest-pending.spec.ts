import { describe, expect, it } from '@jest/globals';
import { timeSpan } from './list-walks.js';
import { OldestPending } from './oldest-pending.js';

/** What the sweep used to compute at every pass: every record held walked, the oldest pending time kept. */
function oldestByFullWalk(held: ReadonlyMap<string, { pending: boolean; at: number }>): number | undefined {
  return timeSpan([...held.values()].map((record) => (record.pending ? record.at : undefined))).oldest;
}

describe('OldestPending', () => {
  it('arrivals: the oldest booking time among the pending, whatever the order they arrive in', () => {
    const index = new OldestPending();
    expect(index.oldest()).toBeUndefined();
    index.pending('b', 20);
    expect(index.oldest()).toBe(20);
    index.pending('c', 30);
    index.pending('a', 10); // an older one read late (the list is newest first)
    expect(index.oldest()).toBe(10);
    expect(index.size).toBe(3);
  });

  it('settles: a record leaving PENDING no longer holds the window back; the next oldest does', () => {
    const index = new OldestPending();
    for (const [id, at] of [
      ['a', 10],
      ['b', 20],
      ['c', 30],
    ] as const)
      index.pending(id, at);
    index.settled('a');
    expect(index.oldest()).toBe(20);
    index.settled('c'); // not the oldest: the oldest stays
    expect(index.oldest()).toBe(20);
    index.settled('b');
    expect(index.oldest()).toBeUndefined();
    expect(index.size).toBe(0);
  });

  it('a record settled that was never pending, or settled twice, changes nothing', () => {
    const index = new OldestPending();
    index.pending('a', 10);
    index.settled('x');
    index.settled('a');
    index.settled('a');
    expect(index.oldest()).toBeUndefined();
    index.pending('b', 5);
    expect(index.oldest()).toBe(5);
  });

  it('removals and new versions: a record read again with another time, or back to PENDING, counts once, at its latest', () => {
    const index = new OldestPending();
    index.pending('a', 10);
    index.pending('b', 20);
    index.pending('a', 25); // restated: booked later than first read
    expect(index.oldest()).toBe(20);
    expect(index.size).toBe(2);
    index.pending('a', 25); // the same again
    index.settled('b');
    expect(index.oldest()).toBe(25);
    index.settled('a');
    index.pending('a', 25); // undone, pending again at the same time (its old entry was dropped, not revived)
    expect(index.oldest()).toBe(25);
    index.pending('a', Number.NaN); // its time lost: not pending for the sweep (the walk skipped it too)
    expect(index.oldest()).toBeUndefined();
    expect(index.size).toBe(0);
  });

  it('restart: an index fed the records held again (a full read, newest first) tells the same oldest', () => {
    const first = new OldestPending();
    const held = new Map<string, { pending: boolean; at: number }>();
    const hold = (id: string, pending: boolean, at: number) => {
      held.set(id, { pending, at });
      if (pending) first.pending(id, at);
      else first.settled(id);
    };
    for (let i = 0; i < 500; i += 1) hold(`l-${i}`, true, 1_000 + i);
    for (let i = 0; i < 300; i += 1) hold(`l-${i}`, i % 7 === 3, 1_000 + i); // most of the oldest settle
    const restarted = new OldestPending();
    for (const [id, record] of [...held].reverse()) {
      if (record.pending) restarted.pending(id, record.at);
      else restarted.settled(id);
    }
    expect(first.oldest()).toBe(1_003);
    expect(restarted.oldest()).toBe(first.oldest());
    expect(restarted.size).toBe(first.size);
  });

  it('agrees with the full walk after every change over long random histories (replaced entries pile up and are dropped)', () => {
    let seed = 11;
    const random = () => (seed = (seed * 48271) % 2147483647) / 2147483647;
    const int = (below: number) => Math.floor(random() * below);
    for (const ids of [5, 40, 400]) {
      const index = new OldestPending();
      const held = new Map<string, { pending: boolean; at: number }>();
      let agreedWithSome = 0;
      for (let step = 0; step < 20_000; step += 1) {
        const id = `l-${int(ids)}`;
        const roll = random();
        const at = roll < 0.05 ? Number.NaN : int(1_000);
        const pending = roll < 0.55;
        held.set(id, { pending, at });
        if (pending) index.pending(id, at);
        else index.settled(id);
        const walked = oldestByFullWalk(held);
        if (index.oldest() !== walked)
          expect({ ids, step, oldest: index.oldest() }).toEqual({ ids, step, oldest: walked });
        if (walked !== undefined) agreedWithSome += 1;
      }
      expect(agreedWithSome).toBeGreaterThan(10_000); // not vacuous: mostly something pending
    }
  });
});
