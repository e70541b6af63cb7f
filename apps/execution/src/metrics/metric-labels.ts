/** Bounded metric label values: an algo sending junk cannot grow the series without bound. */
const LABEL_VALUE = /^[A-Za-z0-9_.-]{1,64}$/;

/** The first `max` distinct values seen keep their own label; later ones are `other`. For closed-ish sets (codes). */
export class BoundedLabel {
  private readonly values = new Set<string>();
  constructor(private readonly max: number) {}
  of(value: string): string {
    if (this.values.has(value)) return value;
    if (this.values.size >= this.max || !LABEL_VALUE.test(value)) return 'other';
    this.values.add(value);
    return value;
  }
}

/**
 * Strategy ids as labels. Anyone may send a place request naming any strategy, so an id earns its own label
 * only when it is configured (listed in the risk limits file) or has had an order accepted — up to `max` of them;
 * every other id (refused strangers, made-up ids) is `other`, and cannot push a real strategy out.
 */
export class StrategyLabels {
  private readonly known = new Set<string>();
  constructor(
    private readonly max: number,
    configured: Iterable<string> = [],
  ) {
    for (const id of configured) this.admit(id);
  }

  /** The strategy has had an accepted order: it keeps its own label from now on, if there is room. */
  admit(id: string): void {
    if (this.known.size < this.max && LABEL_VALUE.test(id)) this.known.add(id);
  }

  of(id: string): string {
    return this.known.has(id) ? id : 'other';
  }
}
