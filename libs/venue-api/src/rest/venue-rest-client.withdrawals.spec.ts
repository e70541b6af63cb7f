import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { freePort } from '#testing';
import {
  InvalidVenueRequestError,
  VenueAuthError,
  VenueConflictError,
  VenueOutcomeUnknownError,
  VenueProtocolError,
  VenueResultCodeError,
  VenueValidationError,
  VenueWrongMethodError,
} from './errors.js';
import { antiReplayOf, ClientFixture } from './test-support/client-fixture.js';
import { json } from './test-support/scripted-venue.js';
import { cryptoWithdrawalRowJson, fiatWithdrawalRowJson } from './test-support/venue-bodies.js';

let fixture: ClientFixture;

beforeAll(async () => {
  fixture = await ClientFixture.start(await freePort());
});

afterAll(async () => {
  await fixture.stop();
});

const fiat = { accountGroupUuid: 'ag-1', ccy: 'USD', bankAccountUuid: 'ba-1' };
const ok = () => json(200, '{"success":true,"uuid":"wd-1"}');

describe('fiat withdrawal amount (§4.9: JSON number, at most 2 decimals judged on the text)', () => {
  it.each([
    ['100.50', '100.50'],
    ['100', '100'],
    ['0.01', '0.01'],
    ['1.5e1', '15'],
    ['007.10', '7.10'],
  ])('sends %s as the JSON number %s, signed as sent', async (amount, sent) => {
    fixture.venue.reset(ok);
    await expect(fixture.client().submitFiatWithdrawal({ ...fiat, amount })).resolves.toEqual({ uuid: 'wd-1' });
    const [request] = fixture.venue.requests;
    expect(request?.bodyText).toBe(
      `{"tonce":${antiReplayOf(request.bodyText)?.digits},"accountGroupUuid":"ag-1","ccy":"USD","amount":${sent},"withdrawalMethod":"BANK_WIRE","bankAccountUuid":"ba-1"}`,
    );
    expect(request?.signatureValid).toBe(true);
  });

  it.each(['1.005', '1.000', '0', '-5', '0.00', 'abc', '1,00', '', '1e-3'])(
    'refuses %j before sending anything',
    async (amount) => {
      fixture.venue.reset(ok);
      await expect(fixture.client().submitFiatWithdrawal({ ...fiat, amount })).rejects.toMatchObject({
        name: 'InvalidVenueRequestError',
        field: 'amount',
      });
      expect(fixture.venue.requests).toHaveLength(0);
    },
  );

  it('refuses a comment over 1024 characters; sends one within the limit', async () => {
    fixture.venue.reset(ok);
    await expect(
      fixture.client().submitFiatWithdrawal({ ...fiat, amount: '1', clientComment: 'x'.repeat(1025) }),
    ).rejects.toBeInstanceOf(InvalidVenueRequestError);
    await fixture.client().submitFiatWithdrawal({ ...fiat, amount: '1', clientComment: 'rent' });
    expect(fixture.venue.requests[0]?.bodyText).toContain('"clientComment":"rent"');
  });
});

describe('crypto withdrawal (R6)', () => {
  it('with the asset precision given (8), accepts up to 8 decimals and refuses 9', async () => {
    fixture.venue.reset(() => json(200, '{"success":true,"uuid":"wd-2"}'));
    const request = { accountGroupUuid: 'ag-1', ccy: 'BTC', walletUuid: 'w-1', precision: 8 };
    await expect(fixture.client().submitCryptoWithdrawal({ ...request, amount: '0.00000001' })).resolves.toEqual({
      uuid: 'wd-2',
    });
    expect(fixture.venue.requests[0]?.bodyText).toMatch(
      /^\{"tonce":\d+,"accountGroupUuid":"ag-1","ccy":"BTC","amount":0\.00000001,"walletUuid":"w-1"\}$/,
    );
    await expect(fixture.client().submitCryptoWithdrawal({ ...request, amount: '0.000000001' })).rejects.toBeInstanceOf(
      InvalidVenueRequestError,
    );
    expect(fixture.venue.requests).toHaveLength(1);
  });
});

