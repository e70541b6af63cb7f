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

  /** The last price is readable again, and an order command is taken, sent once and its outcome stored. */
  async function worksOn(clientRequestId: string): Promise<void> {
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
    await sendOrderCommand(stack, { clientRequestId, quoteId: quote.quoteId, side: 'BUY' }, clientRequestId);
    const filled = async () => (await storedOutcomes(stack.jsm, clientRequestId)).filter((o) => o.status === 'SUCCESS');
    await waitFor(async () => (await filled()).length > 0, `the outcome of ${clientRequestId}`, 20_000);
    expect(await filled()).toHaveLength(1);
  }

  it('reconnects, re-declares the last-value streams, and keeps taking orders', async () => {
    await stack.restartNats();
    await waitFor(
      async () => ((await metricValue(stack.connector.httpUrl, 'bus_reconnects_total')) ?? 0) >= 1,
      'the connector reconnected to NATS',
      20_000,
    );
    // the memory price stream was lost with the server; the connector declares it again and fills it
    await worksOn('nats-out-1');
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
        StreamName.orderRecalls(ACCOUNT),
        StreamName.prices(ACCOUNT),
        `KV_${BucketName.orderMarks(ACCOUNT)}`,
        `KV_${BucketName.venueSubscriptions(ACCOUNT)}`,
        `KV_${BucketName.priceSubjects(ACCOUNT)}`,
      ].sort(),
    );
    await worksOn('nats-empty-1');
    expect(await metricValue(stack.connector.httpUrl, 'jetstream_info_errors')).toBe(0);
  });
});
