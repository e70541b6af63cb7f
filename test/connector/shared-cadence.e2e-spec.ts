/**
 * W13, the per-connection reading of "at most 4 updates per second per connection" (§6.2, §8): the sandbox
 * (dialect `priceCadence: per-connection`, the `alternate` preset's) sends one update per tick for the whole
 * connection, its streams in turn. A connector told so (`VENUE_PRICE_UPDATES_PER_CONNECTION=4`) keeps every
 * stream live between its turns instead of flapping them stale (6 streams: a turn every 1.5 s; PRICE_STALE_AFTER_MS
 * 1 s); one not told (the default) sees the connection's updates spread over its streams and waits for two turns
 * too — 30 streams at 10 updates/s: a turn every 3 s — while a stream the venue stops sending still goes stale.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { PriceMessage } from '#contracts';
import {
  adminPost,
  askForStream,
  metricValue,
  startConnectorStack,
  streamRequest,
  subjects,
  waitFor,
  type ConnectorStack,
} from './connector-stack.js';

describe('connector against a venue whose price rate is shared by the connection', () => {
  let stack: ConnectorStack;

  beforeAll(async () => {
    stack = await startConnectorStack({
      venue: { dialect: { priceCadence: 'per-connection' }, trading: { priceIntervalMs: 250 } },
      env: { PRICE_STALE_AFTER_MS: '1000', VENUE_PRICE_UPDATES_PER_CONNECTION: '4' },
    });
  });
  afterAll(async () => {
    await stack?.stop();
  });

  it('every stream stays live between its turns and each gets its prices', async () => {
    const seen: PriceMessage[] = [];
    const sub = stack.strategy.subscribe(subjects.allPrices, {
      callback: (_error, msg) => {
        seen.push(msg.json<PriceMessage>());
      },
    });
    const quantities = ['0.1', '0.2', '0.3', '0.4', '0.5', '0.6'];
    for (const quantity of quantities) {
      const reply = await askForStream(
        stack.strategy,
        streamRequest(stack.venue, 'shared', { quantity, leaseSeconds: 600 }),
      );
      expect(reply.ok).toBe(true);
    }
    await new Promise((resolve) => setTimeout(resolve, 5_000));
    sub.unsubscribe();
    const statuses = new Set(seen.map((p) => p.status));
    expect(statuses).toEqual(new Set(['live']));
    expect(new Set(seen.map((p) => p.quantity))).toEqual(new Set(quantities));
  });
});

describe('connector not told the cadence, against a venue whose price rate is shared by the connection', () => {
  let stack: ConnectorStack;

  beforeAll(async () => {
    // the connector's defaults: no VENUE_PRICE_UPDATES_PER_CONNECTION; PRICE_STALE_AFTER_MS 1 s; 10 ticks a second
    stack = await startConnectorStack({ venue: { dialect: { priceCadence: 'per-connection' } } });
  });
  afterAll(async () => {
    await stack?.stop();
  });

  it('30 streams stay live between their turns; one the venue stops sending goes stale', async () => {
    const seen: PriceMessage[] = [];
    const sub = stack.strategy.subscribe(subjects.allPrices, {
      callback: (_error, msg) => {
        seen.push(msg.json<PriceMessage>());
      },
    });
    const btcSizes = Array.from({ length: 29 }, (_, i) => ((i + 1) / 10).toFixed(1));
    const requests = [
      ...btcSizes.map((quantity) => streamRequest(stack.venue, 'many', { quantity, leaseSeconds: 600 })),
      streamRequest(stack.venue, 'many', { instrument: 'ETH.USD', currency: 'ETH', quantity: '1', leaseSeconds: 600 }),
    ];
    for (const request of requests) expect((await askForStream(stack.strategy, request)).ok).toBe(true);
    const heard = () => new Set(seen.filter((p) => p.status === 'live').map((p) => `${p.instrument} ${p.quantity}`));
    await waitFor(() => heard().size === 30, 'a price on every stream', 15_000);
    // two more rounds of turns (each 3 s)
    await new Promise((resolve) => setTimeout(resolve, 7_000));
    expect(seen.filter((p) => p.status === 'stale')).toEqual([]);
    expect(await metricValue(stack.connector.httpUrl, 'connector_price_stale_after_seconds')).toBeGreaterThan(3);

    await adminPost(stack.venue, 'market/ETH.USD/silence');
    await waitFor(() => seen.some((p) => p.status === 'stale'), 'the silenced stream stale', 20_000);
    // a round more: the others keep their turns
    await new Promise((resolve) => setTimeout(resolve, 3_500));
    sub.unsubscribe();
    const stale = seen.filter((p) => p.status === 'stale');
    expect(stale.map((p) => p.instrument)).toEqual(['ETH.USD']);
  });
});
