/**
 * A map that remembers at most `limit` entries, forgetting the oldest set first: a bounded memory of recent
 * things (orders settled lately), so a process running for months holds no more than the limit.
 */
export class BoundedMap<K, V> {
  private readonly entries = new Map<K, V>();

  constructor(private readonly limit: number) {}

  get size(): number {
    return this.entries.size;
  }

  get(key: K): V | undefined {
    return this.entries.get(key);
  }

  has(key: K): boolean {
    return this.entries.has(key);
  }

  /** Sets `key` as the newest entry; past the limit the oldest is forgotten. */
  set(key: K, value: V): void {
    this.entries.delete(key);
    this.entries.set(key, value);
    if (this.entries.size <= this.limit) return;
    const oldest = this.entries.keys().next();
    if (!oldest.done) this.entries.delete(oldest.value);
  }

  delete(key: K): void {
    this.entries.delete(key);
  }
}
