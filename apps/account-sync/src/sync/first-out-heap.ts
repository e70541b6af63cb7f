/**
 * A binary heap: `pop` gives the item that comes out first by `before` (O(log n) per push and pop). Used by
 * the balance check to reach an account's latest legs without walking the rest (balance-check.ts) and the sweep to the oldest pending leg (oldest-pending.ts).
 */
export class FirstOutHeap<T> {
  private items: T[] = [];

  constructor(private readonly before: (a: T, b: T) => boolean) {}

  get size(): number {
    return this.items.length;
  }

  push(item: T): void {
    const items = this.items;
    let at = items.length;
    items.push(item);
    while (at > 0) {
      const parent = (at - 1) >> 1;
      const above = items[parent] as T;
      if (!this.before(item, above)) break;
      items[at] = above;
      at = parent;
    }
    items[at] = item;
  }

  /** The item `pop` would give, left in place. */
  peek(): T | undefined {
    return this.items[0];
  }

  pop(): T | undefined {
    const items = this.items;
    const top = items[0];
    const last = items.pop();
    if (items.length > 0 && last !== undefined) this.sink(last);
    return top;
  }

  /** Keeps only the items `keep` accepts, in O(n). */
  retain(keep: (item: T) => boolean): void {
    this.items = this.items.filter(keep);
    for (let at = (this.items.length >> 1) - 1; at >= 0; at -= 1) this.sinkFrom(at);
  }

  /** Puts `item` at the root (the old root was taken) and moves it down to its place. */
  private sink(item: T): void {
    this.items[0] = item;
    this.sinkFrom(0);
  }

  private sinkFrom(start: number): void {
    const items = this.items;
    const item = items[start] as T;
    let at = start;
    for (;;) {
      const left = 2 * at + 1;
      if (left >= items.length) break;
      const right = left + 1;
      const child = right < items.length && this.before(items[right] as T, items[left] as T) ? right : left;
      const below = items[child] as T;
      if (!this.before(below, item)) break;
      items[at] = below;
      at = child;
    }
    items[at] = item;
  }
}
