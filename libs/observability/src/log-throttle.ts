/**
 * A warning that outside input can repeat at will (a forged webhook, a strategy asking again for a stream the venue
 * refuses) is written at most once per interval per kind; the next line that passes says how many were held back
 * (`suppressed`). The kinds kept are bounded: a kind taken from input (a venue code) cannot grow the map.
 */
export class LogThrottle {
  private readonly last = new Map<string, { at: number; suppressed: number }>();

  constructor(
    private readonly everyMs: number = 1_000,
    private readonly now: () => number = Date.now,
    private readonly maxKinds: number = 64,
  ) {}

  /** Forgets a kind: its next line is written at once (a new spell of the same warning), its held-back count dropped. */
  forget(kind: string): void {
    this.last.delete(kind);
  }

  /** The fields to write now (with `suppressed` when lines were held back), or undefined: hold this one back. */
  pass<F extends Record<string, unknown>>(kind: string, fields: F): (F & { suppressed?: number }) | undefined {
    const now = this.now();
    const last = this.last.get(kind);
    if (last !== undefined && now - last.at < this.everyMs) {
      last.suppressed += 1;
      return undefined;
    }
    if (last === undefined && this.last.size >= this.maxKinds) this.last.clear();
    this.last.set(kind, { at: now, suppressed: 0 });
    return last !== undefined && last.suppressed > 0 ? { ...fields, suppressed: last.suppressed } : fields;
  }
}
