import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { connect } from '@nats-io/transport-node';
import { DeliverPolicy, jetstream, jetstreamManager } from '@nats-io/jetstream';
import { StreamName, type ConnectorStatus, type PriceMessage } from '#contracts';
import {
  ACCOUNT,
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

describe('connector prices on NATS, against the sandbox venue', () => {
  let stack: ConnectorStack;
  let subject: string;

  beforeAll(async () => {
    stack = await startConnectorStack();
  });
  afterAll(async () => {
    await stack?.stop();
  });

  it('a strategy asks for a stream and receives live prices as plain JSON on the granted subject', async () => {
    const reply = await askForStream(stack.strategy, streamRequest(stack.venue, 'strategy-a'));
    if (!reply.ok) throw new Error(`stream refused: ${JSON.stringify(reply)}`);
    subject = reply.subject;
    expect(subject).toBe(`gw.v1.price.${stack.venue.seed.defaultGroupUuid}.BTC.USD.T.BTC.0_5`);
    expect(reply.leaseExpiresAt).toBeGreaterThan(Date.now());
    const price = await nextPrice(stack.strategy, subject, (p) => p.status === 'live');
    expect(price).toMatchObject({ v: 1, instrument: 'BTC.USD', tenor: 'T', currency: 'BTC', quantity: '0.5' });
    expect(typeof price.quoteId).toBe('string');
    expect(price.bid?.price).toMatch(/^\d+(\.\d+)?$/);
    expect(price.offer?.price).toMatch(/^\d+(\.\d+)?$/);
    expect(price.quoteExpiresAt).toBe((price.venueTimestamp ?? 0) + 600_000);
    expect(price.settleDate).toMatch(/^\d{8}$/);
  });

  it('a second strategy asking for the same stream shares the one venue subscription', async () => {
    const reply = await askForStream(stack.strategy, streamRequest(stack.venue, 'strategy-b'));
    expect(reply).toMatchObject({ ok: true, subject });
    await nextPrice(stack.strategy, subject, (p) => p.status === 'live');
    expect(await metricValue(stack.venue.restBaseUrl, 'sandbox_ws_subscriptions')).toBe(1);
  });

  it('a late joiner gets the last price at once: direct read by subject, or DeliverLastPerSubject', async () => {
    const late = await connect({ servers: stack.nats.url });
    try {
      const js = jetstream(late);
      const jsm = await jetstreamManager(late);
      const last = await jsm.streams.getMessage(StreamName.prices(ACCOUNT), { last_by_subj: subject });
      expect(last?.json<PriceMessage>().instrument).toBe('BTC.USD');
      const consumer = await js.consumers.get(StreamName.prices(ACCOUNT), {
        filter_subjects: subjects.allPrices, // one string: nats-server 2.9 has no multi-filter
        deliver_policy: DeliverPolicy.LastPerSubject,
      });
      const first = await consumer.next({ expires: 5_000 });
      expect(first?.subject).toBe(subject);
      expect(first?.json<PriceMessage>().quoteId).toEqual(expect.any(String));
      // the raw JetStream API, as a client in any language uses it (docs/nats-contract.md)
      const direct = await late.request(
        `$JS.API.DIRECT.GET.${StreamName.prices(ACCOUNT)}`,
        JSON.stringify({ last_by_subj: subject }),
        { timeout: 5_000 },
      );
      expect(direct.headers?.get('Nats-Subject')).toBe(subject);
      expect(direct.json<PriceMessage>().instrument).toBe('BTC.USD');
      const viaApi = await late.request(
        `$JS.API.STREAM.MSG.GET.${StreamName.prices(ACCOUNT)}`,
        JSON.stringify({ last_by_subj: subject }),
        { timeout: 5_000 },
      );
      const stored = viaApi.json<{ message: { subject: string; data: string } }>().message;
      expect(stored.subject).toBe(subject);
      expect(JSON.parse(Buffer.from(stored.data, 'base64').toString('utf8'))).toMatchObject({ instrument: 'BTC.USD' });
    } finally {
      await late.close();
    }
  });

  it('publishes connector status (session open, subscription counts) on a last-value subject', async () => {
    await waitFor(async () => {
      const last = await stack.jsm.streams
        .getMessage(StreamName.connectorStatus(ACCOUNT), { last_by_subj: subjects.connectorStatus })
        .catch(() => null);
      const status = last?.json<ConnectorStatus>();
      return status?.sessionState === 'open' && status.subscriptions.live === 1 && status.lastPriceAgeMs !== undefined;
    }, 'status with one live subscription');
    const health = await fetch(`${stack.connector.httpUrl}/health`);
    expect(health.status).toBe(200);
    expect(await health.json()).toMatchObject({ status: 'ok', checks: { nats: { up: true } } });
  });

  it('refuses an invalid strategy request with a clear error, and passes venue refusal codes through', async () => {
    const bad = await askForStream(stack.strategy, { ...streamRequest(stack.venue, 's'), quantity: 'lots' });
    expect(bad).toMatchObject({ ok: false, error: { code: 'INVALID_REQUEST' } });
    if (!bad.ok) expect(bad.error.message).toMatch(/quantity/);
    const notJson = await stack.strategy.request(subjects.streamSubscribe, 'hello', { timeout: 5_000 });
    expect(notJson.json()).toEqual({ ok: false, error: { code: 'INVALID_REQUEST', message: 'payload is not JSON' } });
    // outside tester: an instrument of 70,000 characters went to the venue, whose socket closed on it, again at
    // every reconnect: every strategy's prices went stale. Now refused here, and the session stays open.
    const huge = await askForStream(stack.strategy, {
      ...streamRequest(stack.venue, 's'),
      instrument: `${'A'.repeat(70_000)}.USD`,
    });
    expect(huge).toMatchObject({ ok: false, error: { code: 'INVALID_REQUEST' } });
    if (!huge.ok) {
      expect(huge.error.message).toMatch(/instrument/);
      expect(huge.error.message.length).toBeLessThan(1_000);
    }
    const refused = await askForStream(stack.strategy, streamRequest(stack.venue, 's', { tenor: 'NEVER' }));
    expect(refused.ok).toBe(false);
    if (!refused.ok) expect(refused.error.code).toMatch(/^RFS\d{6}$/);
    expect(
      await metricValue(stack.connector.httpUrl, 'bus_bad_requests_total', { subject_kind: 'stream.subscribe' }),
    ).toBe(3);
    expect(await metricValue(stack.connector.httpUrl, 'connector_session_state', { state: 'open' })).toBe(1);
  });

  it('answers the account-group lookup over NATS', async () => {
    const reply = await stack.strategy.request(subjects.accountGroups, '', { timeout: 10_000 });
    const body = reply.json<{ ok: boolean; accountGroups: { uuid: string }[] }>();
    expect(body.ok).toBe(true);
    expect(body.accountGroups.map((g) => g.uuid)).toContain(stack.venue.seed.defaultGroupUuid);
  });
});

/**
 * Issue 7, symptom 5: a venue that holds subscriptions across a reconnect of the same sessionId (the
 * sandbox's `held` reading). The connector keeps the venue's subscription ids and tags across the
 * reconnect: prices under the old tag keep the stream live, a release unsubscribes the held subscription,
 * and asking again re-acquires it.
 */
describe('a stream the venue holds across a reconnect', () => {
  let stack: ConnectorStack;

  beforeAll(async () => {
    stack = await startConnectorStack({ venue: { dialect: { subscriptionsOnReconnect: 'held' } } });
  });
  afterAll(async () => {
    await stack?.stop();
  });

  const venueSubscriptions = () => metricValue(stack.venue.restBaseUrl, 'sandbox_ws_subscriptions');
  const unknownTags = async () =>
    (await metricValue(stack.connector.httpUrl, 'connector_venue_frames_rejected_total', { reason: 'unknown_tag' })) ??
    0;

  it('stays live after the reconnect, releases at the venue, and can be acquired again', async () => {
    const reply = await askForStream(stack.strategy, streamRequest(stack.venue, 'held-a', { leaseSeconds: 600 }));
    if (!reply.ok) throw new Error(`stream refused: ${JSON.stringify(reply)}`);
    await nextPrice(stack.strategy, reply.subject, (p) => p.status === 'live');
    expect(await venueSubscriptions()).toBe(1);

    await adminPost(stack.venue, 'faults/ws/drop');
    const after = Date.now();
    const resumed = await nextPrice(
      stack.strategy,
      reply.subject,
      (p) => p.status === 'live' && (p.venueTimestamp ?? 0) > after,
    );
    expect(resumed.quoteId).toEqual(expect.any(String));
    expect(await unknownTags()).toBe(0);
    expect(await venueSubscriptions()).toBe(1); // the held one, not a second

    const released = await stack.strategy.request(
      subjects.streamRelease,
      JSON.stringify({ subject: reply.subject, requester: 'held-a' }),
    );
    expect(released.json()).toEqual({ ok: true });
    await waitFor(async () => (await venueSubscriptions()) === 0, 'the held subscription released at the venue');
    // A price the venue sent before it took the unsubscribe may still arrive for the released stream (counted as
    // an unknown tag); nothing may after the re-acquire.
    const lateOfReleased = await unknownTags();

    const again = await askForStream(stack.strategy, streamRequest(stack.venue, 'held-b', { leaseSeconds: 600 }));
    expect(again).toMatchObject({ ok: true, subject: reply.subject });
    const since = Date.now();
    await nextPrice(stack.strategy, reply.subject, (p) => p.status === 'live' && (p.venueTimestamp ?? 0) > since);
    expect(await unknownTags()).toBe(lateOfReleased);
  });

  it("the venue's clock steps back 20 s: its prices stay live (not held back until the clock has caught up)", async () => {
    const reply = await askForStream(stack.strategy, streamRequest(stack.venue, 'clock-a', { quantity: '0.3' }));
    if (!reply.ok) throw new Error(`stream refused: ${JSON.stringify(reply)}`);
    await nextPrice(stack.strategy, reply.subject, (p) => p.status === 'live');
    try {
      await adminPost(stack.venue, 'clock', { skewMs: -20_000 });
      const stepped = Date.now();
      const behind = await nextPrice(
        stack.strategy,
        reply.subject,
        (p) => p.status === 'live' && (p.venueTimestamp ?? Infinity) < stepped - 10_000,
        10_000,
      );
      expect(behind.quoteId).toEqual(expect.any(String));
      expect(await metricValue(stack.connector.httpUrl, 'connector_price_clock_steps_back_total')).toBeGreaterThan(0);
    } finally {
      await adminPost(stack.venue, 'clock', { skewMs: 0 });
    }
  });
});
