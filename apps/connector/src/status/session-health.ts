import type { Subscription } from 'rxjs';
import type { SessionState } from '#contracts';
import type { HealthRegistry } from '#observability';
import type { SessionView } from '../nats/venue-ports.js';
import { CONTESTED_AFTER } from '../venue/index.js';

const RECONNECTING: ReadonlySet<SessionState> = new Set(['idle', 'fetchingToken', 'connecting', 'backoff']);

/**
 * `/health` check of the venue session: up while the session is open, and for a short while after it was
 * last open (`graceMs`) so a routine token refresh or socket drop does not flap the probe. The grace counts
 * from when the session was last open, not from the current state: a venue that is unreachable, or a wrong
 * secret, cycles connecting → backoff → connecting forever, and each of those states is young. A session never
 * open since start is down (outside tester: with a wrong secret it read up for the first 30 s, and the launcher took
 * the connector for ready and blamed the next app).
 *
 * A session the venue keeps handing to another connection with our sessionId (a second connector on the same
 * account, each taking it back in turn) is down too, although it is open half of the time: order replies go to
 * whichever connection holds the session when they come.
 */
export class SessionHealth {
  private state: SessionState = 'idle';
  /** When the session was last open (left the open state), or when this check started. */
  private lastOpenAt: number;
  private everOpen = false;
  private subscription: Subscription | undefined;

  constructor(
    private readonly session: SessionView,
    private readonly graceMs: number,
    private readonly now: () => number = Date.now,
  ) {
    this.lastOpenAt = now();
  }

  register(health: HealthRegistry): void {
    this.subscription ??= this.session.state$.subscribe(({ state }) => {
      if (this.state === 'open' || state === 'open') this.lastOpenAt = this.now();
      if (state === 'open') this.everOpen = true;
      this.state = state;
    });
    health.register('venue-session', () => this.check());
  }

  stop(): void {
    this.subscription?.unsubscribe();
    this.subscription = undefined;
  }

  check(): { up: boolean; detail?: string } {
    const replaced = this.session.recentReplacements();
    if (replaced.count >= CONTESTED_AFTER) {
      return {
        up: false,
        detail:
          `${this.state}; contested: the venue gave this session id to another connection ${replaced.count} times ` +
          `in the last ${replaced.windowMs / 1000} s (run one connector per VENUE_SESSION_ID)`,
      };
    }
    if (this.state === 'open') return { up: true };
    const notOpenMs = this.now() - this.lastOpenAt;
    const failure = this.session.lastFailure === undefined ? '' : `; last failure: ${this.session.lastFailure}`;
    if (!this.everOpen)
      return { up: false, detail: `${this.state}; not open yet (${notOpenMs} ms since start)${failure}` };
    return {
      up: RECONNECTING.has(this.state) && notOpenMs < this.graceMs,
      detail: `${this.state}; not open for ${notOpenMs} ms${failure}`,
    };
  }
}
