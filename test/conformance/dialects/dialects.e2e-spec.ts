/**
 * The sandbox's dialects (apps/sandbox-venue/src/dialect.ts): each axis of what the spec does not show,
 * played on the wire as the dialect says — token response shape (§4.3), order reply fields (§2.3), the
 * frames answering an unsubscribe (W10), price subscriptions held across a reconnect of the session, the crypto
 * withdrawal answers (WD7), the fields of a fiat withdrawal row (R8, WD9) and the type of ips.json's notice date (WH14).
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { RestPath, withdrawalCancelPath } from '#venue-api';
import { startSandboxVenue, type RunningSandbox } from '../../../apps/sandbox-venue/src/bootstrap.js';
import type { SandboxOptions } from '../../../apps/sandbox-venue/src/config.js';
import type { CryptoWithdrawalReply } from '../../../apps/sandbox-venue/src/dialect.js';
import { raw, SpecClient } from '../spec-client.js';
import { FAST_TRADING, subscribeRequest } from '../ws/ws-harness.js';
import { isType, TOKEN_PATH, WsTestClient } from '../ws/ws-test-client.js';

const started: RunningSandbox[] = [];
const clients: WsTestClient[] = [];

async function venueIn(dialect: SandboxOptions['dialect']): Promise<RunningSandbox> {
  const venue = await startSandboxVenue({ port: 0, trading: FAST_TRADING, restRateLimitPerSecond: 1000, dialect });
  started.push(venue);
  return venue;
}

/** Token response, whatever its shape: the raw body and the token read from it. */
async function tokenOf(venue: RunningSandbox): Promise<{ body: unknown; token: string }> {
  const response = await new SpecClient(venue.restBaseUrl, venue.credentials.primary).post(TOKEN_PATH);
  expect(response.status).toBe(200);
  const body = response.json;
  const token =
    typeof body === 'string'
      ? body
      : ((body as { token?: string; data?: { token?: string } }).token ??
        (body as { data?: { token?: string } }).data?.token);
  if (typeof token !== 'string') throw new Error(`no token in ${response.text}`);
  return { body, token };
}

async function connect(venue: RunningSandbox, sessionId?: string): Promise<WsTestClient> {
  const { token } = await tokenOf(venue);
  const client = await WsTestClient.connect(venue.wsUrl, {
    restBaseUrl: venue.restBaseUrl,
    credentials: venue.credentials.primary,
    token,
    ...(sessionId !== undefined && { rawSessionId: sessionId }),
  });
  clients.push(client);
  return client;
}

async function subscribe(venue: RunningSandbox, client: WsTestClient, tag: string): Promise<string> {
  client.send(subscribeRequest(venue, { tag }));
  const ack = (await client.take(isType('subscribe', { tag }))).json;
  expect(ack['success']).toBe(true);
  return String(ack['subscriptionId']);
}

afterAll(async () => {
  await Promise.all(clients.map((c) => c.close().catch(() => undefined)));
  await Promise.all(started.map((v) => v.close()));
});

describe('token response shape (§4.3 shows only that a token comes back)', () => {
  it.each([
    ['token', (body: unknown) => expect(body).toMatchObject({ token: expect.any(String), resultCode: 'OK' })],
    ['data.token', (body: unknown) => expect(body).toMatchObject({ data: { token: expect.any(String) } })],
    ['string', (body: unknown) => expect(typeof body).toBe('string')],
  ] as const)('%s', async (tokenResponse, check) => {
    const venue = await venueIn({ tokenResponse });
    const { body } = await tokenOf(venue);
    check(body);
    const client = await connect(venue); // the token works whatever the shape
    await subscribe(venue, client, `tok-${tokenResponse}`);
  });
});

