import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { isFinalStatus, type OrderOutcome } from '#contracts';
import {
  adminPost,
  liveQuotes,
  metricSum,
  metricValue,
  sendOrderCommand,
  startConnectorStack,
  storedOutcomes,
  waitFor,
  type ConnectorStack,
} from './connector-stack.js';

/**
 * The venue paces orders by when it reads them (W15: an order read < 250 ms after the account's previous accepted
 * one fails ORDER_RATE_LIMITED); a loaded venue host (or a slow path) reads an order late. The connector paces
 * the next order from the venue's first answer to the previous one as well as from its own send (spec-gaps K1).
 */
describe('order pace: anchored on the venue’s answer, not only on our send', () => {
  let stack: ConnectorStack;

  async function finalOutcome(clientRequestId: string): Promise<OrderOutcome> {
    const finals = async () =>
      (await storedOutcomes(stack.jsm, clientRequestId)).filter((o) => isFinalStatus(o.status));
    await waitFor(async () => (await finals()).length > 0, `final outcome of ${clientRequestId}`, 15_000);
    const stored = await finals();
    expect(stored).toHaveLength(1);
    return stored[0] as OrderOutcome;
  }

  beforeAll(async () => {
    stack = await startConnectorStack();
  });
  afterAll(async () => {
    await stack?.stop();
  });

  it('an order the venue reads late holds the next one until its answer: neither is refused for the pace', async () => {
    const [first, second] = await liveQuotes(stack.strategy, stack.venue, 'pace-a', 2);
    if (first === undefined || second === undefined) throw new Error('two live quotes expected');
    // the venue reads the first order 600 ms late — past our 300 ms gap, within the 1 s ceiling — and the frames
    // behind it on the socket after it: an order sent 300 ms after the first is read right after it
    await adminPost(stack.venue, 'faults/ws/late-order-reads', { count: 1, ms: 600 });
    await sendOrderCommand(stack, { clientRequestId: 'pace-1', quoteId: first, side: 'BUY' }, 'pace-1');
    await sendOrderCommand(stack, { clientRequestId: 'pace-2', quoteId: second, side: 'BUY' }, 'pace-2');
    expect(await finalOutcome('pace-1')).toMatchObject({ status: 'SUCCESS' });
    expect(await finalOutcome('pace-2')).toMatchObject({ status: 'SUCCESS' });
    const url = stack.connector.httpUrl;
    expect(await metricValue(url, 'connector_order_rate_limited_total')).toBe(0);
    // the second order waited for the venue's answer to the first, and an operator sees it did
    expect(await metricValue(url, 'connector_order_pace_wait_seconds_count', { bound: 'answer' })).toBe(1);
    expect(await metricSum(stack.venue.restBaseUrl, 'sandbox_orders_total', { outcome: 'FAILED' })).toBe(0);
  });
});
