/** §4.11 operations named without shapes, per spec-gaps R9–R12, and key rights (§5.6) on balances. */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { RestPath } from '#venue-api';
import { startSandboxVenue, type RunningSandbox } from '../../../apps/sandbox-venue/src/bootstrap.js';
import { SpecClient } from '../spec-client.js';

describe('transfers, credit limits, pairs, key rights', () => {
  let venue: RunningSandbox;
  let client: SpecClient;

  const usdBalance = async (group: string): Promise<string | undefined> => {
    const res = await client.post(RestPath.Balances, { accountGroupUuid: group });
    return (res.json as { data: { Account_Groups: { Accounts: Record<string, { Balance: { value: string } }> }[] } })
      .data.Account_Groups[0]?.Accounts['USD']?.Balance.value;
  };

  beforeAll(async () => {
    venue = await startSandboxVenue({ port: 0, restRateLimitPerSecond: 10_000 });
    client = new SpecClient(venue.restBaseUrl, venue.credentials.primary);
  });
  afterAll(() => venue.close());

  it("§5.6: balances report the key's rights", async () => {
    const primary = (await client.post(RestPath.Balances)).json as { data: { Rights: string[] } };
    expect(primary.data.Rights).toEqual(['trade', 'withdraw', 'get_info']);
    const noMove = (await client.withCredentials(venue.credentials.noMoveFunds).post(RestPath.Balances)).json as {
      data: { Rights: string[] };
    };
    expect(noMove.data.Rights).toEqual(['trade', 'get_info']);
  });

  it('R10: a transfer between own groups moves the balance and is listed', async () => {
    const res = await client.post(RestPath.Transfer, {
      accountGroupUuid: venue.seed.defaultGroupUuid,
      toAccountGroupUuid: venue.seed.subGroupUuid,
      ccy: 'USD',
      amount: '1000.50',
    });
    expect(res.json).toEqual({ success: true, uuid: expect.any(String) });
    expect(await usdBalance(venue.seed.subGroupUuid)).toBe('51000.50');
    expect(await usdBalance(venue.seed.defaultGroupUuid)).toBe('998999.50');
    const list = await client.post(RestPath.TransferList);
    expect(list.json).toMatchObject({
      total: 1,
      data: [{ amount: '1000.5', ccy: 'USD', state: 'PROCESSED', toAccountGroupUuid: venue.seed.subGroupUuid }],
    });
  });

  it('R10/R22: transfer refusals', async () => {
    const base = {
      accountGroupUuid: venue.seed.defaultGroupUuid,
      toAccountGroupUuid: venue.seed.subGroupUuid,
      ccy: 'USD',
    };
    const noMove = await client
      .withCredentials(venue.credentials.noMoveFunds)
      .post(RestPath.Transfer, { ...base, amount: '1' });
    expect(noMove.status).toBe(403);
    expect((await client.post(RestPath.Transfer, { ...base, amount: '99999999' })).status).toBe(422);
    expect((await client.post(RestPath.Transfer, { ...base, amount: '1.001' })).status).toBe(400);
    const foreign = await client.post(RestPath.Transfer, {
      ...base,
      toAccountGroupUuid: venue.seed.user2DefaultGroup,
      amount: '1',
    });
    expect(foreign.status).toBe(404);
    const noRole = await client.post(RestPath.Transfer, {
      ...base,
      accountGroupUuid: venue.seed.noRoleGroup,
      amount: '1',
    });
    expect(noRole.status).toBe(403);
  });

  it('R11: credit limits per group as decimal strings', async () => {
    const res = await client.post(RestPath.UserLimit);
    expect(res.json).toMatchObject({
      resultCode: 'OK',
      data: expect.arrayContaining([
        {
          accountGroupUuid: venue.seed.defaultGroupUuid,
          ccy: 'USD',
          limit: '1000000.00',
          used: '0.00',
          available: '1000000.00',
        },
      ]),
    });
  });

  it('R12: pairs with sizes and quote precision; a pair disabled for the account is not offered', async () => {
    const mine = (await client.post(RestPath.Pairs)).json as { data: { instrument: string; quotePrecision: number }[] };
    expect(mine.data.map((p) => p.instrument)).toEqual(expect.arrayContaining(['BTC.USD', 'USD.JPY', 'SHIB.USD']));
    expect(mine.data.find((p) => p.instrument === 'USD.JPY')?.quotePrecision).toBe(0);
    const theirs = (await client.withCredentials(venue.credentials.secondUser).post(RestPath.Pairs)).json as {
      data: { instrument: string }[];
    };
    expect(theirs.data.map((p) => p.instrument)).not.toContain('SHIB.USD');
  });

  it('R9: transaction list validates its filters', async () => {
    expect((await client.post(RestPath.TransactionList, { from: 'yesterday' })).status).toBe(400);
    expect((await client.post(RestPath.TransactionList, { transactionClass: 'FOO' })).status).toBe(400);
    expect((await client.post(RestPath.TransactionList, { max: 201 })).status).toBe(400);
    expect((await client.post(RestPath.TransactionList)).json).toEqual({ data: [], total: 0 });
  });
});
