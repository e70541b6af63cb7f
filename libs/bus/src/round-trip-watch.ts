/**
 * Whether the server still answers this connection, not only whether the socket is open. The client's
 * "connected" can outlive its reading: an exception thrown into its callbacks ends its read loop (nothing is
 * read, nothing answered) and only its ping timer notices, minutes later. A round trip (PING → PONG) is timed
 * every `intervalMs`; after `staleMs` without an answer while connected the connection is reported down and a
 * reconnect is forced (at most once per `staleMs`), which starts a new read loop.
 */
export interface RoundTripWatchOptions {
  intervalMs: number;
  /** Reported not answering (health down) after this long without an answer; default `staleMs`. */
  unansweredMs?: number;
  /** A reconnect is forced after this long without an answer. */
  staleMs: number;
}

export interface RoundTripPort {
  /** True while the client says it is connected (not reconnecting, draining or closed). */
  connected(): boolean;
  /** One PING answered by a PONG; may never settle when nothing is read. */
  roundTrip(): Promise<unknown>;
  /** Drops the socket and connects again. */
  reconnect(): Promise<void>;
  now(): number;
  onStale(silentMs: number): void;
  /** The server stopped answering for `unansweredMs` (true), or answers again (false). */
  onUnanswered?(unanswered: boolean): void;
}

/**
 * A hung server (outside tester: SIGSTOP) is reported after 7 s, looked at every second; a reconnect is forced
 * only after 20 s, as a busy server's answer may be late.
 */
export const DEFAULT_ROUND_TRIP_WATCH: RoundTripWatchOptions = {
  intervalMs: 1_000,
  unansweredMs: 7_000,
  staleMs: 20_000,
};

export class RoundTripWatch {
  private lastAnswerAt: number;
  private lastForcedAt = Number.NEGATIVE_INFINITY;
  private inFlight = false;
  private timer: NodeJS.Timeout | undefined;
  private unanswered = false;
  private lastTickAt: number | undefined;

  constructor(
    private readonly port: RoundTripPort,
    private readonly options: RoundTripWatchOptions = DEFAULT_ROUND_TRIP_WATCH,
  ) {
    this.lastAnswerAt = port.now();
  }

  start(): void {
    this.timer ??= setInterval(() => this.tick(), this.options.intervalMs);
    this.timer.unref();
  }

  stop(): void {
    clearInterval(this.timer);
    this.timer = undefined;
  }

  /** The socket came back (a reconnect): its round trips start anew. */
  reset(): void {
    this.lastAnswerAt = this.port.now();
    this.tellUnanswered(false);
  }

  /** How long a connected client has gone without an answer, when that is longer than `unansweredMs`. */
  unansweredFor(): number | undefined {
    if (!this.port.connected()) return undefined;
    const silent = this.port.now() - this.lastAnswerAt;
    return silent > (this.options.unansweredMs ?? this.options.staleMs) ? silent : undefined;
  }

  /** How long a connected client has gone without an answer, when that is longer than `staleMs`. */
  silentFor(): number | undefined {
    if (!this.port.connected()) return undefined;
    const silent = this.port.now() - this.lastAnswerAt;
    return silent > this.options.staleMs ? silent : undefined;
  }

  /** One step: ask (unless a question is still open), and force a reconnect once the silence is too long. */
  tick(): void {
    if (!this.port.connected()) {
      this.reset();
      return;
    }
    // This process itself was stopped or blocked (SIGSTOP, a long pause): the silence is its own, not the
    // server's — counted again from now (outside tester: a paused app woke up blaming NATS and reconnected).
    const now = this.port.now();
    const paused = this.lastTickAt !== undefined && now - this.lastTickAt > 3 * this.options.intervalMs;
    this.lastTickAt = now;
    if (paused) this.lastAnswerAt = Math.max(this.lastAnswerAt, now - this.options.intervalMs);
    this.tellUnanswered(this.unansweredFor() !== undefined);
    const silent = this.silentFor();
    if (silent !== undefined && this.port.now() - this.lastForcedAt > this.options.staleMs) {
      this.lastForcedAt = this.port.now();
      this.port.onStale(silent);
      this.port.reconnect().catch(() => undefined);
    }
    if (this.inFlight) return;
    this.inFlight = true;
    this.port.roundTrip().then(
      () => {
        this.inFlight = false;
        this.lastAnswerAt = this.port.now();
        this.tellUnanswered(false);
      },
      () => {
        this.inFlight = false;
      },
    );
  }

  private tellUnanswered(unanswered: boolean): void {
    if (unanswered === this.unanswered) return;
    this.unanswered = unanswered;
    this.port.onUnanswered?.(unanswered);
  }
}
