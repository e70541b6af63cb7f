/**
 * Expired quotes, end to end, with the venue's clock behind the gateway's (sandbox `POST /admin/clock`), as an
 * outside integrator saw it (t3 F1, F3): an order by quoteId on a quote the gateway saw and that has expired is
 * refused QUOTE_EXPIRED (a made-up id stays QUOTE_UNKNOWN); a price whose quote is already past its life when it
 * arrives is published `stale` with code QUOTE_EXPIRED_ON_ARRIVAL, never `live`, and the connector's
 * `connector_venue_clock_lag_seconds` shows how far behind the venue's clock is.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from '@jest/globals';
import type { PriceMessage, PlaceOrderReply } from '#contracts';
import { eventually } from '#testing';
import {
  askForStream,
  liveQuotes,
  metricSum,
  metricValue,
  nextPrice,
  streamRequest,
} from '../connector/connector-stack.js';
import { adminPost, place, startExecutionStack, type ExecutionStack } from './execution-stack.js';

const QUOTE_LIFE_MS = 600_000;

describe('execution: quotes past their life', () => {
  let stack: ExecutionStack;
  let group: string;
  let keys = 0;

  const venueOrders = async () => metricSum(stack.venue.restBaseUrl, 'sandbox_orders_total');
  const byQuote = (quoteId: string) =>
    place(stack.algo, {
      idempotencyKey: `expiry-${(keys += 1)}`,
      strategyId: 'expiry',
      accountGroup: group,
      side: 'BUY',
      quoteId,
    });
  const refused = async (reply: Promise<PlaceOrderReply>) => {
    const before = await venueOrders();
    const answer = await reply;
    expect(await venueOrders()).toBe(before);
    if (answer.ok) throw new Error(`order accepted: ${answer.orderId}`);
    return answer.error;
  };
  const skew = (skewMs: number) => adminPost(stack.venue, 'clock', { skewMs });
  const connectorUrl = () => stack.stack.apps.connector.httpUrl;

  beforeAll(async () => {
    stack = await startExecutionStack();
    group = stack.venue.seed.defaultGroupUuid;
    await stack.startInstance('exec-expiry');
  });
  afterEach(async () => {
    await skew(0);
  });
  afterAll(async () => {
    await stack?.stop();
  });

  it('an order on a quote the gateway saw, once expired, is refused QUOTE_EXPIRED; a made-up quoteId QUOTE_UNKNOWN', async () => {
    // the venue 597 s behind: each quote has about 3 s of life left when it arrives
    await skew(-(QUOTE_LIFE_MS - 3_000));
    const [quoteId] = await liveQuotes(stack.algo, stack.venue, 'expiry-live', 1);
    await new Promise((resolve) => setTimeout(resolve, 3_500));

    const expired = await refused(byQuote(quoteId as string));
    expect(expired).toMatchObject({
      code: 'QUOTE_EXPIRED',
      values: { quoteId, quoteExpiresAt: expect.any(String), now: expect.any(String) },
    });
    expect(Date.parse(expired.values?.['quoteExpiresAt'] ?? '')).toBeLessThan(Date.now());
    expect(await refused(byQuote('never-issued-quote-id-000'))).toMatchObject({ code: 'QUOTE_UNKNOWN' });
  });

  it('a quote already past its life on arrival is published stale QUOTE_EXPIRED_ON_ARRIVAL, never live; the lag is a gauge; orders on it are QUOTE_EXPIRED', async () => {
    await skew(-(QUOTE_LIFE_MS + 60_000));
    const granted = await askForStream(
      stack.algo,
      streamRequest(stack.venue, 'expiry-late', { quantity: '0.02', leaseSeconds: 600 }),
    );
    if (!granted.ok) throw new Error(`stream refused: ${JSON.stringify(granted)}`);
    const seen: PriceMessage[] = [];
    const late = await nextPrice(stack.algo, granted.subject, (p) => {
      seen.push(p);
      return p.quoteId !== undefined;
    });
    expect(seen.filter((p) => p.status === 'live')).toEqual([]);
    expect(late).toMatchObject({ status: 'stale', code: 'QUOTE_EXPIRED_ON_ARRIVAL' });
    expect(late.quoteExpiresAt).toBeLessThan(Date.now());

    const lag = await metricValue(connectorUrl(), 'connector_venue_clock_lag_seconds');
    expect(lag).toBeGreaterThanOrEqual(660);
    expect(lag).toBeLessThan(670);
    expect(await metricValue(connectorUrl(), 'connector_prices_expired_on_arrival_total')).toBeGreaterThan(0);

    expect(await refused(byQuote(late.quoteId as string))).toMatchObject({
      code: 'QUOTE_EXPIRED',
      values: { quoteId: late.quoteId },
    });

    // the venue's clock back in place: the same stream is live again, the lag near 0
    await skew(0);
    const live = await nextPrice(stack.algo, granted.subject, (p) => p.status === 'live');
    expect(live.quoteExpiresAt).toBeGreaterThan(Date.now());
    await eventually(
      async () => ((await metricValue(connectorUrl(), 'connector_venue_clock_lag_seconds')) ?? 99) < 5 || undefined,
      { what: 'the lag back near 0' },
    );
  });
});
