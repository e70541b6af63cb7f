import { describe, expect, it } from '@jest/globals';
import { BehaviorSubject } from 'rxjs';
import { Subjects, type SessionFailure, type SessionState } from '#contracts';
import type { BusPublisher } from '#bus';
import { ConnectorStatusPublication } from './connector-status.publication.js';

function session() {
  return {
    state$: new BehaviorSubject<{ state: SessionState; since: number }>({ state: 'idle', since: 1_000 }),
    reconnects: 0,
    lastFailureSummary: undefined as SessionFailure | undefined,
    recentReplacements: () => ({ count: 0, windowMs: 300_000 }),
    start: () => undefined,
    stop: async () => undefined,
  };
}

function publication(s: ReturnType<typeof session>, now: () => number) {
  const registry = {
    counts: () => ({ live: 0, stale: 0, pending: 1 }),
    lastPriceAt: () => undefined,
  } as unknown as ConstructorParameters<typeof ConnectorStatusPublication>[2];
  const publisher = { publishTo: () => undefined } as unknown as BusPublisher;
  return new ConnectorStatusPublication(
    new Subjects('gw.v1', 'a'),
    s,
    registry,
    { orderQueuePaceMs: () => 300 },
    publisher,
    60_000,
    now,
  );
}

describe('ConnectorStatusPublication', () => {
  it('says since when the session has not been open and why, not only when its latest state began (outside tester)', () => {
    let now = 1_000;
    const s = session();
    const status = publication(s, () => now);
    status.start();
    // a wrong secret: fetchingToken → backoff → fetchingToken …, each state young, never open
    for (const state of ['fetchingToken', 'backoff', 'fetchingToken', 'backoff'] as const) {
      now += 15_000;
      s.state$.next({ state, since: now });
    }
    s.lastFailureSummary = { code: 'token-refused', reason: 'HTTP 401', at: now - 100 };
    expect(status.current()).toMatchObject({
      sessionState: 'backoff',
      since: 61_000,
      notOpenSince: 1_000,
      everOpen: false,
      lastFailure: { code: 'token-refused', reason: 'HTTP 401', at: 60_900 },
    });

    // open: nothing down, no failure
    now += 1_000;
    s.lastFailureSummary = undefined;
    s.state$.next({ state: 'open', since: now });
    const open = status.current();
    expect(open).toMatchObject({ sessionState: 'open', everOpen: true });
    expect(open.notOpenSince).toBeUndefined();
    expect(open.lastFailure).toBeUndefined();

    // dropped: down since it left open, whatever the retries after
    now += 60_000;
    const droppedAt = now;
    s.state$.next({ state: 'backoff', since: now });
    now += 500;
    s.state$.next({ state: 'fetchingToken', since: now });
    now += 15_000;
    s.state$.next({ state: 'backoff', since: now });
    expect(status.current()).toMatchObject({ sessionState: 'backoff', notOpenSince: droppedAt, everOpen: true });
    status.stop();
  });
});