describe('order replies, unsubscribe answers and held subscriptions', () => {
  let alternate: RunningSandbox;
  let reference: RunningSandbox;

  beforeAll(async () => {
    alternate = await venueIn('alternate');
    reference = await venueIn('reference');
  });

  async function placeOn(venue: RunningSandbox, client: WsTestClient, id: string): Promise<Record<string, unknown>[]> {
    await subscribe(venue, client, `q-${id}`);
    const price = (await client.take(isType('pricestream', { tag: `q-${id}` }))).json;
    client.send({
      messageType: 'order',
      quoteId: price['quoteId'],
      side: 'BUY',
      clientRequestId: id,
      autoSubscribe: true,
    });
    const first = (await client.take(isType('order', { clientRequestId: id }))).json;
    const final = (await client.take(isType('order', { clientRequestId: id }))).json;
    return [first, final];
  }

  it('minimal: an order reply carries status and ids only (no subscriptionStatus, sessionId, side)', async () => {
    const client = await connect(alternate, 'minimal-1');
    const [pending, final] = await placeOn(alternate, client, 'min-1');
    expect(pending).toMatchObject({
      orderStatus: 'PENDING',
      clientRequestId: 'min-1',
      transactionId: expect.any(String),
    });
    expect(final).toMatchObject({ orderStatus: 'SUCCESS', clientRequestId: 'min-1' });
    for (const frame of [pending, final]) {
      for (const absent of ['subscriptionStatus', 'sessionId', 'side', 'quoteId', 'executedPrice']) {
        expect(frame).not.toHaveProperty(absent);
      }
    }
  });

  it('full (reference): the order reply carries every field we guessed', async () => {
    const client = await connect(reference, 'full-1');
    const [pending] = await placeOn(reference, client, 'full-1');
    expect(pending).toMatchObject({ orderStatus: 'PENDING', subscriptionStatus: 'SUBSCRIBED', sessionId: 'full-1' });
  });

  it('streamStop-then-unsubscribe: an unsubscribe is answered by a streamStop, then its reply', async () => {
    const client = await connect(alternate);
    const id = await subscribe(alternate, client, 'unsub-alt');
    client.send({ messageType: 'unsubscribe', subscriptionId: id });
    const reply = await client.take(isType('unsubscribe', { subscriptionId: id }));
    const stops = client.seen(isType('streamStop', { tag: 'unsub-alt' }));
    expect(stops).toHaveLength(1);
    expect(stops[0]?.seq).toBeLessThan(reply.seq);
  });

  it('unsubscribe-only (reference): no streamStop', async () => {
    const client = await connect(reference);
    const id = await subscribe(reference, client, 'unsub-ref');
    client.send({ messageType: 'unsubscribe', subscriptionId: id });
    await client.take(isType('unsubscribe', { subscriptionId: id }));
    await client.barrier();
    expect(client.seen(isType('streamStop', { tag: 'unsub-ref' }))).toHaveLength(0);
  });

  it('held: the session keeps its subscription across a reconnect — old tag streams on, a new subscribe is RFS100017, the old id unsubscribes', async () => {
    const first = await connect(alternate, 'held-1');
    const id = await subscribe(alternate, first, 'held-tag');
    await first.close();
    const second = await connect(alternate, 'held-1');
    const price = (await second.take(isType('pricestream', { tag: 'held-tag' }))).json;
    expect(price['quoteId']).toEqual(expect.any(String));
    second.send(subscribeRequest(alternate, { tag: 'held-again' }));
    expect((await second.take(isType('subscribe', { tag: 'held-again' }))).json).toMatchObject({
      success: false,
      code: 'RFS100017',
    });
    second.send({ messageType: 'unsubscribe', subscriptionId: id });
    await second.take(isType('unsubscribe', { subscriptionId: id }));
  });

  it('dropped (reference): after a reconnect nothing streams until the client subscribes again', async () => {
    const first = await connect(reference, 'drop-1');
    await subscribe(reference, first, 'drop-tag');
    await first.close();
    const second = await connect(reference, 'drop-1');
    await new Promise((resolve) => setTimeout(resolve, 200)); // several cadence ticks (40 ms)
    await second.barrier();
    expect(second.seen(isType('pricestream', { tag: 'drop-tag' }))).toHaveLength(0);
    await subscribe(reference, second, 'drop-tag');
  });
});

