/**
 * The records still pending, by the time they were booked, kept as records are held (transaction-reads.ts; the
 * trades in held-trade-span.ts): where a sweep pass starts (list-walks.ts `sweepWindowStart`) without walking every
 * record held. A record's latest news replaces what was noted of it (`pending`: since when; `settled`: no longer,
 * or never was). `oldest` costs O(1) amortised, a change O(log p) for p pending; an entry replaced is left in the
 * heap and dropped when it comes to the top or when dropped entries outnumber the live ones (the balance check's
 * heaps do the same). Pure: no I/O.
 */
import { FirstOutHeap } from './first-out-heap.js';

interface Pending {
  readonly id: string;
  readonly at: number;
}

/** Replaced entries a heap may carry before it is compacted: beyond this and beyond its live ones. */
const STALE_SLACK = 64;

const oldestFirst = (a: Pending, b: Pending): boolean => a.at < b.at;

export class OldestPending {
  /** The live entry of each pending record. */
  private readonly byId = new Map<string, Pending>();
  private readonly byTime = new FirstOutHeap<Pending>(oldestFirst);

  /** Records pending now. */
  get size(): number {
    return this.byId.size;
  }

  /** The record is pending, booked at `at` (epoch ms; NaN: no time, as if settled). */
  pending(id: string, at: number): void {
    if (Number.isNaN(at)) return this.settled(id);
    if (this.byId.get(id)?.at === at) return;
    const entry: Pending = { id, at };
    this.byId.set(id, entry);
    this.byTime.push(entry);
    this.compact();
  }

  /** The record is not pending (it reached a final state, has no time, or is no longer held). */
  settled(id: string): void {
    if (this.byId.delete(id)) this.compact();
  }

  /** The booking time of the oldest record pending; undefined when none is. */
  oldest(): number | undefined {
    for (let top = this.byTime.peek(); top !== undefined; top = this.byTime.peek()) {
      if (this.isLive(top)) return top.at;
      this.byTime.pop();
    }
    return undefined;
  }

  private isLive(entry: Pending): boolean {
    return this.byId.get(entry.id) === entry;
  }

  /** O(n) once per as many changes: amortised O(1). */
  private compact(): void {
    if (this.byTime.size > 2 * this.byId.size + STALE_SLACK) this.byTime.retain((entry) => this.isLive(entry));
  }
}
