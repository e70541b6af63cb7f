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

/** Millisecond wall clock scaled to microseconds: the venue compares tonce with its own wall clock. */
export const systemClockMicros: MicrosecondClock = () => BigInt(Date.now()) * 1000n;

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
