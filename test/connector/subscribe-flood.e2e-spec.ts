/**
 * A flood of stream requests (outside tester: 300–500 `stream.subscribe` at once from one client) must not cost
 * orders: the venue never drops a frame for the account's message budget (it dropped 29–61, an order among them,
 * left UNKNOWN), an order placed during the flood is sent within its gap, and the requests that could not leave
 * in time are refused BUSY at once instead of queuing to time out.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { isFinalStatus, type StreamReply } from '#contracts';
import {
  askForStream,
  liveQuotes,
  metricSum,
  sendOrderCommand,
  startConnectorStack,
  storedOutcomes,
  streamRequest,
  waitFor,
  type ConnectorStack,
} from './connector-stack.js';

describe('a flood of stream requests', () => {
  let stack: ConnectorStack;

  beforeAll(async () => {
    // the default budget of the real venue (30 frames/s per account), not the fast one of other suites
    stack = await startConnectorStack({ env: { VENUE_SUBSCRIBE_TIMEOUT_MS: '5000' } });
  }, 60_000);
  afterAll(async () => {
    await stack?.stop();
  });

  it('never trips the venue budget, refuses BUSY what cannot leave in time, and an order goes through meanwhile', async () => {
    const [quote] = await liveQuotes(stack.strategy, stack.venue, 'flood-algo', 1);
    const flood = Array.from({ length: 300 }, (_, i) =>
      askForStream(
        stack.strategy,
        streamRequest(stack.venue, 'flooder', { quantity: (0.1 + i / 10_000).toFixed(4), leaseSeconds: 30 }),
      ).catch((): StreamReply => ({ ok: false, error: { code: 'NO_REPLY', message: '' } })),
    );
    await new Promise((resolve) => setTimeout(resolve, 200)); // the flood queued
    await sendOrderCommand(stack, { clientRequestId: 'flood-ord-1', quoteId: quote, side: 'BUY' }, 'flood-ord-1');
    await waitFor(
      async () => (await storedOutcomes(stack.jsm, 'flood-ord-1')).some((o) => isFinalStatus(o.status)),
      'the order placed during the flood settled',
      15_000,
    );
    const venueSubscribes = () =>
      metricSum(stack.venue.restBaseUrl, 'sandbox_ws_frames_in_total', { messageType: 'subscribe' });
    const subscribesBeforeTheOrderSettled = await venueSubscribes();
    const outcome = (await storedOutcomes(stack.jsm, 'flood-ord-1')).find((o) => isFinalStatus(o.status));
    expect(outcome).toMatchObject({ status: 'SUCCESS' });
    const replies = await Promise.all(flood);
    const codes = new Map<string, number>();
    for (const reply of replies) {
      const code = reply.ok ? 'ok' : reply.error.code;
      codes.set(code, (codes.get(code) ?? 0) + 1);
    }
    // the venue dropped nothing for the budget
    expect(await metricSum(stack.venue.restBaseUrl, 'sandbox_ws_rate_limited_total', { limit: 'messages' })).toBe(0);
    // what could leave within the subscribe timeout was asked for; the rest was refused at once
    expect(codes.get('BUSY') ?? 0).toBeGreaterThan(100);
    expect((codes.get('ok') ?? 0) + (codes.get('BUSY') ?? 0) + (codes.get('TIMEOUT') ?? 0)).toBe(300);
    expect(codes.get('TIMEOUT') ?? 0).toBeLessThan(10);
    // the order did not wait behind the queued subscribes (it took 10 s, the flood's length, before)
    expect(subscribesBeforeTheOrderSettled).toBeLessThan(await venueSubscribes());
  }, 60_000);
});
