/**
 * A quote is traded only while its stream is live *now*: an order by quoteId on a quote taken from a live price is
 * refused once the stream turned stopped, or went silent with nobody left to say `stale` (a connector that died or
 * was cut off from NATS). Here the connector says `stale` only after 30 s and its status once a minute, so the
 * silence is execution's to see.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { PriceMessage } from '#contracts';
import { eventually } from '#testing';
import { adminPost, liveQuotes, metricSum, nextPrice, subjects } from '../connector/connector-stack.js';
import { finalEvents, place, startExecutionStack, type ExecutionStack } from './execution-stack.js';

const STALL_MS = 4_000;

describe('execution: quotes of streams that are no longer live', () => {
  let stack: ExecutionStack;
  let group: string;
  let keys = 0;

  const venueOrders = async () => metricSum(stack.venue.restBaseUrl, 'sandbox_orders_total');
  const byQuote = (strategyId: string, quoteId: string) =>
    place(stack.algo, {
      idempotencyKey: `fresh-${(keys += 1)}`,
      strategyId,
      accountGroup: group,
      side: 'BUY',
      quoteId,
    });
  const byRequest = (strategyId: string, quantity: string) =>
    place(stack.algo, {
      idempotencyKey: `fresh-${(keys += 1)}`,
      strategyId,
      accountGroup: group,
      side: 'BUY',
      instrument: 'BTC.USD',
      quantity,
      currency: 'BTC',
      tenor: 'T',
    });

  beforeAll(async () => {
    stack = await startExecutionStack({
      // as a dead connector: it says neither `stale` nor anything else (no status) during the stall, nor reconnects
      connectorEnv: { PRICE_STALE_AFTER_MS: '30000', VENUE_STALL_TIMEOUT_MS: '15000', STATUS_INTERVAL_MS: '60000' },
      executionEnv: { PRICE_SILENT_STALE_MS: '1500', QUOTE_WAIT_MS: '500' },
    });
    group = stack.venue.seed.defaultGroupUuid;
    await stack.startInstance('exec-fresh');
  });
  afterAll(async () => {
    await stack?.stop();
  });

  it('a silent stream (nobody says stale): its held quote is refused QUOTE_STALE, a quote request finds none; both trade again once prices flow', async () => {
    // execution holds the stream too (its quote request), so it stays subscribed through the stall
    const first = await eventually(async () => {
      const reply = await byRequest('silent', '0.5');
      return reply.ok ? reply : undefined; // the stream's first price may take longer than QUOTE_WAIT_MS
    }, 10_000);
    await finalEvents(stack.js, 'silent', first.orderId);
    const [quoteId] = await liveQuotes(stack.algo, stack.venue, 'fresh-e2e', 1);
    const before = await venueOrders();

    const stalled = Date.now();
    await adminPost(stack.venue, 'faults/ws/stall', { durationMs: STALL_MS });
    await new Promise((resolve) => setTimeout(resolve, 2_200));
    const held = await byQuote('silent', quoteId as string);
    const requested = await byRequest('silent', '0.5');
    // the checks above ran inside the stall (else the test proves nothing)
    expect(Date.now() - stalled).toBeLessThan(STALL_MS);

    expect(held).toMatchObject({ ok: false, error: { code: 'QUOTE_STALE', values: { status: 'stale' } } });
    expect(requested).toMatchObject({ ok: false, error: { code: 'QUOTE_UNAVAILABLE' } });
    expect(await venueOrders()).toBe(before);

    // prices flow again: a quote request trades on a fresh quote
    const again = await eventually(async () => {
      const reply = await byRequest('silent', '0.5');
      return reply.ok ? reply : undefined;
    }, 15_000);
    await finalEvents(stack.js, 'silent', again.orderId);
  });

  it('a released stream (last value stopped): a quote taken while it was live is refused QUOTE_NOT_LIVE', async () => {
    const request = {
      instrument: 'BTC.USD',
      quantity: '0.25',
      currency: 'BTC',
      tenor: 'T',
      accountGroup: group,
      requester: 'fresh-release',
      leaseSeconds: 600,
    };
    const granted = (
      await stack.algo.request(subjects.streamSubscribe, JSON.stringify(request), { timeout: 10_000 })
    ).json<{ ok: boolean; subject: string }>();
    expect(granted.ok).toBe(true);
    const live = await nextPrice(stack.algo, granted.subject, (p: PriceMessage) => p.status === 'live');
    const stopped = nextPrice(stack.algo, granted.subject, (p: PriceMessage) => p.status === 'stopped');
    await stack.algo.request(
      subjects.streamRelease,
      JSON.stringify({ subject: granted.subject, requester: 'fresh-release' }),
      { timeout: 10_000 },
    );
    await stopped;
    const before = await venueOrders();

    // the execution app got the stopped price before this request: one connection, in the server's order
    const reply = await byQuote('released', live.quoteId as string);

    expect(reply).toMatchObject({ ok: false, error: { code: 'QUOTE_NOT_LIVE', values: { status: 'stopped' } } });
    expect(await venueOrders()).toBe(before);
  });
});
