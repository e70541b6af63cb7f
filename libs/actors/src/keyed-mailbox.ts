/**
 * One mailbox per key: work for the same key runs one at a time in arrival order, work for different keys
 * runs concurrently. An idle key holds nothing (the map only has keys with work in hand).
 */
export class KeyedMailbox {
  private readonly tails = new Map<string, Promise<unknown>>();

  run<T>(key: string, work: () => Promise<T>): Promise<T> {
    const previous = this.tails.get(key);
    const next = previous === undefined ? work() : previous.then(work, work);
    const tail = next.then(
      () => undefined,
      () => undefined,
    );
    this.tails.set(key, tail);
    void tail.then(() => {
      if (this.tails.get(key) === tail) this.tails.delete(key);
    });
    return next;
  }

  /** Keys with work in hand. */
  get size(): number {
    return this.tails.size;
  }

  /** Resolves once every piece of work accepted so far has finished. */
  async drained(): Promise<void> {
    while (this.tails.size > 0) await Promise.all([...this.tails.values()]);
  }
}
