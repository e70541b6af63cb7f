import type { Subscription } from 'rxjs';
import type { SessionState } from '#contracts';
import type { HealthRegistry } from '#observability';
import type { SessionView } from '../nats/venue-ports.js';

/**
 * `/health` check of the venue session: up while the session is open; also up for a short reconnect
 * (`graceMs`) so a routine token refresh or socket drop does not flap the probe.
 */
export class SessionHealth {
  private state: { state: SessionState; since: number } = { state: 'idle', since: Date.now() };
  private subscription: Subscription | undefined;

  constructor(
    private readonly session: SessionView,
    private readonly graceMs: number,
    private readonly now: () => number = Date.now,
  ) {}

  register(health: HealthRegistry): void {
    this.subscription ??= this.session.state$.subscribe((state) => (this.state = state));
    health.register('venue-session', () => this.check());
  }

  stop(): void {
    this.subscription?.unsubscribe();
    this.subscription = undefined;
  }

  check(): { up: boolean; detail?: string } {
    const { state, since } = this.state;
    if (state === 'open') return { up: true };
    const forMs = this.now() - since;
    const reconnecting = state === 'fetchingToken' || state === 'connecting' || state === 'backoff';
    return { up: reconnecting && forMs < this.graceMs, detail: `${state} for ${forMs} ms` };
  }
}
