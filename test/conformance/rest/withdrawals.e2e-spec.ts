/** §4.9, §3.1, §5.5–5.6, §7.2: withdrawals over real HTTP, every error row with its exact body. */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { RestPath, withdrawalCancelPath } from '#venue-api';
import { startSandboxVenue, type RunningSandbox } from '../../../apps/sandbox-venue/src/bootstrap.js';
import { SeedIds } from '../../../apps/sandbox-venue/src/domain/seed.js';
import { admin, bodyText, raw, SpecClient, tonceNow } from '../spec-client.js';

const envelope = (message: string): unknown => ({ success: false, message });
const ISO_OFFSET = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}[+-]\d{2}:\d{2}$/;

interface Row {
  uuid: string;
  state: string;
  amount: string;
  accountGroupUuid: string;
  lastUpdated: string;
  dateCreated: string;
  [k: string]: unknown;
}

describe('withdrawals', () => {
  let venue: RunningSandbox;
  let client: SpecClient;
  let seed: RunningSandbox['seed'];

  const fiat = (fields: Record<string, unknown>) =>
    client.post(RestPath.WithdrawalFiat, {
      accountGroupUuid: seed.defaultGroupUuid,
      ccy: 'USD',
      amount: raw('100.50'),
      withdrawalMethod: 'BANK_WIRE',
      bankAccountUuid: seed.bankUsdOk,
      ...fields,
    });
  const crypto = (fields: Record<string, unknown>) =>
    client.post(RestPath.WithdrawalCrypto, {
      accountGroupUuid: seed.defaultGroupUuid,
      ccy: 'BTC',
      amount: raw('0.01'),
      walletUuid: seed.walletBtcOk,
      ...fields,
    });
  const uuidOf = (res: { json: unknown }): string => (res.json as { uuid: string }).uuid;
  const list = async (kind: 'fiat' | 'crypto', c: SpecClient = client): Promise<Row[]> =>
    (await c.post(kind === 'fiat' ? RestPath.WithdrawalFiatList : RestPath.WithdrawalCryptoList)).json as Row[];

  beforeAll(async () => {
    venue = await startSandboxVenue({ port: 0, restRateLimitPerSecond: 10_000 });
    client = new SpecClient(venue.restBaseUrl, venue.credentials.primary);
    seed = venue.seed;
  });
  afterAll(() => venue.close());

  describe('§7.2 401 Unauthorized', () => {
    it.each([
      ['bad signature', { headers: { 'Rest-Sign': 'AAAA' }, omitSign: true }],
      ['missing nonce and tonce', { rawBody: '{"ccy":"USD"}' }],
      ['stale tonce', { rawBody: `{"tonce":${tonceNow(-180_000)}}` }],
      ['malformed nonce', { rawBody: '{"nonce":"12"}' }],
      ['unparseable body', { rawBody: '{"nonce":' }],
      ['unknown key', { credentials: { apiKey: 'unknown', apiSecret: 'AAAA' } }],
    ])('%s → 401 {success:false, message:"Unauthorized"}', async (_name, options) => {
      for (const path of [RestPath.WithdrawalFiat, RestPath.WithdrawalCryptoList, withdrawalCancelPath('fiat', 'x')]) {
        const res = await client.send(path, options);
        expect(res.status).toBe(401);
        expect(res.json).toEqual(envelope('Unauthorized'));
      }
    });

    it('a replayed or decreasing nonce → 401', async () => {
      const body = bodyText({});
      expect((await client.send(RestPath.WithdrawalFiatList, { rawBody: body })).status).toBe(200);
      const again = await client.send(RestPath.WithdrawalFiatList, { rawBody: body });
      expect(again.status).toBe(401);
      expect(again.json).toEqual(envelope('Unauthorized'));
    });
  });

  describe('§7.2 403', () => {
    it('key without Move Funds → "MOVE FUNDS permission required" on all six endpoints', async () => {
      const noMove = client.withCredentials(venue.credentials.noMoveFunds);
      for (const path of [
        RestPath.WithdrawalFiat,
        RestPath.WithdrawalCrypto,
        RestPath.WithdrawalFiatList,
        RestPath.WithdrawalCryptoList,
        withdrawalCancelPath('fiat', 'x'),
        withdrawalCancelPath('crypto', 'x'),
      ]) {
        const res = await noMove.post(path, { accountGroupUuid: seed.defaultGroupUuid });
        expect(res.status).toBe(403);
        expect(res.json).toEqual(envelope('MOVE FUNDS permission required'));
      }
    });

    it.each([['empty body', { rawBody: '' }]])('%s → "Invalid signed params"', async (_n, options) => {
      const res = await client.send(RestPath.WithdrawalFiat, options);
      expect(res.status).toBe(403);
      expect(res.json).toEqual(envelope('Invalid signed params'));
    });

    it.each([
      ['amount as a string', { amount: '100.50' }],
      ['three decimals even if the last is zero', { amount: raw('100.500') }],
      ['zero amount', { amount: raw('0') }],
      ['negative amount', { amount: raw('-5') }],
      ['another withdrawalMethod', { withdrawalMethod: 'SEPA' }],
      ['missing bankAccountUuid', { bankAccountUuid: undefined }],
      ['missing accountGroupUuid', { accountGroupUuid: undefined }],
      ['unsupported ccy', { ccy: 'XYZ' }],
      ['clientComment over 1024 characters', { clientComment: 'x'.repeat(1025) }],
    ])('fiat submit with %s → 403 "Invalid signed params"', async (_n, fields) => {
      const res = await fiat(fields);
      expect(res.status).toBe(403);
      expect(res.json).toEqual(envelope('Invalid signed params'));
    });

    it('crypto amount beyond 8 decimals → 403', async () => {
      const res = await crypto({ amount: raw('0.000000001') });
      expect(res.status).toBe(403);
      expect(res.json).toEqual(envelope('Invalid signed params'));
    });

    it('owning the group or holding its composing permissions is not ROLE_OPERATIONS', async () => {
      const res = await fiat({ accountGroupUuid: seed.noRoleGroup });
      expect(res.status).toBe(403);
      expect(res.json).toEqual(envelope('You do not have permission to perform this action'));
      const other = await fiat({ accountGroupUuid: seed.user2DefaultGroup });
      expect(other.json).toEqual(envelope('You do not have permission to perform this action'));
    });
  });

  describe('§7.2 422 business validation (request not created)', () => {
    it.each([
      [
        'a bank account of another group',
        { bankAccountUuid: SeedIds.bankSubUsdOk },
        'Bank account not found in account group',
      ],
      [
        'a disabled bank account',
        { bankAccountUuid: SeedIds.bankGbpDisabled, ccy: 'GBP' },
        'Bank account is disabled or is not verified',
      ],
      [
        'an unverified bank account',
        { bankAccountUuid: SeedIds.bankUsdUnverified },
        'Bank account is disabled or is not verified',
      ],
      ['a bank account in another currency', { ccy: 'EUR' }, 'Bank account does not support the requested currency'],
      ['more than the balance', { amount: raw('1000000.01') }, 'Insufficient funds'],
    ])('fiat: %s', async (_n, fields, message) => {
      const before = (await list('fiat')).length;
      const res = await fiat(fields);
      expect(res.status).toBe(422);
      expect(res.json).toEqual(envelope(message));
      expect(await list('fiat')).toHaveLength(before);
    });

    it.each([
      [
        'a wallet that is not whitelisted',
        { walletUuid: SeedIds.walletEthNotWhitelisted, ccy: 'ETH' },
        'Wallet is disabled or is not whitelisted',
      ],
      ['a disabled wallet', { walletUuid: SeedIds.walletBtcDisabled }, 'Wallet is disabled or is not whitelisted'],
      ['a wallet of another asset', { walletUuid: SeedIds.walletEthOk }, 'Wallet does not support the requested asset'],
      [
        'an unknown wallet',
        { walletUuid: 'a1a10000-0000-4000-8000-00000000ffff' },
        'Wallet not found in account group',
      ],
      ['more than the balance', { amount: raw('12.50000001') }, 'Insufficient funds'],
    ])('crypto: %s', async (_n, fields, message) => {
      const res = await crypto(fields);
      expect(res.status).toBe(422);
      expect(res.json).toEqual(envelope(message));
    });
  });

  describe('§7.2 insufficient funds: total balance less in-flight requests', () => {
    it('an amount exactly equal to the headroom is accepted; one cent more is not; cancelled requests free it', async () => {
      const sub = { accountGroupUuid: seed.subGroupUuid, bankAccountUuid: seed.bankSubUsdOk };
      const first = await fiat({ ...sub, amount: raw('30000.00') });
      expect(first.status).toBe(200);
      expect((await fiat({ ...sub, amount: raw('20000.01') })).json).toEqual(envelope('Insufficient funds'));
      const approved = await fiat({ ...sub, amount: raw('5000') });
      await admin(venue.adminUrl, `/withdrawals/${uuidOf(approved)}/approve`);
      // PENDING counts as in flight too: 50000 − 30000 − 5000 = 15000
      expect((await fiat({ ...sub, amount: raw('15000.01') })).json).toEqual(envelope('Insufficient funds'));
      const cancel = await client.post(withdrawalCancelPath('fiat', uuidOf(first)), {
        accountGroupUuid: seed.subGroupUuid,
      });
      expect(cancel.json).toEqual({ success: true, uuid: uuidOf(first) });
      const exact = await fiat({ ...sub, amount: raw('45000.00') });
      expect(exact.status).toBe(200);
      expect(exact.json).toEqual({ success: true, uuid: expect.any(String) });
    });

    it('the figure is the total Balance (unsettled buys included), not Available_Balance', async () => {
      // A venue of its own, so no other test's requests are in flight on ETH.
      const own = await startSandboxVenue({ port: 0, restRateLimitPerSecond: 10_000 });
      try {
        const c = new SpecClient(own.restBaseUrl, own.credentials.primary);
        const booked = await admin(own.adminUrl, '/trades/otc', {
          accountGroupUuid: own.seed.defaultGroupUuid,
          instrument: 'ETH.USD',
          side: 'BUY',
          baseAmount: '10',
          quoteAmount: '31502.50',
          price: '3150.25',
        });
        expect(booked.status).toBe(200);
        const balances = await c.post(RestPath.Balances, { accountGroupUuid: own.seed.defaultGroupUuid });
        const eth = (
          balances.json as {
            data: { Account_Groups: { Accounts: Record<string, Record<string, { value: string }>> }[] };
          }
        ).data.Account_Groups[0]?.Accounts['ETH'];
        expect(eth?.['Balance']?.value).toBe('150.00000000');
        expect(eth?.['Available_Balance']?.value).toBe('140.00000000');
        const eth150 = (amount: string) =>
          c.post(RestPath.WithdrawalCrypto, {
            accountGroupUuid: own.seed.defaultGroupUuid,
            ccy: 'ETH',
            amount: raw(amount),
            walletUuid: own.seed.walletEthOk,
          });
        expect((await eth150('150.00000001')).json).toEqual(envelope('Insufficient funds'));
        expect((await eth150('150')).json).toEqual({ success: true, uuid: expect.any(String) });
      } finally {
        await own.close();
      }
    });
  });

  describe('§4.9 lists', () => {
    it('a bare array, newest first, spanning every group with ROLE_OPERATIONS, ignoring accountGroupUuid', async () => {
      const a = uuidOf(await fiat({ amount: raw('1.25'), clientComment: 'first' }));
      const b = uuidOf(
        await fiat({ accountGroupUuid: seed.subGroupUuid, bankAccountUuid: seed.bankSubUsdOk, amount: raw('2') }),
      );
      const res = await client.post(RestPath.WithdrawalFiatList, { accountGroupUuid: seed.subGroupUuid });
      const rows = res.json as Row[];
      expect(Array.isArray(rows)).toBe(true);
      const ids = rows.map((r) => r.uuid);
      expect(ids.indexOf(b)).toBeLessThan(ids.indexOf(a));
      expect(ids.indexOf(a)).toBeGreaterThanOrEqual(0);
      const row = rows.find((r) => r.uuid === a);
      expect(row).toMatchObject({
        amount: '1.25',
        ccy: 'USD',
        state: 'PENDING_APPROVAL',
        withdrawalMethod: 'BANK_WIRE',
        bankAccount: { uuid: seed.bankUsdOk, name: expect.any(String), alias: 'USD main' },
        clientComment: 'first',
        accountGroupUuid: seed.defaultGroupUuid,
      });
      expect(row?.dateCreated).toMatch(ISO_OFFSET);
      expect(row?.lastUpdated).toMatch(ISO_OFFSET);
    });

    it('requests raised by operations staff are not listed but count as in flight', async () => {
      const staff = await admin(venue.adminUrl, '/withdrawals/staff', {
        kind: 'fiat',
        accountGroupUuid: seed.defaultGroupUuid,
        ccy: 'EUR',
        amount: '249999.00',
        bankAccountUuid: seed.bankEurOk,
      });
      const staffUuid = (staff.json as { uuid: string }).uuid;
      expect((await list('fiat')).some((r) => r.uuid === staffUuid)).toBe(false);
      const eur = { ccy: 'EUR', bankAccountUuid: seed.bankEurOk };
      expect((await fiat({ ...eur, amount: raw('1.01') })).json).toEqual(envelope('Insufficient funds'));
      expect((await fiat({ ...eur, amount: raw('1.00') })).status).toBe(200);
    });

    it('§2.7: requests raised through the API by any member of the group are listed, with their requestor', async () => {
      const colleague = client.withCredentials(venue.credentials.colleague);
      const theirs = uuidOf(
        await colleague.post(RestPath.WithdrawalFiat, {
          accountGroupUuid: seed.defaultGroupUuid,
          ccy: 'USD',
          amount: raw('3.30'),
          withdrawalMethod: 'BANK_WIRE',
          bankAccountUuid: seed.bankUsdOk,
        }),
      );
      const mine = uuidOf(await fiat({ amount: raw('3.31') }));
      const seenByMe = await list('fiat');
      expect(seenByMe.find((r) => r.uuid === theirs)).toMatchObject({ requestor: 'acme.ops@example.com' });
      expect(seenByMe.find((r) => r.uuid === mine)).toMatchObject({ requestor: 'acme.trader@example.com' });
      const seenByColleague = await list('fiat', colleague);
      expect(seenByColleague.map((r) => r.uuid)).toEqual(expect.arrayContaining([theirs, mine]));
      // The colleague holds the role on the Default group only: the sub-account's requests stay out.
      expect(seenByColleague.every((r) => r['accountGroupUuid'] === seed.defaultGroupUuid)).toBe(true);
      // A member with the role may cancel another member's request.
      const cancel = await colleague.post(withdrawalCancelPath('fiat', mine), {
        accountGroupUuid: seed.defaultGroupUuid,
      });
      expect(cancel.json).toEqual({ success: true, uuid: mine });
    });

    it('§2.7: valueless fields are absent, never null, with the participants service up or down', async () => {
      await fiat({ amount: raw('0.10') });
      await crypto({ amount: raw('0.001') });
      for (const available of [false, true]) {
        await admin(venue.adminUrl, '/faults/participants', { available });
        for (const path of [RestPath.WithdrawalFiatList, RestPath.WithdrawalCryptoList]) {
          const res = await client.post(path);
          expect((res.json as Row[]).length).toBeGreaterThan(0);
          expect(res.text).not.toMatch(/:\s*null/);
        }
      }
    });

    it('another user sees none of them; a key with the role on nothing would see an empty array', async () => {
      const rows = await list('fiat', client.withCredentials(venue.credentials.secondUser));
      expect(rows).toEqual([]);
    });

    it('crypto rows carry the wallet, beneficiary and group owner, and no withdrawalMethod', async () => {
      const id = uuidOf(await crypto({}));
      const row = (await list('crypto')).find((r) => r.uuid === id);
      expect(row).toMatchObject({
        amount: '0.01',
        ccy: 'BTC',
        coinAddress: expect.stringMatching(/^bc1/),
        state: 'PENDING_APPROVAL',
        accountGroupUuid: seed.defaultGroupUuid,
        accountGroupName: 'Default',
        accountGroup: 'Default',
        accountGroupOwnerUuid: seed.user1,
        beneficiary: { uuid: seed.originator, name: 'Acme Capital Ltd' },
        wallet: { uuid: seed.walletBtcOk, address: expect.any(String), alias: 'BTC cold' },
      });
      expect(row).not.toHaveProperty('withdrawalMethod');
      expect(row).not.toHaveProperty('clientComment');
    });

    it('§2.7: with the participants service down, names and aliases are omitted and uuids kept', async () => {
      await admin(venue.adminUrl, '/faults/participants', { available: false });
      try {
        const row = (await list('crypto'))[0];
        expect(row?.['wallet']).toEqual({ uuid: expect.any(String) });
        expect(row?.['beneficiary']).toEqual({ uuid: seed.originator });
      } finally {
        await admin(venue.adminUrl, '/faults/participants', { available: true });
      }
    });
  });

  describe('§3.1 state machine and cancel', () => {
    it('PENDING_APPROVAL → cancel → CANCELLED; cancelling again → 409', async () => {
      const id = uuidOf(await fiat({}));
      const path = withdrawalCancelPath('fiat', id);
      expect((await client.post(path, { accountGroupUuid: seed.defaultGroupUuid })).json).toEqual({
        success: true,
        uuid: id,
      });
      expect((await list('fiat')).find((r) => r.uuid === id)?.state).toBe('CANCELLED');
      const again = await client.post(path, { accountGroupUuid: seed.defaultGroupUuid });
      expect(again.status).toBe(409);
      expect(again.json).toEqual(envelope('Request can not be cancelled in current state'));
    });

    it('approved (PENDING) is no longer cancellable → 409; process → PROCESSED; lastUpdated moves', async () => {
      const id = uuidOf(await fiat({}));
      const created = (await list('fiat')).find((r) => r.uuid === id);
      await new Promise((r) => setTimeout(r, 5));
      expect((await admin(venue.adminUrl, `/withdrawals/${id}/approve`)).status).toBe(200);
      const res = await client.post(withdrawalCancelPath('fiat', id), { accountGroupUuid: seed.defaultGroupUuid });
      expect(res.status).toBe(409);
      expect(res.json).toEqual(envelope('Request can not be cancelled in current state'));
      const pending = (await list('fiat')).find((r) => r.uuid === id);
      expect(pending?.state).toBe('PENDING');
      expect(pending?.lastUpdated).not.toBe(created?.lastUpdated);
      await admin(venue.adminUrl, `/withdrawals/${id}/process`);
      expect((await list('fiat')).find((r) => r.uuid === id)?.state).toBe('PROCESSED');
    });

    it('operator decline → CANCELLED, indistinguishable from a client cancel', async () => {
      const id = uuidOf(await fiat({}));
      await admin(venue.adminUrl, `/withdrawals/${id}/decline`);
      expect((await list('fiat')).find((r) => r.uuid === id)?.state).toBe('CANCELLED');
    });

    it("crypto: the cancel window closes at the operator's first step; FAILED exists for crypto", async () => {
      const id = uuidOf(await crypto({}));
      await admin(venue.adminUrl, `/withdrawals/${id}/accept`);
      expect((await list('crypto')).find((r) => r.uuid === id)?.state).toBe('PENDING_APPROVAL');
      const res = await client.post(withdrawalCancelPath('crypto', id), { accountGroupUuid: seed.defaultGroupUuid });
      expect(res.status).toBe(409);
      await admin(venue.adminUrl, `/withdrawals/${id}/approve`);
      await admin(venue.adminUrl, `/withdrawals/${id}/fail`);
      expect((await list('crypto')).find((r) => r.uuid === id)?.state).toBe('FAILED');
      const other = uuidOf(await crypto({}));
      expect(
        (await client.post(withdrawalCancelPath('crypto', other), { accountGroupUuid: seed.defaultGroupUuid })).json,
      ).toEqual({
        success: true,
        uuid: other,
      });
    });

    it('accountGroupUuid only in the query string → 403 (the query string is not read)', async () => {
      const id = uuidOf(await fiat({}));
      const res = await client.post(
        withdrawalCancelPath('fiat', id),
        {},
        { query: `accountGroupUuid=${seed.defaultGroupUuid}` },
      );
      expect(res.status).toBe(403);
      expect(res.json).toEqual(envelope('Invalid signed params'));
      // The body's value decides even when the query string names another group.
      const both = await client.post(
        withdrawalCancelPath('fiat', id),
        { accountGroupUuid: seed.defaultGroupUuid },
        { query: `accountGroupUuid=${seed.subGroupUuid}` },
      );
      expect(both.json).toEqual({ success: true, uuid: id });
    });

    it('404 for an unknown uuid and for an existing uuid of another group', async () => {
      const unknown = await client.post(withdrawalCancelPath('fiat', 'no-such'), {
        accountGroupUuid: seed.defaultGroupUuid,
      });
      expect(unknown.status).toBe(404);
      expect(unknown.json).toEqual(envelope('Request not found'));
      const id = uuidOf(await fiat({}));
      const wrongGroup = await client.post(withdrawalCancelPath('fiat', id), { accountGroupUuid: seed.subGroupUuid });
      expect(wrongGroup.status).toBe(404);
      expect(wrongGroup.json).toEqual(envelope('Request not found'));
      const wrongKind = await client.post(withdrawalCancelPath('crypto', id), {
        accountGroupUuid: seed.defaultGroupUuid,
      });
      expect(wrongKind.status).toBe(404);
    });

    it("cancel needs ROLE_OPERATIONS on the body's group → 403", async () => {
      const res = await client.post(withdrawalCancelPath('fiat', 'x'), { accountGroupUuid: seed.noRoleGroup });
      expect(res.status).toBe(403);
      expect(res.json).toEqual(envelope('You do not have permission to perform this action'));
    });
  });

  describe('§7.2 500 (outcome undefined)', () => {
    it('an injected 500 after the request was carried out: the list shows it', async () => {
      await admin(venue.adminUrl, '/faults/rest', { path: RestPath.WithdrawalFiat, status: 500, applyThenFail: true });
      const res = await fiat({ amount: raw('7.77') });
      expect(res.status).toBe(500);
      expect(res.json).toEqual(envelope('Error while processing request'));
      expect((await list('fiat')).some((r) => r.amount === '7.77')).toBe(true);
    });

    it('an injected 500 before it: nothing created', async () => {
      await admin(venue.adminUrl, '/faults/rest', { path: RestPath.WithdrawalFiat, status: 503 });
      const res = await fiat({ amount: raw('8.88') });
      expect(res.status).toBe(503);
      expect(res.json).toEqual(envelope('Error while processing request'));
      expect((await list('fiat')).some((r) => r.amount === '8.88')).toBe(false);
    });
  });
});
