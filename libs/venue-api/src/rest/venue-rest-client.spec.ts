import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { freePort } from '#testing';
import {
  InvalidVenueRequestError,
  VenueAuthError,
  VenueNotFoundError,
  VenueProtocolError,
  VenueResultCodeError,
  VenueValidationError,
} from './errors.js';
import { antiReplayOf, API_KEY, API_SECRET, ClientFixture } from './test-support/client-fixture.js';
import { json } from './test-support/scripted-venue.js';
import {
  balancesJson,
  beneficiaryJson,
  originatorJson,
  senderJson,
  tradeJson,
  tradePageJson,
  transactionJson,
} from './test-support/venue-bodies.js';

let fixture: ClientFixture;

beforeAll(async () => {
  fixture = await ClientFixture.start(await freePort());
});

afterAll(async () => {
  await fixture.stop();
});

describe('VenueRestClient: signing and body text', () => {
  it('signs exactly the body text it sends, with the key header, and puts the tonce first', async () => {
    fixture.venue.reset(() => json(200, '{"token":"tok-1","expiresAt":"1700000030000","resultCode":"OK"}'));
    const token = await fixture.client().createWebSocketToken();
    expect(token).toEqual({ token: 'tok-1', expiresAt: '1700000030000' });
    const [request] = fixture.venue.requests;
    expect(request?.method).toBe('POST');
    expect(request?.path).toBe('/api/3/svc/rest/auth/token');
    expect(request?.headers['rest-key']).toBe(API_KEY);
    expect(request?.headers['content-type']).toBe('application/json');
    expect(request?.signatureValid).toBe(true);
    expect(request?.bodyText).toMatch(/^\{"tonce":\d{16}\}$/);
  });

  it('signs with the hex encoding (R1 (a)) when configured', async () => {
    const hexFixture = await ClientFixture.start(await freePort(), 'hex');
    try {
      hexFixture.venue.reset(() => json(200, '{"token":"tok-2"}'));
      await hexFixture.client({ signatureEncoding: 'hex' }).createWebSocketToken();
      expect(hexFixture.venue.requests[0]?.signatureValid).toBe(true);
    } finally {
      await hexFixture.stop();
    }
  });

  it('reads the token from the configured path only (W1 tokenPath)', async () => {
    fixture.venue.reset(() => json(200, '{"data":{"wsToken":"tok-3","expiresAt":1700000000000}}'));
    await expect(fixture.client({ tokenPath: 'data.wsToken' }).createWebSocketToken()).resolves.toEqual({
      token: 'tok-3',
      expiresAt: '1700000000000',
    });
    // the error says where the response does hold one (outside tester: a wrong path looped without a hint),
    // and never the token itself
    fixture.venue.reset(() => json(200, '{"token":"tok-4"}'));
    const missed = await fixture
      .client({ tokenPath: 'data.wsToken' })
      .createWebSocketToken()
      .catch((e: Error) => e);
    expect(String(missed)).toMatch(
      /no token string at data\.wsToken; the response has one at token: set VENUE_TOKEN_PATH=token/,
    );
    expect(String(missed)).not.toContain('tok-4');
    fixture.venue.reset(() => json(200, '{"result":{"wsKey":"tok-6"},"status":"ok"}'));
    const unknown = await fixture
      .client()
      .createWebSocketToken()
      .catch((e: Error) => e);
    expect(String(unknown)).toMatch(/the response's fields: result, status/);
    expect(String(unknown)).not.toContain('tok-6');
  });

  it.each([
    ['{"token":"tok-5"}', { token: 'tok-5' }],
    ['"tok-5"', { token: 'tok-5' }],
    ['{"data":"tok-5"}', { token: 'tok-5' }],
    ['{"data":{"token":"tok-5","expiresAt":"17"}}', { token: 'tok-5', expiresAt: '17' }],
    // expiresAt is informational: an odd value is left out, the token still read
    ['{"token":"tok-5","expiresAt":{"seconds":30}}', { token: 'tok-5' }],
    ['{"token":"tok-5","expiresAt":true}', { token: 'tok-5' }],
  ])('reads every plausible token response shape without configuration: %s', async (body, expected) => {
    fixture.venue.reset(() => json(200, body));
    await expect(fixture.client().createWebSocketToken()).resolves.toEqual(expected);
  });

  it('never puts the secret, the signature or the token into an error', async () => {
    fixture.venue.reset(() => json(200, '{"token":42}'));
    const error = await fixture
      .client()
      .createWebSocketToken()
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(VenueProtocolError);
    const message = String((error as Error).message);
    const sign = String(fixture.venue.requests[0]?.headers['rest-sign']);
    expect(message).not.toContain(API_SECRET);
    expect(message).not.toContain(sign);
    expect(JSON.stringify(error)).not.toContain(API_SECRET);
  });
});

describe('VenueRestClient: balances and trades', () => {
  it('reads balances (§2.6) with decimal strings and ignores the deprecated Wallets', async () => {
    fixture.venue.reset(() => json(200, balancesJson));
    const balances = await fixture.client().getBalances({ filterZeroBalanceAccounts: true });
    expect(fixture.venue.requests[0]?.bodyText).toMatch(/^\{"tonce":\d+,"filterZeroBalanceAccounts":true\}$/);
    const usd = balances.data.Account_Groups[0]?.Accounts['USD'];
    expect(usd?.Available_Balance.value).toBe('900.00');
    expect(usd?.Brokerage_Available_Balance.value).toBe('800.00');
    expect(balances.data.Rights).toEqual(['trade', 'withdraw', 'get_info']);
    expect(balances.data).not.toHaveProperty('Wallets');
  });

  it('reads trade amounts from the exact JSON number text (R15), never through a JS number', async () => {
    const huge = '12345678901234567890.123456789';
    fixture.venue.reset(() => json(200, `{"data":[${tradeJson('t-1', huge)},${tradeJson('t-2', '1E-8')}],"total":2}`));
    const page = await fixture.client().listTrades({ tradeSide: 'BUY', max: 10 });
    expect(page.total).toBe(2);
    expect(page.data[0]?.settlementAmount).toEqual({ amount: huge, currency: 'USD' });
    expect(page.data[1]?.settlementAmount?.amount).toBe('0.00000001');
    expect(page.data[0]?.tradedAmount?.amount).toBe('0.05');
    expect(fixture.venue.requests[0]?.bodyText).toMatch(/^\{"tonce":\d+,"tradeSide":"BUY","max":10\}$/);
  });

  it('refuses max outside 1–200 before sending', async () => {
    fixture.venue.reset(() => json(200, tradePageJson([], 0)));
    await expect(fixture.client().listTrades({ max: 201 })).rejects.toBeInstanceOf(InvalidVenueRequestError);
    expect(fixture.venue.requests).toHaveLength(0);
  });

  it('paginates until a page holds fewer than max records', async () => {
    const all = Array.from({ length: 450 }, (_, i) => `t-${i}`);
    fixture.venue.reset((request) => {
      const body = JSON.parse(request.bodyText) as { max: number; offset: number };
      return json(200, tradePageJson(all.slice(body.offset, body.offset + body.max), all.length));
    });
    const trades = await fixture.client().listAllTrades({ tradeClass: 'RFS' });
    expect(trades.map((trade) => trade.uuid)).toEqual(all);
    const pages = fixture.venue.requests.map((request) => JSON.parse(request.bodyText) as Record<string, unknown>);
    expect(pages.map((page) => [page['max'], page['offset'], page['tradeClass']])).toEqual([
      [200, 0, 'RFS'],
      [200, 200, 'RFS'],
      [200, 400, 'RFS'],
    ]);
  });

  it('asks once more after an exactly full last page, and skips a record that shifted into the next page', async () => {
    const pages = [
      ['a', 'b'],
      ['b', 'c'], // a new trade was booked: 'b' moved down one place
      [],
    ];
    fixture.venue.reset((_request, index) => json(200, tradePageJson(pages[index] ?? [], 4)));
    const seen: string[] = [];
    for await (const trade of fixture.client().iterateTrades({}, 2)) seen.push(trade.uuid);
    expect(seen).toEqual(['a', 'b', 'c']);
    expect(fixture.venue.requests).toHaveLength(3);
  });

  it('maps trade errors with the venue code and message (§7.3)', async () => {
    fixture.venue.reset(() => json(400, '{"error":"INVALID_PARAMETER","message":"from: ISO 8601 required"}'));
    const error = await fixture
      .client()
      .listTrades({ from: 'yesterday' })
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(VenueValidationError);
    expect(error).toMatchObject({
      status: 400,
      venueCode: 'INVALID_PARAMETER',
      venueMessage: 'from: ISO 8601 required',
      operation: 'listTrades',
    });

    fixture.venue.reset(() => json(404, '{"error":"INVALID_ACCOUNT_GROUP","message":"unknown group"}'));
    await expect(fixture.client().listTrades({ accountGrpUuid: 'nope' })).rejects.toMatchObject({
      name: 'VenueNotFoundError',
      venueCode: 'INVALID_ACCOUNT_GROUP',
      emptyBody: false,
    });
  });
});

describe('VenueRestClient: participants', () => {
  it('reads account details (one object, not an envelope)', async () => {
    fixture.venue.reset(() => json(200, originatorJson));
    const details = await fixture.client().getAccountDetails({ accountGroupUuid: 'ag-1' });
    expect(details?.kind).toBe('ORIGINATOR');
    expect(details?.companyName).toBe('Acme Ltd');
    expect(details?.bankAccounts?.[0]?.networkIds).toEqual(['SWIFT']);
    expect(details?.wallets?.[0]?.whitelisted).toBe(true);
    expect(details?.associatedPersons?.[0]?.kind).toBe('AUTHORIZED_SIGNATORY');
    expect(fixture.venue.requests[0]?.bodyText).toMatch(/^\{"tonce":\d+,"accountGroupUuid":"ag-1"\}$/);
  });

  it('returns undefined for 404 with an empty body (no originator record), NotFound otherwise', async () => {
    fixture.venue.reset(() => ({ status: 404 }));
    await expect(fixture.client().getAccountDetails()).resolves.toBeUndefined();
    fixture.venue.reset(() => json(404, '{"error":"Not Found"}'));
    await expect(fixture.client().getAccountDetails()).rejects.toBeInstanceOf(VenueNotFoundError);
  });

  it('turns HTTP 200 with resultCode INVALID_PARAMETERS into a typed error keeping the code', async () => {
    fixture.venue.reset(() => json(200, '{"resultCode":"INVALID_PARAMETERS","timestamp":"1700000000000"}'));
    const error = await fixture
      .client()
      .listBeneficiaries({ limit: 10 })
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(VenueResultCodeError);
    expect(error).toMatchObject({ status: 200, venueCode: 'INVALID_PARAMETERS' });
  });

  it('treats HTTP 200 with resultCode UNAUTHORISED as an auth failure: retried once, then thrown', async () => {
    fixture.venue.reset(() => json(200, '{"resultCode":"UNAUTHORISED","timestamp":"1700000000000"}'));
    const error = await fixture
      .client()
      .getAccountDetails()
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(VenueAuthError);
    expect(error).toMatchObject({ status: 200, venueCode: 'UNAUTHORISED', mayBeThrottling: false });
    expect(fixture.venue.requests).toHaveLength(2);
  });

  it('refuses a beneficiaries limit above 50 without sending (§4.8)', async () => {
    fixture.venue.reset(() => json(200, '{"data":[],"total":0}'));
    await expect(fixture.client().listBeneficiaries({ limit: 51 })).rejects.toMatchObject({
      name: 'InvalidVenueRequestError',
      field: 'limit',
    });
    expect(fixture.venue.requests).toHaveLength(0);
  });

  it('lists beneficiaries in the {data,total} envelope', async () => {
    fixture.venue.reset(() => json(200, `{"data":[${beneficiaryJson('b-1')}],"total":1}`));
    const page = await fixture.client().listBeneficiaries({ limit: 50, offset: 0 });
    expect(page).toMatchObject({ total: 1, data: [{ uuid: 'b-1', kind: 'BENEFICIARY', verified: false }] });
  });

  it('lists senders whether total is a number or a string, reading beneficiaryAddress as address', async () => {
    fixture.venue.reset(() => json(200, `{"data":[${senderJson('s-1')}],"total":"1"}`));
    const page = await fixture.client().listSenders({ limit: 20 });
    expect(page.total).toBe(1);
    expect(page.data[0]?.address).toEqual({ city: 'Arlington', country: 'US' });
    expect(fixture.venue.requests[0]?.bodyText).toMatch(/^\{"tonce":\d+,"limit":20\}$/);
    fixture.venue.reset(() => json(200, `{"data":[${senderJson('s-1')}],"total":1}`));
    await expect(fixture.client().listSenders()).resolves.toMatchObject({ total: 1 });
  });
});

describe('VenueRestClient: order state', () => {
  it('sends clientRequestId in the (unsigned) query and only the tonce in the body; always an array', async () => {
    fixture.venue.reset(() => json(200, '[]'));
    await expect(fixture.client().getOrderState('order.1')).resolves.toEqual([]);
    const [request] = fixture.venue.requests;
    expect(request?.path).toBe('/api/3/svc/rest/orders/state');
    expect(request?.query.get('clientRequestId')).toBe('order.1');
    expect(antiReplayOf(request?.bodyText ?? '')).toMatchObject({ field: 'tonce' });
    expect(request?.bodyText).toMatch(/^\{"tonce":\d+\}$/);
    expect(request?.signatureValid).toBe(true);
  });

  it('reads order state records, sessionId null included', async () => {
    fixture.venue.reset(() =>
      json(
        200,
        `[{"messageType":"orderState","timestamp":1700000000000,"transactionId":"tx-9","clientRequestId":"",
          "orderStatus":"INDETERMINATE","subscriptionStatus":"NOT_SUBSCRIBED","sessionId":null,"message":"","code":""}]`,
      ),
    );
    const [state] = await fixture.client().getOrderState('c-1');
    expect(state).toEqual({
      messageType: 'orderState',
      timestamp: 1700000000000,
      transactionId: 'tx-9',
      clientRequestId: '',
      orderStatus: 'INDETERMINATE',
      subscriptionStatus: 'NOT_SUBSCRIBED',
      sessionId: null,
      message: '',
      code: '',
    });
  });

  it('refuses an identifier breaking R18 locally; maps the venue 400 body otherwise', async () => {
    fixture.venue.reset(() => json(400, '{"resultCode":"INVALID_PARAMETERS","timestamp":"1700000000000"}'));
    await expect(fixture.client().getOrderState('has space')).rejects.toBeInstanceOf(InvalidVenueRequestError);
    await expect(fixture.client().getOrderState('x'.repeat(65))).rejects.toBeInstanceOf(InvalidVenueRequestError);
    expect(fixture.venue.requests).toHaveLength(0);
    await expect(fixture.client().getOrderState('ok-id')).rejects.toMatchObject({
      name: 'VenueValidationError',
      venueCode: 'INVALID_PARAMETERS',
    });
  });
});

describe('VenueRestClient: other named operations (R9–R12, §4.12)', () => {
  it('lists transactions with lossless amounts and null-valued fields', async () => {
    fixture.venue.reset(() => json(200, `{"data":[${transactionJson}],"total":1}`));
    const page = await fixture.client().listTransactions({ ccy: 'USD', max: 50 });
    expect(page.data[0]).toMatchObject({
      amount: '12345678901234567890.123456789',
      fee: '0',
      balanceBefore: '0.00000001',
      balanceAfter: '100.10',
      received: 1700000000000,
      displayTitle: null,
      beneficiaryUuid: null,
    });
  });

  it('iterates transaction pages until a short page', async () => {
    fixture.venue.reset((request) => {
      const body = JSON.parse(request.bodyText) as { offset: number };
      const count = body.offset === 0 ? 2 : 1;
      const rows = Array.from({ length: count }, (_, i) =>
        transactionJson.replace('"tx-1"', `"tx-${body.offset + i}"`),
      );
      return json(200, `{"data":[${rows.join(',')}],"total":3}`);
    });
    const seen: string[] = [];
    for await (const leg of fixture.client().iterateTransactions({ ccy: 'USD' }, 2)) seen.push(leg.uuid);
    expect(seen).toEqual(['tx-0', 'tx-1', 'tx-2']);
    expect(fixture.venue.requests.map((request) => JSON.parse(request.bodyText) as Record<string, unknown>)).toEqual([
      expect.objectContaining({ ccy: 'USD', max: 2, offset: 0 }),
      expect.objectContaining({ ccy: 'USD', max: 2, offset: 2 }),
    ]);
  });

  it('lists transfers, submits a transfer with a decimal string amount, reads limits and pairs', async () => {
    fixture.venue.reset((request) => {
      switch (request.path) {
        case '/api/3/transfer/list':
          return json(
            200,
            '{"data":[{"uuid":"tf-1","fromAccountGroupUuid":"a","toAccountGroupUuid":"b","ccy":"USD","amount":"5.00","state":"PROCESSED","createdAt":"2026-01-05T10:00:00Z"}],"total":1}',
          );
        case '/api/3/transfer':
          return json(200, '{"success":true,"uuid":"tf-2"}');
        case '/api/3/user/limit':
          return json(
            200,
            '{"data":[{"accountGroupUuid":"a","ccy":"USD","limit":"100000.00","used":"2500.50","available":"97499.50"}],"resultCode":"OK","timestamp":"1"}',
          );
        default:
          return json(
            200,
            '{"data":[{"instrument":"BTC.USD","base":"BTC","quote":"USD","minQuantity":"0.0001","maxQuantity":"50","quotePrecision":2}]}',
          );
      }
    });
    const client = fixture.client();
    await expect(client.listTransfers()).resolves.toMatchObject({ total: 1, data: [{ amount: '5.00' }] });
    await expect(
      client.transfer({ accountGroupUuid: 'a', toAccountGroupUuid: 'b', ccy: 'USD', amount: '5.00' }),
    ).resolves.toEqual({ uuid: 'tf-2' });
    expect(fixture.venue.requests[1]?.bodyText).toMatch(
      /^\{"tonce":\d+,"accountGroupUuid":"a","toAccountGroupUuid":"b","ccy":"USD","amount":"5.00"\}$/,
    );
    await expect(client.getCreditLimits()).resolves.toMatchObject({ data: [{ available: '97499.50' }] });
    await expect(client.listPairs()).resolves.toEqual([
      { instrument: 'BTC.USD', base: 'BTC', quote: 'USD', minQuantity: '0.0001', maxQuantity: '50', quotePrecision: 2 },
    ]);
    expect(fixture.venue.requests.every((request) => request.signatureValid)).toBe(true);
  });

  it('gets the webhook address list with an unsigned GET', async () => {
    fixture.venue.reset(() =>
      json(
        200,
        '{"service":"svc","version":3,"ipv4_cidrs":["127.0.0.1/32"],"created_at":"2026-01-01T00:00:00Z","last_updated":"2026-01-02T00:00:00Z","change_notice":null}',
      ),
    );
    const list = await fixture.client().getWebhookSourceAddresses();
    expect(list).toMatchObject({ version: 3, ipv4_cidrs: ['127.0.0.1/32'], change_notice: null });
    const [request] = fixture.venue.requests;
    expect(request?.method).toBe('GET');
    expect(request?.path).toBe('/.well-known/webhooks/ips.json');
    expect(request?.headers['rest-sign']).toBeUndefined();
    expect(request?.headers['rest-key']).toBeUndefined();
  });

  it('reports a non-JSON success body as a protocol error', async () => {
    fixture.venue.reset(() => ({ status: 200, body: '<html>gateway</html>' }));
    await expect(fixture.client().listPairs()).rejects.toBeInstanceOf(VenueProtocolError);
  });
});
