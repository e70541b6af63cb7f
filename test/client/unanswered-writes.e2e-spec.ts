/**
 * A write the gateway never answers (an order placed, a withdrawal submitted; the app took it, or not, and
 * went silent): on a real nats-server, stand-ins for the execution and account-sync apps receive the requests
 * and answer nothing. The SDK rejects with an `OutcomeUnknownError` carrying the idempotency key it sent (the
 * generated one too), so the caller can ask again with that key — never a new one. Nobody listening at all is
 * NO_RESPONDER: nothing was received, nothing is unknown.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { connect, type NatsConnection } from '@nats-io/transport-node';
import { ClientErrorCode, GatewayClient, GatewayError, OutcomeUnknownError } from '#client';
import { ExecutionSubjects, Subjects, WithdrawalSubjects } from '#contracts';
import { startNatsServer, type NatsServerHandle } from '#testing';

const ACCOUNT = 'silent';

describe('SDK writes without an answer', () => {
  let nats: NatsServerHandle;
  let silent: NatsConnection;
  let client: GatewayClient;
  const received: { subject: string; idempotencyKey: string }[] = [];

  beforeAll(async () => {
    nats = await startNatsServer();
    silent = await connect({ servers: nats.url });
    const place = new ExecutionSubjects(new Subjects('gw.v1', ACCOUNT)).place;
    const submit = new WithdrawalSubjects('gw.v1', ACCOUNT).submit;
    for (const subject of [place, submit]) {
      silent.subscribe(subject, {
        callback: (_error, message) => {
          received.push({ subject, idempotencyKey: message.json<{ idempotencyKey: string }>().idempotencyKey });
        },
      });
    }
    await silent.flush();
    client = await GatewayClient.connect({
      servers: nats.url,
      account: ACCOUNT,
      requestTimeoutMs: 500,
      venueWriteTimeoutMs: 500,
    });
  });
  afterAll(async () => {
    await client?.close();
    await silent?.drain();
    await nats?.stop();
  });

  const order = {
    strategyId: 'alpha',
    accountGroup: 'g',
    side: 'BUY' as const,
    instrument: 'BTC.USD',
    quantity: '0.01',
    currency: 'BTC',
    tenor: 'T',
  };

  it('a place without an answer rejects OUTCOME_UNKNOWN with the generated key it sent', async () => {
    const placed = client.placeOrder(order);
    const error = await placed.accepted.catch((e: unknown) => e);
    expect(error).toBeInstanceOf(OutcomeUnknownError);
    expect(error).toBeInstanceOf(GatewayError);
    const sent = received.at(-1);
    expect(sent?.idempotencyKey).toMatch(/^[0-9a-f-]{36}$/);
    expect(error).toMatchObject({ code: ClientErrorCode.OutcomeUnknown, idempotencyKey: sent?.idempotencyKey });
    expect(placed.idempotencyKey).toBe(sent?.idempotencyKey);
    expect((error as GatewayError).nextStep).toContain(`same idempotency key "${sent?.idempotencyKey ?? ''}"`);
    expect((error as OutcomeUnknownError).cause).toMatchObject({ code: 'TIMEOUT' });
    await expect(placed.outcome).rejects.toBeInstanceOf(OutcomeUnknownError);
  });

  it("a place with the caller's key carries that key", async () => {
    const error = await client.placeOrder({ ...order, idempotencyKey: 'run-7-0' }).accepted.catch((e: unknown) => e);
    expect(error).toMatchObject({ code: ClientErrorCode.OutcomeUnknown, idempotencyKey: 'run-7-0' });
    expect(received.at(-1)?.idempotencyKey).toBe('run-7-0');
  });

  it('a withdrawal submit without an answer rejects OUTCOME_UNKNOWN with the key it sent', async () => {
    const error = await client.withdrawals
      .submit({ kind: 'fiat', amount: '100.50', ccy: 'USD', accountGroupUuid: 'g', bankAccountUuid: 'b' })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(OutcomeUnknownError);
    const sent = received.at(-1);
    expect(sent?.subject).toBe(new WithdrawalSubjects('gw.v1', ACCOUNT).submit);
    expect(error).toMatchObject({ code: ClientErrorCode.OutcomeUnknown, idempotencyKey: sent?.idempotencyKey });
  });

  it('nobody listening is NO_RESPONDER, not an unknown outcome', async () => {
    const other = await GatewayClient.connect({ servers: nats.url, account: 'nobody', requestTimeoutMs: 500 });
    try {
      const error = await other.placeOrder(order).accepted.catch((e: unknown) => e);
      expect(error).toBeInstanceOf(GatewayError);
      expect(error).not.toBeInstanceOf(OutcomeUnknownError);
      expect(error).toMatchObject({ code: ClientErrorCode.NoResponder });
    } finally {
      await other.close();
    }
  });
});
