/**
 * The venue side against the REAL sandbox venue over real sockets (REST token, WebSocket, admin faults).
 * Timers are shortened through the options; every wait is on an event or a polled condition.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it, jest } from '@jest/globals';
import type { OrderOutcome, PriceMessage, StreamRequest } from '#contracts';
import type { ServiceMessage } from '#venue-api';
import { type RunningSandbox, startSandboxVenue } from '../../../sandbox-venue/src/bootstrap.js';
import { admin, eventually, next, startVenueSide } from './testing/venue-fixture.js';
import type { VenueSide } from './venue-side.js';

let sandbox: RunningSandbox;
const sides: VenueSide[] = [];

beforeAll(async () => {
  sandbox = await startSandboxVenue({ port: 0, trading: { priceIntervalMs: 50, executionDelayMs: 20 } });
});
afterEach(async () => {
  await admin(sandbox, '/faults/ws/clear');
  await Promise.all(sides.splice(0).map((side) => side.close()));
});
afterAll(async () => {
  await sandbox.close();
});

function start(overrides: Parameters<typeof startVenueSide>[1] = {}, deps: Parameters<typeof startVenueSide>[2] = {}) {
  const started = startVenueSide(sandbox, overrides, deps);
  sides.push(started.side);
  return started;
}

const btc = (requester: string, accountGroup = sandbox.seed.defaultGroupUuid): StreamRequest =>
  Object.assign({ instrument: 'BTC.USD', quantity: '0.5', currency: 'BTC', tenor: 'T', requester }, { accountGroup });
const eth = (requester: string): StreamRequest =>
  Object.assign(btc(requester), { instrument: 'ETH.USD', currency: 'ETH' });

const isLive = (instrument: string) => (p: PriceMessage) => p.status === 'live' && p.instrument === instrument;

describe('VenueSide against the sandbox venue', () => {
  it('subscribes and routes each stream’s prices by tag', async () => {
    const { side, tokens, lines } = start();
    const btcPrice = next(side.prices.prices$, isLive('BTC.USD'));
    const ethPrice = next(side.prices.prices$, isLive('ETH.USD'));
    expect(await side.prices.acquire(btc('s1'))).toEqual(expect.objectContaining({ ok: true }));
    expect(await side.prices.acquire(eth('s1'))).toEqual(expect.objectContaining({ ok: true }));
    const [b, e] = await Promise.all([btcPrice, ethPrice]);
    for (const [p, currency] of [
      [b, 'BTC'],
      [e, 'ETH'],
    ] as const) {
      expect(p.currency).toBe(currency);
      expect(p.quoteId).toEqual(expect.any(String));
      expect(p.quoteExpiresAt).toBe((p.venueTimestamp ?? 0) + 600_000);
      expect(p.bid?.price).toMatch(/^\d/);
      expect(p.offer?.quantity).toBe(p.bid?.quantity);
      expect(p.settleDate).toMatch(/^\d{8}$/);
    }
    expect(side.prices.counts()).toEqual({ live: 2, stale: 0, pending: 0 });
    expect(side.prices.lastPriceAt()).toEqual(expect.any(Number));
    // Secrets never reach the logs: neither the API secret nor any WebSocket token.
    const log = lines.join('');
    expect(tokens.length).toBeGreaterThan(0);
    for (const secret of [...tokens, sandbox.credentials.primary.apiSecret]) expect(log).not.toContain(secret);
  });

  it('shares one venue subscription between two requesters', async () => {
    const { side } = start();
    const send = jest.spyOn(side.session, 'send');
    const [a, b] = await Promise.all([side.prices.acquire(btc('s1')), side.prices.acquire(btc('s2'))]);
    expect(a.ok && b.ok).toBe(true);
    await next(side.prices.prices$, isLive('BTC.USD'));
    expect(send.mock.calls.filter(([m]) => m.messageType === 'subscribe')).toHaveLength(1);
    side.prices.release({ ...btc('s1') });
    await next(side.prices.prices$, isLive('BTC.USD'));
    side.prices.release({ ...btc('s2') });
    await eventually(() => (send.mock.calls.some(([m]) => m.messageType === 'unsubscribe') ? true : undefined));
  });

  it('surfaces a refused subscribe with the venue’s code', async () => {
    const { side } = start();
    const stopped = next(side.prices.prices$, (p) => p.status === 'stopped');
    const result = await side.prices.acquire(Object.assign(btc('s1'), { instrument: 'BTC.XYZ', currency: 'BTC' }));
    expect(result).toEqual(expect.objectContaining({ ok: false, code: 'RFS100011' }));
    expect((await stopped).code).toBe('RFS100011');
  });

  it('re-subscribes after the socket drops and prices resume', async () => {
    const { side } = start();
    await side.prices.acquire(btc('s1'));
    const before = await next(side.prices.prices$, isLive('BTC.USD'));
    const reconnected = next(side.session.state$, (s) => s.state === 'fetchingToken');
    await admin(sandbox, '/faults/ws/drop', { sessionId: side.options.sessionId });
    await reconnected;
    const after = await next(
      side.prices.prices$,
      (p) => isLive('BTC.USD')(p) && (p.venueTimestamp ?? 0) > (before.venueTimestamp ?? 0),
    );
    expect(after.status).toBe('live');
    expect(side.session.reconnects).toBe(1);
    expect(side.prices.counts()).toEqual({ live: 1, stale: 0, pending: 0 });
  });

  it('backs off while tokens are refused, then recovers', async () => {
    // The lost connection is retried at once; its token is refused twice (the REST client tries an auth failure
    // once more), a failed attempt, so the next waits a full-jitter delay: up to 50 ms, and 0 ms — no backoff
    // at all — in one draw of fifty with a random jitter. Fixed mid-range here: 25 ms.
    const { side } = start({}, { random: () => 0.5 });
    await next(side.session.state$, (s) => s.state === 'open');
    await admin(sandbox, '/faults/token', { count: 2 });
    const backoff = next(side.session.state$, (s) => s.state === 'backoff');
    await admin(sandbox, '/faults/ws/drop', { sessionId: side.options.sessionId });
    await backoff;
    await next(side.session.state$, (s) => s.state === 'open');
    await side.prices.acquire(btc('s1'));
    await next(side.prices.prices$, isLive('BTC.USD'));
  });

  it('detects a silent stall and reconnects', async () => {
    const { side, registry } = start();
    await side.prices.acquire(btc('s1'));
    await next(side.prices.prices$, isLive('BTC.USD'));
    const lost = next(side.session.state$, (s) => s.state === 'fetchingToken');
    await admin(sandbox, '/faults/ws/stall', { sessionId: side.options.sessionId });
    await lost;
    await next(side.prices.prices$, isLive('BTC.USD'));
    const metrics = await registry.getSingleMetricAsString('connector_venue_reconnects_total');
    expect(metrics).toMatch(/reason="stalled"[^\n]* 1/);
  });

  it('publishes stale when a stream stops updating, and stopped on streamStop', async () => {
    const { side } = start({ staleAfterMs: 300 });
    await side.prices.acquire(btc('s1'));
    await next(side.prices.prices$, isLive('BTC.USD'));
    const stale = next(side.prices.prices$, (p) => p.status === 'stale');
    await admin(sandbox, '/faults/ws/stall', { sessionId: side.options.sessionId, durationMs: 500 });
    expect((await stale).instrument).toBe('BTC.USD');
    await next(side.prices.prices$, isLive('BTC.USD'));
    const stopped = next(side.prices.prices$, (p) => p.status === 'stopped');
    await admin(sandbox, '/market/BTC.USD/halt', { message: 'halted for the test' });
    try {
      expect(await stopped).toEqual(expect.objectContaining({ instrument: 'BTC.USD', status: 'stopped' }));
      expect(side.prices.counts()).toEqual({ live: 0, stale: 0, pending: 0 });
    } finally {
      await admin(sandbox, '/market/BTC.USD/resume');
    }
  });

  it('refreshes the connection before its age limit without two sockets on one sessionId', async () => {
    const { side } = start({ connectionMaxAgeMs: 400 });
    const errors: ServiceMessage[] = [];
    side.session.addFrameListener((m) => {
      if (m.messageType === 'error') errors.push(m);
    });
    await side.prices.acquire(btc('s1'));
    await next(side.prices.prices$, isLive('BTC.USD'));
    await eventually(() => (side.session.reconnects >= 2 ? true : undefined));
    await next(side.prices.prices$, isLive('BTC.USD'));
    expect(errors.filter((e) => e.messageType === 'error' && e.code === 'SESSION_REPLACED')).toEqual([]);
  });

  it('places an order on a streamed quote and publishes PENDING then SUCCESS', async () => {
    const { side } = start();
    await side.prices.acquire(btc('s1'));
    const price = await next(side.prices.prices$, isLive('BTC.USD'));
    const outcomes: OrderOutcome[] = [];
    side.orders.outcomes$.subscribe((o) => outcomes.push(o));
    const success = next(side.orders.outcomes$, (o) => o.status === 'SUCCESS');
    await side.orders.submit({ clientRequestId: 'it-order-1', quoteId: price.quoteId ?? '', side: 'BUY' });
    const outcome = await success;
    expect(outcome).toEqual(
      expect.objectContaining({ clientRequestId: 'it-order-1', source: 'reply', price: price.offer?.price }),
    );
    expect(outcomes.map((o) => o.status)).toEqual(['PENDING', 'SUCCESS']);
    await eventually(() => (side.orders.inFlight === 0 ? true : undefined));
  });

  it('delivers an outcome lost on the wire after a reconnect, by redelivery, exactly once', async () => {
    // Another account than the other order test's, so the venue's per-account order pacing (W15) is its own.
    const user2 = sandbox.credentials.secondUser;
    const { side, rest } = start({ apiKey: user2.apiKey, apiSecret: user2.apiSecret });
    await side.prices.acquire(btc('s1', sandbox.seed.user2DefaultGroup));
    const price = await next(side.prices.prices$, isLive('BTC.USD'));
    const outcomes: OrderOutcome[] = [];
    side.orders.outcomes$.subscribe((o) => outcomes.push(o));
    await admin(sandbox, '/faults/ws/drop-order-outcomes', { count: 1 });
    const first = next(side.orders.outcomes$, () => true);
    await side.orders.submit({ clientRequestId: 'it-order-2', quoteId: price.quoteId ?? '', side: 'SELL' });
    expect(await first).toEqual(expect.objectContaining({ status: 'PENDING' }));
    // The venue has executed it (its frame was dropped): visible over REST, not yet on our socket.
    await eventually(async () => {
      const states = await rest.orderState('it-order-2');
      return states.some((s) => s.orderStatus === 'SUCCESS') ? true : undefined;
    });
    expect(outcomes.map((o) => o.status)).toEqual(['PENDING']);
    const success = next(side.orders.outcomes$, (o) => o.status === 'SUCCESS');
    await admin(sandbox, '/faults/ws/drop', { sessionId: side.options.sessionId });
    expect(await success).toEqual(expect.objectContaining({ clientRequestId: 'it-order-2', source: 'redelivery' }));
    await eventually(() => (side.orders.inFlight === 0 ? true : undefined));
    expect(outcomes.map((o) => o.status)).toEqual(['PENDING', 'SUCCESS']);
  });

  it('looks up the account groups over the socket', async () => {
    const { side } = start();
    await next(side.session.state$, (s) => s.state === 'open');
    const groups = await side.accountGroups.lookup();
    expect(groups).toEqual(
      expect.arrayContaining([expect.objectContaining({ uuid: sandbox.seed.defaultGroupUuid, natural: true })]),
    );
  });

  it('drains on stop: the session ends stopped', async () => {
    const { side } = start();
    await next(side.session.state$, (s) => s.state === 'open');
    const states: string[] = [];
    side.session.state$.subscribe((s) => states.push(s.state));
    await side.session.stop();
    expect(states).toEqual(['open', 'draining', 'stopped']);
  });
});
