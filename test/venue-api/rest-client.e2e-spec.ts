/**
 * The venue REST client (libs/venue-api/src/rest) against the sandbox venue over real HTTP: every
 * operation, the odd cases of §7, both signature encodings, both anti-replay modes, and the limiter
 * against the venue's own 30/s throttle.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import {
  InvalidVenueRequestError,
  PersistentNonceSource,
  TonceSource,
  VenueAuthError,
  VenueConflictError,
  VenueNotFoundError,
  VenueRestClient,
  VenueValidationError,
} from '#venue-api';
import {
  startSandboxVenue,
  type RunningSandbox,
  type SandboxCredentials,
} from '../../apps/sandbox-venue/src/bootstrap.js';

function clientFor(
  venue: RunningSandbox,
  credentials: Pick<SandboxCredentials, 'apiKey' | 'apiSecret'>,
  encoding: 'base64' | 'hex' = 'base64',
) {
  return new VenueRestClient({
    baseUrl: venue.restBaseUrl,
    apiKey: credentials.apiKey,
    apiSecret: credentials.apiSecret,
    signatureEncoding: encoding,
    antiReplay: new TonceSource(),
    webhookIpsUrl: venue.ipsUrl,
  });
}

describe('VenueRestClient against the sandbox venue', () => {
  let venue: RunningSandbox;
  let client: VenueRestClient;

  beforeAll(async () => {
    venue = await startSandboxVenue({ port: 0, restRateLimitPerSecond: 10_000 });
    client = clientFor(venue, venue.credentials.primary);
  });
  afterAll(() => venue.close());

  it('W1: issues a WebSocket token', async () => {
    const token = await client.createWebSocketToken();
    expect(token.token.length).toBeGreaterThan(0);
    expect(token.expiresAt).toMatch(/^\d+$/);
  });

  it('§4.4: reads balances with decimal strings', async () => {
    const balances = await client.getBalances({ filterZeroBalanceAccounts: true });
    expect(balances.resultCode).toBe('OK');
    const group = balances.data.Account_Groups.find((g) => g.AccountGroup_Uuid === venue.seed.defaultGroupUuid);
    expect(group?.Natural).toBe(true);
    expect(group?.Accounts['USD']?.Balance.value).toMatch(/^\d+(\.\d+)?$/);
    expect(Object.keys(group?.Accounts ?? {})).toEqual(expect.arrayContaining(['USD', 'BTC']));
  });

  it('§4.5: lists trades after nothing traded: an empty page, and pagination stops at once', async () => {
    await expect(client.listTrades({ max: 200 })).resolves.toEqual({ data: [], total: 0, rows: 0 });
    await expect(client.listAllTrades()).resolves.toEqual([]);
  });

  it('§4.6: account details of the Default group; undefined where the group has no originator', async () => {
    const details = await client.getAccountDetails();
    expect(details).toMatchObject({ uuid: venue.seed.originator, kind: 'ORIGINATOR' });
    await expect(client.getAccountDetails({ accountGroupUuid: venue.seed.noRoleGroup })).resolves.toBeUndefined();
  });

  it('§4.8: lists beneficiaries; a limit above 50 never leaves the client', async () => {
    const page = await client.listBeneficiaries({ limit: 50 });
    expect(page.total).toBeGreaterThan(0);
    expect(page.data.every((beneficiary) => beneficiary.kind === 'BENEFICIARY')).toBe(true);
    await expect(client.listBeneficiaries({ limit: 51 })).rejects.toBeInstanceOf(InvalidVenueRequestError);
  });

  it('§4.7: lists senders', async () => {
    const page = await client.listSenders({ limit: 10 });
    expect(page.data.map((sender) => sender.uuid)).toEqual(
      expect.arrayContaining([venue.seed.senderEntity, venue.seed.senderIndividual]),
    );
    expect(page.data.every((sender) => sender.kind === 'SENDER')).toBe(true);
  });

  it('§4.9: fiat withdrawal → list → cancel → 409 on a second cancel', async () => {
    const submitted = await client.submitFiatWithdrawal({
      accountGroupUuid: venue.seed.defaultGroupUuid,
      ccy: 'USD',
      amount: '125.50',
      bankAccountUuid: venue.seed.bankUsdOk,
      clientComment: 'e2e',
    });
    const listed = await client.listFiatWithdrawals();
    expect(listed.find((row) => row.uuid === submitted.uuid)).toMatchObject({
      amount: '125.50',
      ccy: 'USD',
      state: 'PENDING_APPROVAL',
      withdrawalMethod: 'BANK_WIRE',
      clientComment: 'e2e',
      bankAccount: { uuid: venue.seed.bankUsdOk },
    });
    await expect(client.cancelFiatWithdrawal(submitted.uuid, venue.seed.defaultGroupUuid)).resolves.toEqual({
      uuid: submitted.uuid,
    });
    const again = await client
      .cancelFiatWithdrawal(submitted.uuid, venue.seed.defaultGroupUuid)
      .catch((caught: unknown) => caught);
    expect(again).toBeInstanceOf(VenueConflictError);
    expect(again).toMatchObject({ status: 409, venueMessage: 'Request can not be cancelled in current state' });
    const after = await client.listFiatWithdrawals();
    expect(after.find((row) => row.uuid === submitted.uuid)?.state).toBe('CANCELLED');
  });

  it('§4.9: cancel in another account group is 404 Request not found', async () => {
    const submitted = await client.submitFiatWithdrawal({
      accountGroupUuid: venue.seed.defaultGroupUuid,
      ccy: 'USD',
      amount: '1',
      bankAccountUuid: venue.seed.bankUsdOk,
    });
    await expect(client.cancelFiatWithdrawal(submitted.uuid, venue.seed.subGroupUuid)).rejects.toMatchObject({
      name: 'VenueNotFoundError',
      venueMessage: 'Request not found',
    });
    await client.cancelFiatWithdrawal(submitted.uuid, venue.seed.defaultGroupUuid);
  });

  it('§7.2: insufficient funds is 422 with the venue message; 3 decimals never leave the client', async () => {
    const error = await client
      .submitFiatWithdrawal({
        accountGroupUuid: venue.seed.defaultGroupUuid,
        ccy: 'USD',
        amount: '999999999999.00',
        bankAccountUuid: venue.seed.bankUsdOk,
      })
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(VenueValidationError);
    expect(error).toMatchObject({ status: 422, venueMessage: 'Insufficient funds' });
    await expect(
      client.submitFiatWithdrawal({
        accountGroupUuid: venue.seed.defaultGroupUuid,
        ccy: 'USD',
        amount: '1.000',
        bankAccountUuid: venue.seed.bankUsdOk,
      }),
    ).rejects.toBeInstanceOf(InvalidVenueRequestError);
  });

  it('§7.2: an unverified bank account is 422; no ROLE_OPERATIONS on the group is 403', async () => {
    await expect(
      client.submitFiatWithdrawal({
        accountGroupUuid: venue.seed.defaultGroupUuid,
        ccy: 'USD',
        amount: '10',
        bankAccountUuid: venue.seed.bankUsdUnverified,
      }),
    ).rejects.toMatchObject({ status: 422, venueMessage: 'Bank account is disabled or is not verified' });
    await expect(
      client.submitFiatWithdrawal({
        accountGroupUuid: venue.seed.noRoleGroup,
        ccy: 'USD',
        amount: '10',
        bankAccountUuid: venue.seed.bankUsdOk,
      }),
    ).rejects.toMatchObject({ status: 403, venueMessage: 'You do not have permission to perform this action' });
  });

  it('R6/R7: crypto withdrawal with 8 decimals → listed → cancelled', async () => {
    const submitted = await client.submitCryptoWithdrawal({
      accountGroupUuid: venue.seed.defaultGroupUuid,
      ccy: 'BTC',
      amount: '0.00010000',
      walletUuid: venue.seed.walletBtcOk,
    });
    // the sandbox's reference reading names the request (§4.9 does not show the answer: WD7)
    const uuid = submitted.uuid ?? '';
    expect(uuid).not.toBe('');
    const row = (await client.listCryptoWithdrawals()).find((r) => r.uuid === uuid);
    expect(row).toMatchObject({ ccy: 'BTC', state: 'PENDING_APPROVAL', wallet: { uuid: venue.seed.walletBtcOk } });
    expect(row?.amount).toMatch(/^0\.0001(0*)$/);
    await expect(client.cancelCryptoWithdrawal(uuid, venue.seed.defaultGroupUuid)).resolves.toEqual({ uuid });
    await expect(
      client.submitCryptoWithdrawal({
        accountGroupUuid: venue.seed.defaultGroupUuid,
        ccy: 'ETH',
        amount: '1',
        walletUuid: venue.seed.walletEthNotWhitelisted,
      }),
    ).rejects.toMatchObject({ status: 422, venueMessage: 'Wallet is disabled or is not whitelisted' });
  });

  it('§5.6: a key without Move Funds gets 403 on withdrawal endpoints, lists included', async () => {
    const restricted = clientFor(venue, venue.credentials.noMoveFunds);
    const error = await restricted.listFiatWithdrawals().catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(VenueValidationError);
    expect(error).toMatchObject({ status: 403, venueMessage: 'MOVE FUNDS permission required' });
    await expect(restricted.getBalances()).resolves.toMatchObject({ resultCode: 'OK' });
  });

  it('§4.10: order state for an unknown clientRequestId is an empty array', async () => {
    await expect(client.getOrderState('never-sent-1')).resolves.toEqual([]);
  });

  it('R9–R12: transactions, transfers, a transfer, credit limits and pairs', async () => {
    const transactions = await client.listTransactions({ max: 10 });
    expect(transactions.total).toBeGreaterThanOrEqual(0);
    const transfer = await client.transfer({
      accountGroupUuid: venue.seed.defaultGroupUuid,
      toAccountGroupUuid: venue.seed.subGroupUuid,
      ccy: 'USD',
      amount: '10.00',
    });
    const transfers = await client.listTransfers();
    expect(transfers.data.find((row) => row.uuid === transfer.uuid)).toMatchObject({ ccy: 'USD' });
    const limits = await client.getCreditLimits();
    expect(Array.isArray(limits.data)).toBe(true);
    const pairs = await client.listPairs();
    expect(pairs.map((pair) => pair.instrument)).toContain('BTC.USD');
  });

  it('§4.12: reads the webhook source address list', async () => {
    const list = await client.getWebhookSourceAddresses();
    expect(list.ipv4_cidrs).toContain('127.0.0.1/32');
    expect(Number.isSafeInteger(list.version)).toBe(true);
  });

  it('§5: a wrong secret is an auth failure with the venue code, and the error holds no secret', async () => {
    const wrong = clientFor(venue, {
      ...venue.credentials.primary,
      apiSecret: Buffer.from('wrong').toString('base64'),
    });
    const error = await wrong.getBalances().catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(VenueAuthError);
    expect(String((error as Error).message)).not.toContain(venue.credentials.primary.apiSecret);
    const withdrawalError = await wrong.listFiatWithdrawals().catch((caught: unknown) => caught);
    expect(withdrawalError).toMatchObject({ status: 401, venueMessage: 'Unauthorized', mayBeThrottling: true });
    const participantError = await wrong.getAccountDetails().catch((caught: unknown) => caught);
    expect(participantError).toBeInstanceOf(VenueAuthError);
    expect(participantError).not.toBeInstanceOf(VenueNotFoundError);
  });
});

describe('VenueRestClient against the sandbox: nonce mode, hex encoding, limits', () => {
  let nonceDirectory: string;

  beforeAll(async () => {
    nonceDirectory = await mkdtemp(join(tmpdir(), 'rest-client-e2e-'));
  });
  afterAll(() => rm(nonceDirectory, { recursive: true, force: true }));

  it('works with the persistent nonce source, concurrent calls included', async () => {
    const venue = await startSandboxVenue({ port: 0, restRateLimitPerSecond: 10_000 });
    try {
      const credentials = venue.credentials.primary;
      const client = new VenueRestClient({
        baseUrl: venue.restBaseUrl,
        apiKey: credentials.apiKey,
        apiSecret: credentials.apiSecret,
        antiReplay: new PersistentNonceSource({ directory: nonceDirectory, apiKey: credentials.apiKey }),
      });
      const results = await Promise.all([
        client.listFiatWithdrawals(),
        client.listCryptoWithdrawals(),
        client.getOrderState('nonce-check'),
        client.getAccountDetails(),
        client.listBeneficiaries(),
      ]);
      expect(results[2]).toEqual([]);
    } finally {
      await venue.close();
    }
  });

  it('signs with the hex encoding against a hex venue (R1)', async () => {
    const venue = await startSandboxVenue({ port: 0, signatureEncoding: 'hex', restRateLimitPerSecond: 10_000 });
    try {
      const client = clientFor(venue, venue.credentials.primary, 'hex');
      await expect(client.getBalances()).resolves.toMatchObject({ resultCode: 'OK' });
    } finally {
      await venue.close();
    }
  });

  it('keeps 60 concurrent requests inside the venue throttle (30 per sliding second): no 429', async () => {
    const venue = await startSandboxVenue({ port: 0 });
    try {
      const throttled: string[] = [];
      const client = new VenueRestClient({
        baseUrl: venue.restBaseUrl,
        apiKey: venue.credentials.primary.apiKey,
        apiSecret: venue.credentials.primary.apiSecret,
        antiReplay: new TonceSource(),
        events: { onThrottled: (operation) => throttled.push(operation) },
      });
      const pairs = await Promise.all(Array.from({ length: 60 }, () => client.listPairs()));
      expect(pairs).toHaveLength(60);
      expect(throttled).toEqual([]);
    } finally {
      await venue.close();
    }
  });
});