describe('crypto withdrawal answers (§4.9: crypto submit and cancel responses not shown)', () => {
  async function submitAndCancel(venue: RunningSandbox) {
    const client = new SpecClient(venue.restBaseUrl, venue.credentials.primary);
    const group = venue.seed.defaultGroupUuid;
    const submitted = await client.post(RestPath.WithdrawalCrypto, {
      accountGroupUuid: group,
      ccy: 'BTC',
      amount: raw('0.01'),
      walletUuid: venue.seed.walletBtcOk,
      clientComment: 'dialect',
    });
    const rows = (await client.post(RestPath.WithdrawalCryptoList)).json as Array<{
      uuid: string;
      clientComment?: string;
    }>;
    const uuid = rows.find((row) => row.clientComment === 'dialect')?.uuid ?? '';
    const cancelled = await client.post(withdrawalCancelPath('crypto', uuid), { accountGroupUuid: group });
    const fiat = await client.post(RestPath.WithdrawalFiat, {
      accountGroupUuid: group,
      ccy: 'USD',
      amount: raw('1.00'),
      withdrawalMethod: 'BANK_WIRE',
      bankAccountUuid: venue.seed.bankUsdOk,
    });
    return { submitted, cancelled, fiat, uuid };
  }

  const readings: Array<[CryptoWithdrawalReply, number, (uuid: string) => unknown]> = [
    ['success-uuid', 200, (uuid) => ({ success: true, uuid })],
    ['success-only', 200, () => ({ success: true })],
    ['no-content', 204, () => undefined],
  ];
  it.each(readings)('%s', async (cryptoWithdrawalReply, status, body) => {
    const venue = await venueIn({ cryptoWithdrawalReply });
    const { submitted, cancelled, fiat, uuid } = await submitAndCancel(venue);
    expect([submitted.status, cancelled.status]).toEqual([status, status]);
    expect(submitted.json).toEqual(body(uuid));
    expect(cancelled.json).toEqual(body(uuid));
    // fiat's answer is shown in the spec: the same in every dialect
    expect(fiat).toMatchObject({ status: 200, json: { success: true, uuid: expect.any(String) } });
  });
});

describe('fiat withdrawal list rows (§2.7: "further fields of a fiat row: not shown"; R8)', () => {
  it.each([
    ['with-group', true],
    ['shown-fields', false],
  ] as const)('%s', async (fiatWithdrawalRow, withGroup) => {
    const venue = await venueIn({ fiatWithdrawalRow });
    const client = new SpecClient(venue.restBaseUrl, venue.credentials.primary);
    const submitted = await client.post(RestPath.WithdrawalFiat, {
      accountGroupUuid: venue.seed.defaultGroupUuid,
      ccy: 'USD',
      amount: raw('1.00'),
      withdrawalMethod: 'BANK_WIRE',
      bankAccountUuid: venue.seed.bankUsdOk,
      clientComment: 'dialect',
    });
    expect(submitted.status).toBe(200);
    const [row] = (await client.post(RestPath.WithdrawalFiatList)).json as Array<Record<string, unknown>>;
    expect(row).toMatchObject({ state: 'PENDING_APPROVAL', bankAccount: { uuid: venue.seed.bankUsdOk } });
    const group = { accountGroupUuid: venue.seed.defaultGroupUuid };
    if (withGroup) expect(row).toMatchObject(group);
    else
      expect(
        Object.keys(row ?? {}).filter((k) => ['accountGroupUuid', 'accountGroupName', 'requestor'].includes(k)),
      ).toEqual([]);
  });
});

describe("ips.json's change_notice.effective_date (§4.12: types not shown)", () => {
  it.each([
    ['iso', '2027-01-01T00:00:00Z'],
    ['epoch-ms', 1798761600000],
  ] as const)('%s', async (ipsNoticeDate, effectiveDate) => {
    const venue = await venueIn({ ipsNoticeDate });
    const notice = { message: 'moving', effective_date: '2027-01-01T00:00:00Z' };
    const set = await fetch(`${venue.adminUrl}/webhooks/ips`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ ipv4_cidrs: ['127.0.0.1/32'], change_notice: notice }),
    });
    expect(set.status).toBe(200);
    const listed = (await (await fetch(venue.ipsUrl)).json()) as { change_notice: unknown };
    expect(listed.change_notice).toEqual({ message: 'moving', effective_date: effectiveDate });
  });
});