describe('withdrawal outcomes (§7.2)', () => {
  it('a 500 on submit is outcome-unknown and is never retried, in tonce or nonce mode', async () => {
    fixture.venue.reset(() => json(500, '{"success":false,"message":"Error while processing request"}'));
    const error = await fixture
      .client()
      .submitFiatWithdrawal({ ...fiat, amount: '10' })
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(VenueOutcomeUnknownError);
    expect(error).toMatchObject({ status: 500, venueMessage: 'Error while processing request' });
    expect(fixture.venue.requests).toHaveLength(1);

    fixture.venue.reset(() => json(500, '{"success":false,"message":"Error while processing request"}'));
    const nonceClient = await fixture.nonceClient();
    await expect(nonceClient.submitFiatWithdrawal({ ...fiat, amount: '10' })).rejects.toBeInstanceOf(
      VenueOutcomeUnknownError,
    );
    expect(fixture.venue.requests).toHaveLength(1);
  });

  it('a submit that gets no answer in time is outcome-unknown, not a timeout to retry', async () => {
    fixture.venue.reset(() => 'hang');
    await expect(
      fixture.client({ timeoutMs: 150 }).submitFiatWithdrawal({ ...fiat, amount: '10' }),
    ).rejects.toBeInstanceOf(VenueOutcomeUnknownError);
    expect(fixture.venue.requests).toHaveLength(1);
  });

  it('422 keeps the venue message (business validation, request not created)', async () => {
    fixture.venue.reset(() => json(422, '{"success":false,"message":"Insufficient funds"}'));
    const error = await fixture
      .client()
      .submitFiatWithdrawal({ ...fiat, amount: '1000000' })
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(VenueValidationError);
    expect(error).toMatchObject({ status: 422, venueMessage: 'Insufficient funds', venueCode: undefined });
  });

  it('403 for a key without Move Funds keeps the message', async () => {
    fixture.venue.reset(() => json(403, '{"success":false,"message":"MOVE FUNDS permission required"}'));
    await expect(fixture.client().listFiatWithdrawals()).rejects.toMatchObject({
      name: 'VenueValidationError',
      status: 403,
      venueMessage: 'MOVE FUNDS permission required',
    });
  });

  it('401 in nonce mode is retried once with a fresh, higher nonce and a new signature', async () => {
    fixture.venue.reset((_request, index) =>
      index === 0 ? json(401, '{"success":false,"message":"Unauthorized"}') : json(200, '{"success":true,"uuid":"w"}'),
    );
    const client = await fixture.nonceClient();
    await expect(client.submitFiatWithdrawal({ ...fiat, amount: '10' })).resolves.toEqual({ uuid: 'w' });
    const [first, second] = fixture.venue.requests;
    const firstNonce = antiReplayOf(first?.bodyText ?? '');
    const secondNonce = antiReplayOf(second?.bodyText ?? '');
    expect(firstNonce?.field).toBe('nonce');
    expect(BigInt(secondNonce?.digits ?? '0') > BigInt(firstNonce?.digits ?? '0')).toBe(true);
    expect(first?.headers['rest-sign']).not.toBe(second?.headers['rest-sign']);
    expect(second?.signatureValid).toBe(true);
  });

  it('401 in tonce mode is retried once with a fresh, higher tonce: one overtaken by another request of the key (§5.4 rule 4)', async () => {
    fixture.venue.reset((_request, index) =>
      index === 0 ? json(401, '{"success":false,"message":"Unauthorized"}') : json(200, '{"success":true,"uuid":"w"}'),
    );
    await expect(fixture.client().submitFiatWithdrawal({ ...fiat, amount: '10' })).resolves.toEqual({ uuid: 'w' });
    const [first, second] = fixture.venue.requests;
    const firstTonce = antiReplayOf(first?.bodyText ?? '');
    const secondTonce = antiReplayOf(second?.bodyText ?? '');
    expect(firstTonce?.field).toBe('tonce');
    expect(BigInt(secondTonce?.digits ?? '0') > BigInt(firstTonce?.digits ?? '0')).toBe(true);
    expect(second?.signatureValid).toBe(true);
  });

  it('beforeSend runs once, right before the first request (not before its re-send); its rejection sends nothing', async () => {
    fixture.venue.reset((_request, index) =>
      index === 0 ? json(401, '{"success":false,"message":"Unauthorized"}') : json(200, '{"success":true,"uuid":"w"}'),
    );
    const seen: number[] = [];
    const beforeSend = async () => {
      seen.push(fixture.venue.requests.length);
    };
    await expect(fixture.client().submitFiatWithdrawal({ ...fiat, amount: '10' }, { beforeSend })).resolves.toEqual({
      uuid: 'w',
    });
    expect(seen).toEqual([0]); // before anything was sent, once
    expect(fixture.venue.requests).toHaveLength(2);

    fixture.venue.reset(ok);
    const refused = new Error('the send mark is held by another');
    const crypto = { accountGroupUuid: 'ag-1', ccy: 'BTC', walletUuid: 'w-1', amount: '0.1', precision: 8 };
    await expect(
      fixture.client().submitCryptoWithdrawal(crypto, { beforeSend: () => Promise.reject(refused) }),
    ).rejects.toBe(refused);
    expect(fixture.venue.requests).toHaveLength(0);
  });

  it('a second 401 is an auth error that says it may be throttling (nonce and tonce mode alike)', async () => {
    fixture.venue.reset(() => json(401, '{"success":false,"message":"Unauthorized"}'));
    const client = await fixture.nonceClient();
    const error = await client.listCryptoWithdrawals().catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(VenueAuthError);
    expect(error).toMatchObject({ status: 401, venueMessage: 'Unauthorized', mayBeThrottling: true });
    expect(fixture.venue.requests).toHaveLength(2);

    fixture.venue.reset(() => json(401, '{"success":false,"message":"Unauthorized"}'));
    await expect(fixture.client().listCryptoWithdrawals()).rejects.toBeInstanceOf(VenueAuthError);
    expect(fixture.venue.requests).toHaveLength(2);
  });

  it('lists are bare arrays; fiat rows and crypto rows (with FAILED) both read', async () => {
    fixture.venue.reset((request) =>
      json(200, request.path.includes('/fiat/') ? `[${fiatWithdrawalRowJson}]` : `[${cryptoWithdrawalRowJson}]`),
    );
    const client = fixture.client();
    await expect(client.listFiatWithdrawals()).resolves.toEqual([
      expect.objectContaining({ uuid: 'wd-1', amount: '100.50', withdrawalMethod: 'BANK_WIRE' }),
    ]);
    await expect(client.listCryptoWithdrawals()).resolves.toEqual([
      expect.objectContaining({ uuid: 'wd-2', state: 'FAILED', wallet: { uuid: 'w-1' } }),
    ]);
    expect(fixture.venue.requests.map((request) => request.bodyText)).toEqual([
      expect.stringMatching(/^\{"tonce":\d+\}$/),
      expect.stringMatching(/^\{"tonce":\d+\}$/),
    ]);
  });

  it('a row without uuid is left out and told, the rest of the list read; an unexpected field value reads as not known', async () => {
    const odd = JSON.stringify({ uuid: 'wd-3', state: 'ON_HOLD', amount: 'lots', ccy: 7, clientComment: 'gw:r3' });
    fixture.venue.reset(() => json(200, `[${fiatWithdrawalRowJson},{"state":"PENDING","amount":"1"},${odd}]`));
    const skipped: string[] = [];
    const client = fixture.client({
      events: { onRowSkipped: (operation, problem) => skipped.push(`${operation} ${problem}`) },
    });
    await expect(client.listFiatWithdrawals()).resolves.toEqual([
      expect.objectContaining({ uuid: 'wd-1', amount: '100.50' }),
      { uuid: 'wd-3', clientComment: 'gw:r3' },
    ]);
    expect(skipped).toEqual([expect.stringMatching(/^listFiatWithdrawals body\[1\]\.uuid: /)]);
  });

  it('cancel puts accountGroupUuid in the signed body, never in the query; 409 on a second cancel', async () => {
    fixture.venue.reset((_request, index) =>
      index === 0
        ? json(200, '{"success":true,"uuid":"wd-1"}')
        : json(409, '{"success":false,"message":"Request can not be cancelled in current state"}'),
    );
    const client = fixture.client();
    await expect(client.cancelFiatWithdrawal('wd-1', 'ag-1')).resolves.toEqual({ uuid: 'wd-1' });
    const [request] = fixture.venue.requests;
    expect(request?.path).toBe('/api/3/withdrawal/fiat/wd-1/cancel');
    expect([...(request?.query.keys() ?? [])]).toEqual([]);
    expect(request?.bodyText).toMatch(/^\{"tonce":\d+,"accountGroupUuid":"ag-1"\}$/);
    expect(request?.signatureValid).toBe(true);
    const error = await client.cancelFiatWithdrawal('wd-1', 'ag-1').catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(VenueConflictError);
    expect(error).toMatchObject({ venueMessage: 'Request can not be cancelled in current state' });
  });

  it('cancel of an unknown request is NotFound; crypto cancel uses the crypto path', async () => {
    fixture.venue.reset(() => json(404, '{"success":false,"message":"Request not found"}'));
    await expect(fixture.client().cancelCryptoWithdrawal('nope', 'ag-1')).rejects.toMatchObject({
      name: 'VenueNotFoundError',
      venueMessage: 'Request not found',
    });
    expect(fixture.venue.requests[0]?.path).toBe('/api/3/withdrawal/crypto/nope/cancel');
  });

  it('a wrong-method body (405 apiVersion/timestamp/error) is its own error', async () => {
    fixture.venue.reset(() => json(405, '{"apiVersion":"3","timestamp":"1700000000000","error":"Method Not Allowed"}'));
    const error = await fixture
      .client()
      .listFiatWithdrawals()
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(VenueWrongMethodError);
    expect(error).toMatchObject({ status: 405, apiVersion: '3', venueCode: 'Method Not Allowed' });
  });
});

