/** mulberry32: a small deterministic PRNG so the sandbox market replays identically for a given seed. */
export class SeededRandom {
  private state: number;

  constructor(seed: number) {
    this.state = seed >>> 0;
  }

  /** Integer in [0, 2^32). */
  nextUint32(): number {
    this.state = (this.state + 0x6d2b79f5) >>> 0;
    let t = this.state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return (t ^ (t >>> 14)) >>> 0;
  }

  /** Integer in [-range, range]. */
  nextSymmetricInt(range: number): number {
    return (this.nextUint32() % (2 * range + 1)) - range;
  }
}

/** Derives a per-instrument seed so adding an instrument does not change the others' walks. */
export function seedFor(base: number, name: string): number {
  let h = base >>> 0;
  for (const ch of name) h = Math.imul(h ^ ch.charCodeAt(0), 0x01000193) >>> 0;
  return h;
}
