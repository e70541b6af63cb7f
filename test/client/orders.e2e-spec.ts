/**
 * `placeOrder` with an injected fault: on a real nats-server, a stand-in for the execution app answers the
 * place request and leaves the order's outcome UNKNOWN (the venue did not say). The SDK resolves to the
 * UNKNOWN view after `settleWaitMs` — never a failure — and its events go on to the final state when it
 * comes. A refusal rejects with the gateway's code and the next step. (The real execution app behind the
 * whole stack: test/stack, test/cli, test/examples.)
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { connect, type NatsConnection } from '@nats-io/transport-node';
import { jetstream, jetstreamManager } from '@nats-io/jetstream';
import { lastValueFrom, toArray } from 'rxjs';
import { GatewayClient, GatewayError } from '#client';
import { ExecutionStreamName, ExecutionSubjects, Subjects, type OrderState, type OrderView } from '#contracts';
import { eventually, startNatsServer, type NatsServerHandle } from '#testing';

const ACCOUNT = 'orders-e2e';
const subjects = new ExecutionSubjects(new Subjects('gw.v1', ACCOUNT));

function view(orderId: string, state: OrderState): OrderView {
  return {
    v: 1,
    orderId,
    clientRequestId: `c-${orderId}`,
    idempotencyKey: `k-${orderId}`,
    strategyId: 'alpha',
    accountGroup: 'g',
    side: 'BUY',
    instrument: 'BTC.USD',
    quoteId: 'q',
    state,
    final: state === 'SUCCESS' || state === 'FAILED',
    acceptedAt: 0,
    updatedAt: 0,
    quoteExpiresAt: 600_000,
  };
}

describe('placeOrder (SDK) with an outcome the venue leaves open', () => {
  let nats: NatsServerHandle;
  let execution: NatsConnection;
  let client: GatewayClient;
  let refuse = false;
  const publishEvent = async (orderId: string, seq: number, state: OrderState) =>
    jetstream(execution).publish(
      subjects.orderEvent('alpha', orderId),
      JSON.stringify({ v: 1, seq, at: seq, order: view(orderId, state) }),
      {
        msgID: `${orderId}:${state}`,
      },
    );

  beforeAll(async () => {
    nats = await startNatsServer();
    execution = await connect({ servers: nats.url });
    await (
      await jetstreamManager(execution)
    ).streams.add({
      name: ExecutionStreamName.orderEvents(ACCOUNT),
      subjects: [subjects.allOrderEvents],
    });
    // the stand-in execution app: accepts (or refuses), then records the order and leaves it UNKNOWN
    execution.subscribe(subjects.place, {
      callback: (_error, message) => {
        if (refuse) {
          message.respond(
            JSON.stringify({
              ok: false,
              error: {
                code: 'TRADING_HALTED',
                message: 'trading is halted (global)',
                values: { scope: 'global', by: 'ops' },
                fields: [{ field: 'quantity', problem: 'quantity must be positive' }],
              },
            }),
          );
          return;
        }
        const orderId = `o-${message.json<{ idempotencyKey: string }>().idempotencyKey}`;
        void (async () => {
          await publishEvent(orderId, 1, 'INTENT_RECORDED');
          message.respond(
            JSON.stringify({
              ok: true,
              orderId,
              clientRequestId: `c-${orderId}`,
              duplicate: false,
              order: view(orderId, 'INTENT_RECORDED'),
            }),
          );
          await publishEvent(orderId, 2, 'SENT');
          await publishEvent(orderId, 3, 'UNKNOWN');
        })();
      },
    });
    await execution.flush();
    client = await GatewayClient.connect({ servers: nats.url, account: ACCOUNT });
  });
  afterAll(async () => {
    await client?.close();
    await execution?.drain();
    await nats?.stop();
  });

  const request = {
    strategyId: 'alpha',
    accountGroup: 'g',
    side: 'BUY' as const,
    instrument: 'BTC.USD',
    quantity: '0.01',
    currency: 'BTC',
    tenor: 'T',
  };

  it('resolves to UNKNOWN (not final, not failed) after settleWaitMs; the events go on to the final state', async () => {
    const order = client.placeOrder({ ...request, idempotencyKey: 'one' }, { settleWaitMs: 1_000 });
    const events = lastValueFrom(order.events.pipe(toArray()));
    const outcome = await order;
    expect(outcome).toMatchObject({ orderId: 'o-one', state: 'UNKNOWN', final: false });
    await publishEvent('o-one', 4, 'SUCCESS'); // the reconciliation settles it later
    expect((await events).map((e) => e.order.state)).toEqual(['INTENT_RECORDED', 'SENT', 'UNKNOWN', 'SUCCESS']);
  });

  it('follow() replays an order from its first event, and leaves no consumer behind once final', async () => {
    const states = await lastValueFrom(client.orders.follow('alpha', 'o-one').pipe(toArray()));
    expect(states.map((e) => e.seq)).toEqual([1, 2, 3, 4]);
    // outside tester: each followed order left its consumer on the server for 5 minutes (123 after a session)
    const jsm = await jetstreamManager(execution);
    await eventually(
      async () =>
        (await jsm.streams.info(ExecutionStreamName.orderEvents(ACCOUNT))).state.consumer_count === 0
          ? true
          : undefined,
      { what: 'no consumer left on the order events' },
    );
  });

  it('a refusal rejects with the gateway code and the next step; nothing to follow', async () => {
    refuse = true;
    const order = client.placeOrder({ ...request, idempotencyKey: 'two' });
    const error = await order.accepted.catch((e: unknown) => e);
    expect(error).toBeInstanceOf(GatewayError);
    expect(error).toMatchObject({ code: 'TRADING_HALTED' });
    expect((error as GatewayError).nextStep).toContain('gw resume');
    // outside tester: the reply's values and fields were readable only from the message text
    expect(error).toMatchObject({
      values: { scope: 'global', by: 'ops' },
      fields: [{ field: 'quantity', problem: 'quantity must be positive' }],
    });
    await expect(order.outcome).rejects.toBeInstanceOf(GatewayError);
    // a placed order is a Promise (outside tester: `.catch` threw a TypeError)
    const caught = await client.placeOrder({ ...request, idempotencyKey: 'two' }).catch((e: unknown) => e);
    expect(caught).toMatchObject({ code: 'TRADING_HALTED' });
  });

  it('a refusal handled on `accepted` alone leaves no unhandled rejection behind (the algo process lives on)', async () => {
    refuse = true;
    const unhandled: unknown[] = [];
    const onUnhandled = (reason: unknown) => unhandled.push(reason);
    process.on('unhandledRejection', onUnhandled);
    try {
      const order = client.placeOrder({ ...request, idempotencyKey: 'three' });
      await expect(order.accepted).rejects.toMatchObject({ code: 'TRADING_HALTED' });
      await new Promise((resolve) => setTimeout(resolve, 50));
      expect(unhandled).toEqual([]);
    } finally {
      process.off('unhandledRejection', onUnhandled);
    }
  });

  it('an explicit idempotencyKey: undefined still gets a generated key', async () => {
    refuse = false;
    const order = client.placeOrder({ ...request, idempotencyKey: undefined });
    // the stand-in names the order after the key it received: a UUID, not a missing key
    expect((await order.accepted).orderId).toMatch(/^o-[0-9a-f-]{36}$/);
  });
});