describe('crypto submit and cancel answers (§4.9: "request and response fields: not shown")', () => {
  const crypto = { accountGroupUuid: 'ag-1', ccy: 'BTC', walletUuid: 'w-1', amount: '0.5', precision: 8 };
  const noContent = () => ({ status: 204 });

  it.each([
    ['{"success":true,"uuid":"wd-9"}', { uuid: 'wd-9' }],
    ['{"success":true}', {}],
    ['{}', {}],
    ['{"uuid":12345}', { uuid: '12345' }],
    ['{"success":true,"uuid":{"id":"wd-9"}}', {}],
    ['{"success":true,"data":{"state":"PENDING_APPROVAL"}}', {}],
    ['"OK"', {}],
    ['true', {}],
    ['null', {}],
  ])('a 2xx %s is an acknowledgement (the uuid when one is readable)', async (body, ack) => {
    fixture.venue.reset(() => json(200, body));
    await expect(fixture.client().submitCryptoWithdrawal(crypto)).resolves.toEqual(ack);
  });

  it('a 204 (or 200 with no body) is an acknowledgement without uuid', async () => {
    fixture.venue.reset(noContent);
    await expect(fixture.client().submitCryptoWithdrawal(crypto)).resolves.toEqual({});
    fixture.venue.reset(() => ({ status: 200 }));
    await expect(fixture.client().submitCryptoWithdrawal(crypto)).resolves.toEqual({});
    expect(fixture.venue.requests).toHaveLength(1);
  });

  it('a 2xx that says otherwise is not an acknowledgement: success false, an error field, `false`', async () => {
    fixture.venue.reset(() => json(200, '{"success":false,"message":"Wallet is disabled or is not whitelisted"}'));
    await expect(fixture.client().submitCryptoWithdrawal(crypto)).rejects.toBeInstanceOf(VenueResultCodeError);
    for (const body of ['{"error":"INTERNAL_ERROR","message":"x"}', '{"success":"no"}', 'false']) {
      fixture.venue.reset(() => json(200, body));
      await expect(fixture.client().submitCryptoWithdrawal(crypto)).rejects.toBeInstanceOf(VenueProtocolError);
    }
    // a body that is not JSON (a proxy's page) is not read as an acknowledgement either
    fixture.venue.reset(() => ({ status: 200, body: '<html>gateway</html>' }));
    await expect(fixture.client().submitCryptoWithdrawal(crypto)).rejects.toBeInstanceOf(VenueProtocolError);
  });

  it('a crypto cancel answered 204 or without uuid acknowledges the withdrawal of the path', async () => {
    fixture.venue.reset(noContent);
    await expect(fixture.client().cancelCryptoWithdrawal('wd-7', 'ag-1')).resolves.toEqual({ uuid: 'wd-7' });
    fixture.venue.reset(() => json(200, '{"success":true}'));
    await expect(fixture.client().cancelCryptoWithdrawal('wd-7', 'ag-1')).resolves.toEqual({ uuid: 'wd-7' });
    fixture.venue.reset(() => json(200, '{"success":true,"uuid":"wd-7"}'));
    await expect(fixture.client().cancelCryptoWithdrawal('wd-7', 'ag-1')).resolves.toEqual({ uuid: 'wd-7' });
  });

  it('fiat stays as the spec shows it ({success: true, uuid}): anything less is a protocol error', async () => {
    for (const reply of [() => json(200, '{"success":true}'), noContent]) {
      fixture.venue.reset(reply);
      await expect(fixture.client().submitFiatWithdrawal({ ...fiat, amount: '10' })).rejects.toBeInstanceOf(
        VenueProtocolError,
      );
      await expect(fixture.client().cancelFiatWithdrawal('wd-1', 'ag-1')).rejects.toBeInstanceOf(VenueProtocolError);
    }
  });
});
