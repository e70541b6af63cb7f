import { describe, expect, it } from '@jest/globals';
import { BehaviorSubject } from 'rxjs';
import type { SessionState } from '#contracts';
import { HealthRegistry } from '#observability';
import { SessionHealth } from './session-health.js';

function session(state: SessionState, since: number) {
  return {
    state$: new BehaviorSubject<{ state: SessionState; since: number }>({ state, since }),
    reconnects: 0,
    replacedAt: [] as number[],
    now: 0,
    recentReplacements() {
      const windowMs = 300_000;
      return { count: this.replacedAt.filter((at) => at >= this.now - windowMs).length, windowMs };
    },
    start: () => undefined,
    stop: async () => undefined,
  };
}

describe('SessionHealth', () => {
  it('is up while open, and through a short reconnect only', async () => {
    let now = 10_000;
    const s = session('open', 0);
    const health = new SessionHealth(s, 1_000, () => now);
    const registry = new HealthRegistry();
    health.register(registry);
    expect((await registry.report()).checks['venue-session']).toEqual({ up: true });

    s.state$.next({ state: 'backoff', since: 10_000 });
    now = 10_500;
    expect(health.check()).toEqual({ up: true, detail: 'backoff; not open for 500 ms' });
    now = 11_500;
    expect(health.check()).toEqual({ up: false, detail: 'backoff; not open for 1500 ms' });

    s.state$.next({ state: 'stopped', since: 11_500 });
    expect(health.check().up).toBe(false);
    health.stop();
  });

  it('is down until the session first opens (outside tester: a wrong secret read up for the grace), saying why', () => {
    let now = 0;
    const s: ReturnType<typeof session> & { lastFailure?: string } = session('idle', 0);
    const health = new SessionHealth(s, 30_000, () => now);
    health.register(new HealthRegistry());
    now = 10;
    s.state$.next({ state: 'fetchingToken', since: now });
    expect(health.check()).toEqual({ up: false, detail: 'fetchingToken; not open yet (10 ms since start)' });
    s.lastFailure = 'token fetch: createWebSocketToken: unauthorized, HTTP 401';
    expect(health.check().detail).toBe(
      'fetchingToken; not open yet (10 ms since start); last failure: token fetch: createWebSocketToken: unauthorized, HTTP 401',
    );
    s.lastFailure = undefined;
    s.state$.next({ state: 'open', since: now });
    expect(health.check()).toEqual({ up: true });
    health.stop();
  });

  it('degrades once the session has not been open for the grace, however often it retries (symptom 7)', () => {
    let now = 0;
    const s = session('idle', 0);
    const health = new SessionHealth(s, 1_000, () => now);
    health.register(new HealthRegistry());
    // a wrong secret or an unreachable venue: connecting → backoff → fetchingToken …, each state young
    for (const state of ['fetchingToken', 'backoff', 'connecting', 'backoff', 'fetchingToken'] as const) {
      now += 300;
      s.state$.next({ state, since: now });
    }
    expect(health.check()).toEqual({ up: false, detail: 'fetchingToken; not open yet (1500 ms since start)' });

    s.state$.next({ state: 'open', since: now });
    expect(health.check()).toEqual({ up: true });
    now += 60_000; // open for a minute, then dropped: the grace counts from the drop
    s.state$.next({ state: 'backoff', since: now });
    now += 999;
    s.state$.next({ state: 'connecting', since: now });
    expect(health.check().up).toBe(true);
    now += 1;
    expect(health.check().up).toBe(false);
    health.stop();
  });

  it('is down while another connection keeps taking the session id, though open half the time (two connectors on one account)', () => {
    const s = session('open', 0);
    s.now = 1_000_000;
    const health = new SessionHealth(s, 30_000, () => s.now);
    health.register(new HealthRegistry());
    s.replacedAt.push(s.now - 20_000);
    expect(health.check()).toEqual({ up: true }); // one replacement: a hand-over
    s.replacedAt.push(s.now - 5_000);
    expect(health.check()).toEqual({
      up: false,
      detail:
        'open; contested: the venue gave this session id to another connection 2 times in the last 300 s ' +
        '(run one connector per VENUE_SESSION_ID)',
    });
    s.now += 5 * 60_000 - 19_999; // the older one leaves the window
    expect(health.check()).toEqual({ up: true });
    health.stop();
  });
});
