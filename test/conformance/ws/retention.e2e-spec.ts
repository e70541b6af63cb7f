/**
 * What the venue keeps per stream, per quote and per connection is let go (spec-gaps W36): after a churn of
 * subscribes, unsubscribes and dropped connections over real sockets, the venue's own counts (`/metrics`:
 * subscriptions, connections, quotes held) come back to nothing once the quotes' life is over, and while
 * streams run the quote book never holds more than its limit. Quote life is shortened through configuration.
 */
import { describe, it, expect, beforeAll, afterAll } from '@jest/globals';
import { eventually } from '#testing';
import { FAST_TRADING, startWsVenue, subscribeRequest, type WsVenue } from './ws-harness.js';
import { isType, type WsTestClient } from './ws-test-client.js';

const QUOTE_LIFE_MS = 1_000;
const QUOTE_LIMIT = 300;

let v: WsVenue;

beforeAll(async () => {
  v = await startWsVenue({ ...FAST_TRADING, quoteTtlMs: QUOTE_LIFE_MS, quoteLimit: QUOTE_LIMIT });
});
afterAll(async () => {
  await v.close();
});

/** The one series of an unlabelled metric of the venue's own `/metrics` (the registry adds only `app`). */
async function sample(name: string): Promise<number> {
  const text = await (await fetch(`${v.venue.restBaseUrl}/metrics`)).text();
  const line = text.split('\n').find((l) => new RegExp(`^${name}(\\{[^}]*\\})? `).test(l));
  if (line === undefined) throw new Error(`${name} is not exported`);
  return Number(line.slice(line.lastIndexOf(' ') + 1));
}

/** Opens `count` streams on `client` and waits for a price on each; returns their subscriptionIds. */
async function openStreams(client: WsTestClient, round: number, count: number): Promise<unknown[]> {
  const tags = Array.from({ length: count }, (_, i) => `r${round}s${i}`);
  tags.forEach((tag, i) => client.send(subscribeRequest(v.venue, { quantity: `0.0${1000 + i}${round}`, tag })));
  const ids: unknown[] = [];
  for (const tag of tags) {
    const ack = await client.take(isType('subscribe', { tag }));
    expect(ack.json['success']).toBe(true);
    ids.push(ack.json['subscriptionId']);
    await client.take(isType('pricestream', { tag }));
  }
  return ids;
}

describe('stream churn leaves nothing behind (W36)', () => {
  it('subscriptions, connections and quotes held return to zero after rounds of subscribe, unsubscribe and drop', async () => {
    let highest = 0;
    for (let round = 0; round < 6; round += 1) {
      const client = await v.connect();
      const ids = await openStreams(client, round, 30);
      // Half released by the client; the rest die with the connection (a lease left to lapse, a socket drop).
      for (const subscriptionId of ids.slice(0, 15)) client.send({ messageType: 'unsubscribe', subscriptionId });
      await client.take(isType('unsubscribe', { subscriptionId: ids[14] }));
      highest = Math.max(highest, await sample('sandbox_quotes_held'));
      // The earlier rounds' connections are gone: only this one's remaining streams are live.
      await eventually(async () => ((await sample('sandbox_ws_subscriptions')) === 15 ? true : undefined), {
        what: 'the 15 streams left on this connection, and no other',
      });
      await client.close();
    }
    expect(highest).toBeGreaterThan(0);
    expect(highest).toBeLessThanOrEqual(QUOTE_LIMIT);
    const settled = await eventually(
      async () => {
        const counts = await Promise.all(
          ['sandbox_ws_subscriptions', 'sandbox_ws_connections', 'sandbox_quotes_held'].map(sample),
        );
        return counts.every((c) => c === 0) ? counts : undefined;
      },
      { what: 'no subscription, connection or quote left', timeoutMs: 15_000 },
    );
    expect(settled).toEqual([0, 0, 0]);
  });

  it('at its limit the book forgets the oldest quotes early, counts them, and the newest still executes', async () => {
    const client = await v.connect();
    const ids = await openStreams(client, 9, 40);
    // 40 streams every 40 ms for a quote life of 1 s: about 1 000 quotes live, over the limit of 300.
    await client.takeMany(isType('pricestream'), 2_000);
    expect(await sample('sandbox_quotes_held')).toBeLessThanOrEqual(QUOTE_LIMIT);
    expect(await sample('sandbox_quotes_forgotten_early_total')).toBeGreaterThan(0);
    const newest = client.seen(isType('pricestream')).at(-1);
    const clientRequestId = `retention-${Date.now()}`;
    client.send({ messageType: 'order', quoteId: newest?.json['quoteId'], side: 'BUY', clientRequestId });
    const outcome = await client.take(
      (f) => f['messageType'] === 'order' && f['clientRequestId'] === clientRequestId && f['orderStatus'] !== 'PENDING',
    );
    expect(outcome.json['orderStatus']).toBe('SUCCESS');
    for (const subscriptionId of ids) client.send({ messageType: 'unsubscribe', subscriptionId });
    await client.close();
  });
});
