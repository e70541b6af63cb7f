import type { Counter } from 'prom-client';

/** prom-client calls a metric's `collect` (when it has one) every time the metric is read. */
interface Collectable {
  collect?: (this: unknown) => unknown;
}

/**
 * A count of a hot path kept in a plain number and added to its prom-client counter whenever the counter
 * is read (a scrape, `registry.metrics()`, `counter.get()`), through the counter's `collect` hook. Every
 * read shows the same total as an `inc()` per event would; the hot path pays an integer add instead of
 * prom-client's `inc()`, which allocates two objects per call and, for a labelled child, builds the
 * label-hash string again each time (measured in bench/hot-path.ts).
 */
export class LazyCount {
  private pending = 0;
  private readonly add: (amount: number) => void;

  constructor(counter: Counter<string>, labels?: Partial<Record<string, string>>) {
    this.add = labels === undefined ? (amount) => counter.inc(amount) : (amount) => counter.inc(labels, amount);
    const target = counter as unknown as Collectable;
    const previous = target.collect;
    const flush = (): void => this.flush();
    // Several counts may share one counter (one per label value): each chains the hook it found.
    target.collect = function collect(this: unknown) {
      flush();
      return previous?.call(this);
    };
  }

  inc(): void {
    this.pending += 1;
  }

  /** Hands the pending count to the counter (called by the counter's `collect`). */
  flush(): void {
    if (this.pending === 0) return;
    const amount = this.pending;
    this.pending = 0;
    this.add(amount);
  }
}
