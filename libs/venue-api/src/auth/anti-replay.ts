/**
 * Anti-replay values for REST bodies (§4.1): `tonce` (Unix time in microseconds, accepted within two
 * minutes of server time) or `nonce` (a whole number strictly increasing per API key). Withdrawal,
 * order-state and participant endpoints treat a replayed or lower value as an authentication failure
 * (§5.4), so every source here is strictly increasing.
 */

export interface AntiReplayValue {
  /** The body property to send: `{ [field]: value }`. */
  field: 'tonce' | 'nonce';
  /** Written into the JSON body as an integer (see `stringifyJson`, which writes bigints as digits). */
  value: bigint;
}

export interface AntiReplaySource {
  next(): Promise<AntiReplayValue>;
}

/** Current Unix time in microseconds; injectable so tests can step the clock. */
export type MicrosecondClock = () => bigint;

/**
 * Wall clock in microseconds: the venue compares tonce with its own wall clock, so the milliseconds come
 * from `Date.now()`; the microseconds within the millisecond come from the monotonic high-resolution timer.
 * Why not `Date.now() × 1000`: two processes sharing one API key that call in the same millisecond would
 * then send the same tonce, and the venue accepts each value once (§5.4) — with real microseconds such a
 * collision needs the same microsecond. (The sub-millisecond part is not aligned with `Date.now()`'s
 * millisecond edge; the sources below keep their own values strictly increasing regardless.)
 */
export const systemClockMicros: MicrosecondClock = () =>
  BigInt(Date.now()) * 1000n + BigInt(Math.floor((performance.now() % 1) * 1000));

/**
 * The default source: `tonce` = max(now in µs, previous + 1), so values stay strictly increasing within
 * the process even when two calls share a microsecond or the clock steps back. After a backward step the
 * values run ahead of the clock until it catches up; a step of more than two minutes therefore makes the
 * venue refuse them (its tonce window), which is the right outcome rather than a replay.
 *
 * Several processes sharing one API key can produce the same tonce: use {@link PersistentNonceSource}
 * (persistent-nonce.ts) for that deployment.
 */
export class TonceSource implements AntiReplaySource {
  private last = 0n;

  constructor(private readonly clock: MicrosecondClock = systemClockMicros) {}

  next(): Promise<AntiReplayValue> {
    return Promise.resolve({ field: 'tonce', value: this.nextValue() });
  }

  /** Synchronous form for callers that build the body in one step. */
  nextValue(): bigint {
    const now = this.clock();
    const value = now > this.last ? now : this.last + 1n;
    this.last = value;
    return value;
  }
}
