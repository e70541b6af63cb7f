/**
 * W13, the per-connection reading of "at most 4 updates per second per connection" (§6.2, §8): the sandbox
 * (dialect `priceCadence: per-connection`) sends one update per 250 ms tick for the whole connection, its
 * streams in turn. A connector told so (`VENUE_PRICE_UPDATES_PER_CONNECTION=4`) keeps every stream live
 * between its turns instead of flapping them stale (6 streams: a turn every 1.5 s; PRICE_STALE_AFTER_MS 1 s).
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { PriceMessage } from '#contracts';
import { askForStream, startConnectorStack, streamRequest, subjects, type ConnectorStack } from './connector-stack.js';

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
