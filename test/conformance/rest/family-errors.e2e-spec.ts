/**
 * §7.3, §4.6–4.8, §4.10, spec-gaps R2–R5: failure bodies of every non-withdrawal endpoint family,
 * the 405 body for a wrong method, order-state's two 400 bodies.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { RestPath } from '#venue-api';
import { startSandboxVenue, type RunningSandbox } from '../../../apps/sandbox-venue/src/bootstrap.js';
import { bodyText, raw, SpecClient } from '../spec-client.js';

const MS = expect.stringMatching(/^\d+$/);

describe('REST failure bodies per endpoint family', () => {
  let venue: RunningSandbox;
  let client: SpecClient;

  beforeAll(async () => {
    venue = await startSandboxVenue({ port: 0, restRateLimitPerSecond: 10_000 });
    client = new SpecClient(venue.restBaseUrl, venue.credentials.primary);
  });
  afterAll(() => venue.close());

  describe('R2 authentication failures', () => {
    const badSig = { headers: { 'Rest-Sign': 'AAAA' }, omitSign: true };

    it('participant endpoints answer HTTP 200 with resultCode UNAUTHORISED / INVALID_NONCE_OR_TONCE', async () => {
      for (const path of [RestPath.Originator, RestPath.Beneficiaries]) {
        const sig = await client.post(path, {}, badSig);
        expect(sig.status).toBe(200);
        expect(sig.json).toEqual({ resultCode: 'UNAUTHORISED', timestamp: MS });
        const none = await client.send(path, { rawBody: '{}' });
        expect(none.status).toBe(200);
        expect(none.json).toEqual({ resultCode: 'INVALID_NONCE_OR_TONCE', timestamp: MS });
      }
    });

    it('trades: 401 {error: INVALID_SIGNATURE, message}', async () => {
      const res = await client.post(RestPath.Trades, {}, badSig);
      expect(res.status).toBe(401);
      expect(res.json).toEqual({ error: 'INVALID_SIGNATURE', message: expect.any(String) });
      const used = bodyText({});
      expect((await client.send(RestPath.Trades, { rawBody: used })).status).toBe(200);
      const replay = await client.send(RestPath.Trades, { rawBody: used });
      expect(replay.status).toBe(401);
      expect(replay.json).toEqual({ error: 'INVALID_SIGNATURE', message: expect.any(String) });
    });

    it('balances, senders and the R9–R12 operations: 401 INVALID_SIGNATURE or INVALID_NONCE_OR_TONCE', async () => {
      for (const path of [RestPath.Balances, RestPath.Senders, RestPath.TransactionList, RestPath.Pairs]) {
        const sig = await client.post(path, {}, badSig);
        expect(sig.status).toBe(401);
        expect(sig.json).toEqual({ error: 'INVALID_SIGNATURE', message: expect.any(String) });
        const nonce = await client.send(path, { rawBody: '{"tonce":1}' });
        expect(nonce.status).toBe(401);
        expect(nonce.json).toEqual({ error: 'INVALID_NONCE_OR_TONCE', message: expect.any(String) });
      }
    });

    it('§4.10 order state: 401 {resultCode, timestamp} for any authentication failure, including no body', async () => {
      const q = 'clientRequestId=abc';
      for (const options of [badSig, { rawBody: '' }, { rawBody: '{}' }, { rawBody: '{"nonce":1}' }]) {
        const res = await client.send(RestPath.OrderState, { query: q, ...options });
        expect(res.status).toBe(401);
        expect(res.json).toEqual({ resultCode: 'UNAUTHORISED', timestamp: MS });
      }
    });
  });

  describe('R4 wrong method', () => {
    it.each([
      ['GET', RestPath.Balances],
      ['PUT', RestPath.Trades],
      ['GET', RestPath.WithdrawalFiatList],
      ['DELETE', '/api/3/withdrawal/fiat/abc/cancel'],
    ])('%s %s → 405 {apiVersion, timestamp, error}', async (method, path) => {
      const res = await client.send(path, { method });
      expect(res.status).toBe(405);
      expect(Object.keys(res.json as object).sort()).toEqual(['apiVersion', 'error', 'timestamp']);
    });
  });

  describe('§4.6 account details', () => {
    it('returns one ENTITY object (not an array, not an envelope) for the Default group', async () => {
      const res = await client.post(RestPath.Originator);
      expect(res.status).toBe(200);
      const body = res.json as Record<string, unknown>;
      expect(body['type']).toBe('ENTITY');
      expect(body['kind']).toBe('ORIGINATOR');
      expect(body['clientAccountGroupUuid']).toBe(venue.seed.defaultGroupUuid);
      const persons = body['associatedPersons'] as Record<string, unknown>[];
      expect(persons.length).toBeGreaterThan(0);
      for (const p of persons) {
        // §2.5: enabled, verified and vasp are always null on associated persons; type always INDIVIDUAL.
        expect(p).toMatchObject({ enabled: null, verified: null, vasp: null, type: 'INDIVIDUAL' });
        expect(p['dateOfBirth']).toMatch(/^\d{4}-\d{2}-\d{2}$/);
      }
      // Absent when not recorded, never null; ENTITY records carry no INDIVIDUAL-only fields.
      expect(body).not.toHaveProperty('ownershipPercentage');
      for (const f of ['firstname', 'lastname', 'dateOfBirth', 'countryOfOrigin', 'nationality']) {
        expect(body).not.toHaveProperty(f);
      }
      expect(body).toMatchObject({ enabled: true, verified: true, vasp: false });
      expect(body['bankAccounts']).toEqual(expect.arrayContaining([expect.objectContaining({ enabled: false })]));
      expect(body['wallets']).toEqual(expect.arrayContaining([expect.objectContaining({ whitelisted: false })]));
    });

    it('limit is validated with a cap of 50 (then ignored)', async () => {
      expect((await client.post(RestPath.Originator, { limit: 50 })).json).toMatchObject({ type: 'ENTITY' });
      const res = await client.post(RestPath.Originator, { limit: 51 });
      expect(res.status).toBe(200);
      expect(res.json).toEqual({ resultCode: 'INVALID_PARAMETERS', timestamp: MS });
    });

    it('404 with an empty body when the resolved group has no originator record', async () => {
      const res = await client.post(RestPath.Originator, { accountGroupUuid: venue.seed.noRoleGroup });
      expect(res.status).toBe(404);
      expect(res.text).toBe('');
    });

    it('an INDIVIDUAL originator carries the INDIVIDUAL-only fields and none of the ENTITY-only ones', async () => {
      const res = await client.withCredentials(venue.credentials.secondUser).post(RestPath.Originator);
      const body = res.json as Record<string, unknown>;
      expect(body).toMatchObject({
        type: 'INDIVIDUAL',
        kind: 'ORIGINATOR',
        firstname: expect.any(String),
        lastname: expect.any(String),
        dateOfBirth: expect.stringMatching(/^\d{4}-\d{2}-\d{2}$/),
        countryOfOrigin: expect.stringMatching(/^[A-Z]{2}$/),
        nationality: expect.stringMatching(/^[A-Z]{2}$/),
      });
      for (const f of [
        'companyName',
        'companyName2',
        'dateOfFormation',
        'countryOfFormation',
        'countryOfRegistration',
      ]) {
        expect(body).not.toHaveProperty(f);
      }
    });

    it('§4.1: userUuid is for master keys only; an ordinary key acting "on behalf of" another user is ignored', async () => {
      const res = await client.post(RestPath.Originator, { userUuid: venue.credentials.secondUser.userUuid });
      expect(res.json).toMatchObject({ uuid: venue.seed.originator, type: 'ENTITY' });
    });

    it('another group selects its own entity', async () => {
      const res = await client.post(RestPath.Originator, { accountGroupUuid: venue.seed.subGroupUuid });
      expect(res.json).toMatchObject({
        uuid: venue.seed.subOriginator,
        clientAccountGroupUuid: venue.seed.subGroupUuid,
      });
    });
  });

  describe('§4.8 beneficiaries', () => {
    it('returns {data, total} of BENEFICIARY records', async () => {
      const res = await client.post(RestPath.Beneficiaries);
      const body = res.json as { data: { kind: string }[]; total: number };
      expect(body.total).toBe(3);
      expect(body.data.every((b) => b.kind === 'BENEFICIARY')).toBe(true);
    });

    it('limit above 50 → INVALID_PARAMETERS (HTTP 200)', async () => {
      const res = await client.post(RestPath.Beneficiaries, { limit: 51 });
      expect(res.status).toBe(200);
      expect(res.json).toEqual({ resultCode: 'INVALID_PARAMETERS', timestamp: MS });
    });

    it('pages with limit and offset', async () => {
      const res = await client.post(RestPath.Beneficiaries, { limit: 2, offset: 2 });
      expect((res.json as { data: unknown[]; total: number }).data).toHaveLength(1);
    });
  });

  describe('§4.7 senders', () => {
    it('returns {data, total} of SENDER records; limit 1–200', async () => {
      const res = await client.post(RestPath.Senders);
      expect(res.json).toMatchObject({ total: 2 });
      expect((await client.post(RestPath.Senders, { limit: 201 })).status).toBe(400);
      expect((await client.post(RestPath.Senders, { limit: 0 })).status).toBe(400);
      expect((await client.post(RestPath.Senders, { limit: 1 })).json).toMatchObject({ total: 2, data: [{}] });
    });

    it('pagination also takes the parameter under the name max (§4.7 names it both ways)', async () => {
      expect((await client.post(RestPath.Senders, { max: 1 })).json).toMatchObject({ total: 2, data: [{}] });
      expect((await client.post(RestPath.Senders, { max: 201 })).status).toBe(400);
    });

    it('§2.5 / R33: the address comes under beneficiaryAddress (example) on one sender, address (table) on the other', async () => {
      const body = (await client.post(RestPath.Senders)).json as { data: Record<string, unknown>[] };
      expect(body.data.every((s) => s['kind'] === 'SENDER')).toBe(true);
      const names = body.data.map((s) => ['address', 'beneficiaryAddress'].filter((k) => k in s));
      expect(names).toEqual(expect.arrayContaining([['address'], ['beneficiaryAddress']]));
      for (const s of body.data) {
        const address = (s['address'] ?? s['beneficiaryAddress']) as Record<string, unknown>;
        expect(address['country']).toMatch(/^[A-Z]{2}$/);
        // "Sender bankAccounts is not currently supported."
        expect(s['bankAccounts']).toEqual([]);
      }
    });
  });

  describe('§4.5 / §7.3 trades', () => {
    it('an empty body returns all trades as {data, total}', async () => {
      const res = await client.post(RestPath.Trades);
      expect(res.status).toBe(200);
      expect(res.json).toEqual({ data: expect.any(Array), total: expect.any(Number) });
    });

    it('400 INVALID_PARAMETER for a non-ISO-8601 from/to', async () => {
      for (const fields of [{ from: '2025-13-45' }, { to: '15/01/2025' }, { from: '2025-01-15' }]) {
        const res = await client.post(RestPath.Trades, fields);
        expect(res.status).toBe(400);
        expect(res.json).toEqual({ error: 'INVALID_PARAMETER', message: expect.stringContaining('ISO 8601') });
      }
      expect((await client.post(RestPath.Trades, { from: '2025-01-15T00:00:00Z' })).status).toBe(200);
    });

    it('max must be 1 to 200', async () => {
      expect((await client.post(RestPath.Trades, { max: 0 })).status).toBe(400);
      expect((await client.post(RestPath.Trades, { max: 201 })).status).toBe(400);
      expect((await client.post(RestPath.Trades, { max: 200 })).status).toBe(200);
      expect((await client.post(RestPath.Trades, { max: raw('1.5') })).status).toBe(400);
    });

    it("404 INVALID_ACCOUNT_GROUP for a group that is not the caller's", async () => {
      const res = await client.post(RestPath.Trades, { accountGrpUuid: venue.seed.user2DefaultGroup });
      expect(res.status).toBe(404);
      expect(res.json).toEqual({ error: 'INVALID_ACCOUNT_GROUP', message: expect.any(String) });
    });

    it('rejects unknown enum values of the filters', async () => {
      for (const fields of [{ tradeSide: 'HOLD' }, { tradeClass: 'SWAP' }, { tradeState: 'DONE' }]) {
        expect((await client.post(RestPath.Trades, fields)).status).toBe(400);
      }
    });

    it('tradeState filters on PENDING_SETTLEMENT, SETTLED, CANCELLED only: FAILED is a state, not a filter value', async () => {
      const failed = await client.post(RestPath.Trades, { tradeState: 'FAILED' });
      expect(failed.status).toBe(400);
      expect(failed.json).toEqual({ error: 'INVALID_PARAMETER', message: expect.any(String) });
      for (const tradeState of ['PENDING_SETTLEMENT', 'SETTLED', 'CANCELLED']) {
        expect((await client.post(RestPath.Trades, { tradeState })).status).toBe(200);
      }
    });
  });

  describe('§4.10 order state', () => {
    it('R5: a missing clientRequestId gives the framework 400 body', async () => {
      const res = await client.post(RestPath.OrderState);
      expect(res.status).toBe(400);
      expect(res.json).toEqual({
        timestamp: expect.any(String),
        status: 400,
        error: 'Bad Request',
        path: RestPath.OrderState,
      });
    });

    it('R5: a missing Rest-Key header gives the framework 400 body', async () => {
      const res = await client.post(RestPath.OrderState, {}, { query: 'clientRequestId=a', omitKey: true });
      expect(res.status).toBe(400);
      expect(res.json).toMatchObject({ status: 400, error: 'Bad Request' });
    });

    it.each(['a/b', 'a b', 'x'.repeat(65), '\u0001'])(
      'identifier rules broken (%s) → 400 {resultCode, timestamp}',
      async (id) => {
        const res = await client.post(RestPath.OrderState, {}, { query: `clientRequestId=${encodeURIComponent(id)}` });
        expect(res.status).toBe(400);
        expect(res.json).toEqual({ resultCode: 'INVALID_PARAMETERS', timestamp: MS });
      },
    );

    it('a bad sessionId is refused the same way', async () => {
      const res = await client.post(RestPath.OrderState, {}, { query: 'clientRequestId=ok&sessionId=a%20b' });
      expect(res.status).toBe(400);
      expect(res.json).toEqual({ resultCode: 'INVALID_PARAMETERS', timestamp: MS });
    });

    it('an unknown clientRequestId is 200 with an empty array', async () => {
      const res = await client.post(RestPath.OrderState, {}, { query: 'clientRequestId=never-sent' });
      expect(res.status).toBe(200);
      expect(res.json).toEqual([]);
    });
  });

  describe('§4.4 balances', () => {
    it('returns every supported currency per group, or only non-zero ones with filterZeroBalanceAccounts', async () => {
      const all = (await client.post(RestPath.Balances)).json as {
        data: { Account_Groups: { AccountGroup_Uuid: string; Natural: boolean; Accounts: Record<string, unknown> }[] };
        resultCode: string;
      };
      expect(all.resultCode).toBe('OK');
      const def = all.data.Account_Groups.find((g) => g.AccountGroup_Uuid === venue.seed.defaultGroupUuid);
      expect(def?.Natural).toBe(true);
      expect(Object.keys(def?.Accounts ?? {})).toEqual(expect.arrayContaining(['USD', 'SHIB']));
      // §4.4: false (the default) returns all supported currencies, "100+", in every group.
      for (const g of all.data.Account_Groups) expect(Object.keys(g.Accounts).length).toBeGreaterThanOrEqual(100);
      const explicit = (await client.post(RestPath.Balances, { filterZeroBalanceAccounts: false })).json as typeof all;
      expect(explicit.data.Account_Groups.map((g) => Object.keys(g.Accounts).length)).toEqual(
        all.data.Account_Groups.map((g) => Object.keys(g.Accounts).length),
      );
      const nonZero = (await client.post(RestPath.Balances, { filterZeroBalanceAccounts: true })).json as typeof all;
      const defNz = nonZero.data.Account_Groups.find((g) => g.AccountGroup_Uuid === venue.seed.defaultGroupUuid);
      expect(Object.keys(defNz?.Accounts ?? {})).not.toContain('SHIB');
      expect(Object.keys(defNz?.Accounts ?? {})).toContain('USD');
    });

    it('§2.6 root, account group and account object fields', async () => {
      const res = await client.post(RestPath.Balances);
      const body = res.json as {
        data: Record<string, unknown> & { Account_Groups: Record<string, unknown>[] };
        userUuid: string;
        timestamp: string;
      };
      expect(body.userUuid).toBe(venue.credentials.primary.userUuid);
      expect(body.timestamp).toEqual(MS);
      expect(body.data).toMatchObject({
        Created: expect.any(String),
        Language: expect.any(String),
        Login: expect.any(String),
        Rights: expect.any(Array),
      });
      const sub = body.data.Account_Groups.find((g) => g['AccountGroup_Uuid'] === venue.seed.subGroupUuid);
      expect(sub).toMatchObject({
        AccountGroup_Name: 'Acme Sub-account',
        Owner_Uuid: venue.credentials.primary.userUuid,
        Owner_Name: expect.any(String),
        Owner_Shortcode: expect.any(String),
        Natural: false,
      });
      const usd = (sub?.['Accounts'] as Record<string, Record<string, unknown>>)['USD'];
      expect(usd).toMatchObject({
        ccy: 'USD',
        Owner_Uuid: venue.credentials.primary.userUuid,
        Uuid: expect.any(String),
      });
      for (const column of [
        'Balance',
        'Available_Balance',
        'Brokerage_Available_Balance',
        'Unsettled_Sell_Balance',
        'Unsettled_Buy_Balance',
      ]) {
        expect(usd?.[column]).toEqual({
          displayShort: expect.any(String),
          valueInt: expect.stringMatching(/^-?\d+$/),
          currency: 'USD',
          display: expect.any(String),
          value: expect.stringMatching(/^-?\d+(\.\d+)?$/),
        });
      }
    });

    it('R20 balance detail formatting', async () => {
      const res = await client.post(RestPath.Balances, { accountGroupUuid: venue.seed.subGroupUuid });
      const usd = (res.json as { data: { Account_Groups: { Accounts: Record<string, { Balance: unknown }> }[] } }).data
        .Account_Groups[0]?.Accounts['USD'];
      expect(usd?.Balance).toEqual({
        displayShort: '50000.00 USD',
        valueInt: '5000000',
        currency: 'USD',
        display: '50000.00 USD',
        value: '50000.00',
      });
    });

    it("R21: an accountGroupUuid that is not the caller's → 404 INVALID_ACCOUNT_GROUP", async () => {
      const res = await client.post(RestPath.Balances, { accountGroupUuid: venue.seed.user2DefaultGroup });
      expect(res.status).toBe(404);
      expect(res.json).toEqual({ error: 'INVALID_ACCOUNT_GROUP', message: expect.any(String) });
    });

    it('a filterZeroBalanceAccounts that is not a boolean is refused', async () => {
      expect((await client.post(RestPath.Balances, { filterZeroBalanceAccounts: 'yes' })).status).toBe(400);
    });
  });

  describe('§4.12 address list', () => {
    it('serves the ips.json document unsigned', async () => {
      const res = await fetch(venue.ipsUrl);
      expect(res.status).toBe(200);
      expect(await res.json()).toEqual({
        service: expect.any(String),
        version: expect.any(Number),
        ipv4_cidrs: ['127.0.0.1/32'],
        created_at: expect.any(String),
        last_updated: expect.any(String),
        change_notice: null,
      });
    });
  });

  it('an unparseable JSON body on a non-withdrawal endpoint is an authentication failure of that family', async () => {
    const res = await client.send(RestPath.Trades, { rawBody: bodyText({}).slice(0, -1) });
    expect(res.status).toBe(401);
  });
});
