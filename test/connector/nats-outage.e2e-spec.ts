import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { BucketName } from '#bus';
import { StreamName, type PriceMessage } from '#contracts';
import {
  ACCOUNT,
  askForStream,
  metricValue,
  nextPrice,
  sendOrderCommand,
  startConnectorStack,
  storedOutcomes,
  streamRequest,
  waitFor,
  type ConnectorStack,
} from './connector-stack.js';

describe('connector across a nats-server restart', () => {
  let stack: ConnectorStack;
  let subject: string;

  beforeAll(async () => {
    stack = await startConnectorStack();
    const reply = await askForStream(stack.strategy, streamRequest(stack.venue, 'algo-n', { leaseSeconds: 600 }));
    if (!reply.ok) throw new Error(`stream refused: ${JSON.stringify(reply)}`);
    subject = reply.subject;
    await nextPrice(stack.strategy, subject, (p) => p.status === 'live');
  });
  afterAll(async () => {
    await stack?.stop();
  });

  it('reconnects, re-declares the last-value streams, and keeps taking orders', async () => {
    await stack.restartNats();
    await waitFor(
      async () => ((await metricValue(stack.connector.httpUrl, 'bus_reconnects_total')) ?? 0) >= 1,
      'the connector reconnected to NATS',
      20_000,
    );
    // the memory price stream was lost with the server; the connector declares it again and fills it
    await waitFor(
      async () => {
        const last = await stack.jsm.streams
          .getMessage(StreamName.prices(ACCOUNT), { last_by_subj: subject })
          .catch(() => null);
        return last?.json<PriceMessage>().status === 'live';
      },
      'the last price is readable again',
      20_000,
    );
    const quote = await nextPrice(stack.strategy, subject, (p) => p.status === 'live');
    await sendOrderCommand(stack, { clientRequestId: 'nats-out-1', quoteId: quote.quoteId, side: 'BUY' }, 'nats-out-1');
    await waitFor(
      async () => (await storedOutcomes(stack.jsm, 'nats-out-1')).some((o) => o.status === 'SUCCESS'),
      'the order outcome',
      20_000,
    );
    expect((await storedOutcomes(stack.jsm, 'nats-out-1')).filter((o) => o.status === 'SUCCESS')).toHaveLength(1);
  });

  it('after NATS comes back with an empty store, declares its streams, bucket and consumer again and works on', async () => {
    const declaredAgain = () =>
      metricValue(stack.connector.httpUrl, 'bus_topology_redeclarations_total', { trigger: 'reconnect', result: 'ok' });
    const before = (await declaredAgain()) ?? 0;
    await stack.restartNats(undefined, { emptyStore: true });
    await waitFor(async () => ((await declaredAgain()) ?? 0) > before, 'the topology declared again', 20_000);
    expect(await metricValue(stack.connector.httpUrl, 'bus_topology_missing')).toBe(0);
    const names: string[] = [];
    for await (const name of stack.jsm.streams.names()) names.push(name);
    expect(names.sort()).toEqual(
      [
        StreamName.connectorStatus(ACCOUNT),
        StreamName.orderCommands(ACCOUNT),
        StreamName.orderOutcomes(ACCOUNT),
        StreamName.prices(ACCOUNT),
        `KV_${BucketName.orderMarks(ACCOUNT)}`,
      ].sort(),
    );
    // the last price and the status are readable again
    await waitFor(
      async () => {
        const last = await stack.jsm.streams
          .getMessage(StreamName.prices(ACCOUNT), { last_by_subj: subject })
          .catch(() => null);
        return last?.json<PriceMessage>().status === 'live';
      },
      'the last price is readable again',
      20_000,
    );
    // an order command is taken from the work queue declared again, marked, sent once and its outcome stored
    const quote = await nextPrice(stack.strategy, subject, (p) => p.status === 'live');
    await sendOrderCommand(
      stack,
      { clientRequestId: 'nats-empty-1', quoteId: quote.quoteId, side: 'BUY' },
      'nats-empty-1',
    );
    await waitFor(
      async () => (await storedOutcomes(stack.jsm, 'nats-empty-1')).some((o) => o.status === 'SUCCESS'),
      'the order outcome after the empty store',
      20_000,
    );
    expect((await storedOutcomes(stack.jsm, 'nats-empty-1')).filter((o) => o.status === 'SUCCESS')).toHaveLength(1);
    expect(await metricValue(stack.connector.httpUrl, 'jetstream_info_errors')).toBe(0);
  });
});
