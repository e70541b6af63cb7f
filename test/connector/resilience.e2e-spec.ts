import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { Subscription } from '@nats-io/transport-node';
import type { ConnectorStatus, SessionState } from '#contracts';
import {
  adminPost,
  askForStream,
  metricValue,
  nextPrice,
  startConnectorStack,
  streamRequest,
  subjects,
  waitFor,
  type ConnectorStack,
} from './connector-stack.js';

describe('connector resilience: socket drop, token rejection, stale streams', () => {
  let stack: ConnectorStack;
  let subject: string;
  let statusWatch: Subscription;
  const states: SessionState[] = [];
  let lastStatus: ConnectorStatus | undefined;

  beforeAll(async () => {
    stack = await startConnectorStack();
    statusWatch = stack.strategy.subscribe(subjects.connectorStatus, {
      callback: (_error, msg) => {
        lastStatus = msg.json<ConnectorStatus>();
        if (states[states.length - 1] !== lastStatus.sessionState) states.push(lastStatus.sessionState);
      },
    });
    const reply = await askForStream(stack.strategy, streamRequest(stack.venue, 'strategy-r', { leaseSeconds: 600 }));
    if (!reply.ok) throw new Error(`stream refused: ${JSON.stringify(reply)}`);
    subject = reply.subject;
    await nextPrice(stack.strategy, subject, (p) => p.status === 'live');
  });
  afterAll(async () => {
    statusWatch?.unsubscribe();
    await stack?.stop();
  });

  it('after the venue drops the socket, the connector resubscribes and prices resume', async () => {
    const reconnectsBefore = lastStatus?.reconnects ?? 0;
    const droppedAt = Date.now();
    expect(await adminPost(stack.venue, 'faults/ws/drop')).toEqual({ dropped: 1 });
    const resumed = await nextPrice(
      stack.strategy,
      subject,
      (p) => p.status === 'live' && (p.venueTimestamp ?? 0) > droppedAt + 50,
    );
    expect(resumed.quoteId).toEqual(expect.any(String));
    await waitFor(() => (lastStatus?.reconnects ?? 0) > reconnectsBefore, 'status counts the reconnect');
    expect(await metricValue(stack.venue.restBaseUrl, 'sandbox_ws_subscriptions')).toBe(1);
  });

  it('when token requests are refused, the session backs off and recovers', async () => {
    states.length = 0;
    // six refusals: three token fetches fail (each retries an auth failure once, freshly signed)
    await adminPost(stack.venue, 'faults/token', { count: 6 });
    await adminPost(stack.venue, 'faults/ws/drop');
    await waitFor(
      () => states.includes('backoff') && lastStatus?.sessionState === 'open',
      'backoff, then open',
      15_000,
    );
    const after = Date.now();
    await nextPrice(stack.strategy, subject, (p) => p.status === 'live' && (p.venueTimestamp ?? 0) > after);
    expect(states.filter((s) => s === 'fetchingToken').length).toBeGreaterThanOrEqual(2);
    const refusedFetches = await metricValue(stack.connector.httpUrl, 'connector_token_fetch_seconds_count', {
      result: 'error',
    });
    expect(refusedFetches).toBeGreaterThanOrEqual(3);
    const health = await fetch(`${stack.connector.httpUrl}/health`);
    expect(health.status).toBe(200);
  });

  it('marks a stream stale when its updates stop, and live again when they resume', async () => {
    await adminPost(stack.venue, 'faults/ws/stall', { durationMs: 2_500 });
    const stale = await nextPrice(stack.strategy, subject, (p) => p.status === 'stale');
    expect(stale.quoteId).toEqual(expect.any(String));
    await nextPrice(stack.strategy, subject, (p) => p.status === 'live');
    expect(
      await metricValue(stack.connector.httpUrl, 'connector_prices_published_total', { status: 'stale' }),
    ).toBeGreaterThanOrEqual(1);
  });
});
