/**
 * Stream churn against a venue that drops frames over the account's message budget (W9, W14): an unsubscribe
 * dropped that way left the subscription streaming at the venue until the next reconnect (outside tester: 84
 * orphans after a soak, ≈ 280 frames/s thrown away as unknown tags). The connector now sends an unanswered
 * unsubscribe again until the venue confirms it, and keeps every held subscription recorded in NATS KV even
 * when NATS comes back with an empty store. Real sockets: the sandbox venue, nats-server, the connector.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { BucketName } from '#bus';
import { KvBucketReader } from './kv-bucket-reader.js';
import {
  ACCOUNT,
  adminPost,
  askForStream,
  metricSum,
  metricValue,
  nextPrice,
  startConnectorStack,
  streamRequest,
  subjects,
  waitFor,
  type ConnectorStack,
} from './connector-stack.js';

const SIZES = ['0.1', '0.2', '0.3', '0.4', '0.5', '0.6'];

describe('no subscription stays at the venue after its stream is released', () => {
  let stack: ConnectorStack;

  beforeAll(async () => {
    stack = await startConnectorStack({ env: { VENUE_SUBSCRIBE_TIMEOUT_MS: '1000' } });
  });
  afterAll(async () => {
    await stack?.stop();
  });

  const venueSubscriptions = async () => (await metricValue(stack.venue.restBaseUrl, 'sandbox_ws_subscriptions')) ?? 0;
  const connectorMetric = async (name: string, labels: Record<string, string> = {}) =>
    (await metricValue(stack.connector.httpUrl, name, labels)) ?? 0;
  const ledger = () => new KvBucketReader(stack.jsm, BucketName.venueSubscriptions(ACCOUNT));

  async function openStreams(requester: string): Promise<string[]> {
    const granted: string[] = [];
    for (const quantity of SIZES) {
      const reply = await askForStream(stack.strategy, streamRequest(stack.venue, requester, { quantity }));
      if (!reply.ok) throw new Error(`stream refused: ${JSON.stringify(reply)}`);
      granted.push(reply.subject);
    }
    await Promise.all(granted.map((subject) => nextPrice(stack.strategy, subject, (p) => p.status === 'live')));
    return granted;
  }

  async function release(subject: string, requester: string): Promise<void> {
    const reply = await stack.strategy.request(subjects.streamRelease, JSON.stringify({ subject, requester }));
    expect(reply.json()).toEqual({ ok: true });
  }

  it('unsubscribes the venue dropped (MESSAGE_RATE_LIMITED) are sent again until every subscription is gone', async () => {
    const granted = await openStreams('churn-a');
    expect(await venueSubscriptions()).toBe(SIZES.length);
    // the venue drops the next four unsubscribes as over the budget: an error frame each, naming no message
    await adminPost(stack.venue, 'faults/ws/rate-limit-frames', { messageType: 'unsubscribe', count: 4 });
    for (const subject of granted) await release(subject, 'churn-a');
    await waitFor(async () => (await venueSubscriptions()) === 0, 'no subscription left at the venue', 15_000);
    await waitFor(
      async () =>
        (await connectorMetric('connector_venue_error_frames_total', {
          code: 'MESSAGE_RATE_LIMITED',
        })) === 4,
      'the four dropped unsubscribes answered with error frames',
    );
    // sent again: unanswered in time, or prices still streaming under the released tag — whichever came first
    expect(
      await metricSum(stack.connector.httpUrl, 'connector_venue_unsubscribes_resent_total'),
    ).toBeGreaterThanOrEqual(4);
    await waitFor(
      async () => (await connectorMetric('connector_venue_unsubscribes_unconfirmed')) === 0,
      'every unsubscribe confirmed by the venue',
    );
    // and the ledger forgets them only now, once the venue said they are gone
    expect(await ledger().liveKeys()).toEqual([]);
  }, 60_000);

  it('the purge markers of released subscriptions do not pile up in the ledger bucket (purged at start)', async () => {
    await stack.restartConnector();
    await waitFor(async () => (await ledger().messages()) === 0, 'no marker left in the bucket', 10_000);
  }, 60_000);

  it('after NATS restarts with an empty store, every held subscription is recorded in KV again', async () => {
    const granted = await openStreams('churn-b');
    expect((await ledger().liveKeys()).length).toBe(SIZES.length);
    await stack.restartNats(undefined, { emptyStore: true });
    await waitFor(
      async () =>
        (
          await ledger()
            .liveKeys()
            .catch(() => [])
        ).length === SIZES.length,
      'the held subscriptions recorded again',
      20_000,
    );
    for (const subject of granted) await release(subject, 'churn-b');
    await waitFor(async () => (await venueSubscriptions()) === 0, 'no subscription left at the venue', 15_000);
  }, 90_000);
});
