/** Receive side of the benchmark: the hop of each frame, from its send time to its NATS delivery. */
export class HopRecorder {
  private readonly hopMs: Float64Array;
  private readonly decoder = new TextDecoder();

  constructor(private readonly sentAt: Float64Array) {
    this.hopMs = new Float64Array(sentAt.length).fill(Number.NaN);
  }

  /** Both payloads (the connector's PriceMessage, the relay's raw frame) carry `"quoteId":"b<seq>"`. */
  onMessage(data: Uint8Array): void {
    const now = performance.now();
    const match = QUOTE_SEQ.exec(this.decoder.decode(data));
    if (match?.[1] === undefined) return;
    const seq = Number(match[1]);
    if (seq < this.hopMs.length) this.hopMs[seq] = now - (this.sentAt[seq] ?? now);
  }

  received(first: number, end: number): number {
    let count = 0;
    for (let seq = first; seq < end; seq += 1) if (!Number.isNaN(this.hopMs[seq])) count += 1;
    return count;
  }

  /** Hops of [first, end) in microseconds, sorted. */
  hopsMicros(first: number, end: number): number[] {
    const hops: number[] = [];
    for (let seq = first; seq < end; seq += 1) {
      const hop = this.hopMs[seq] ?? Number.NaN;
      if (!Number.isNaN(hop)) hops.push(hop * 1000);
    }
    return hops.sort((a, b) => a - b);
  }
}

const QUOTE_SEQ = /"quoteId":"b(\d+)"/;

export function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return Number.NaN;
  const index = Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1);
  return sorted[Math.max(0, index)] ?? Number.NaN;
}
