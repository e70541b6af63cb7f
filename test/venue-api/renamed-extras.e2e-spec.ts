/**
 * Issue 9: the REST client against the sandbox playing the other reading of §4.11's unshown shapes
 * (dialect axis `accountExtras: renamed`): credit limits, pairs and transfers named differently are read,
 * none throws, and every field of a record is kept.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { TonceSource, VenueRestClient } from '#venue-api';
import { startSandboxVenue, type RunningSandbox } from '../../apps/sandbox-venue/src/bootstrap.js';
import { SeedIds } from '../../apps/sandbox-venue/src/domain/seed.js';

let venue: RunningSandbox;
let client: VenueRestClient;

beforeAll(async () => {
  venue = await startSandboxVenue({ port: 0, dialect: { accountExtras: 'renamed' } });
  client = new VenueRestClient({
    baseUrl: venue.restBaseUrl,
    apiKey: venue.credentials.primary.apiKey,
    apiSecret: venue.credentials.primary.apiSecret,
    antiReplay: new TonceSource(),
  });
});

afterAll(async () => {
  await venue?.close();
});

describe('§4.11 under other names (sandbox dialect accountExtras=renamed)', () => {
  it('credit limits: accountGroup{uuid}, currency, creditLimit, utilised, remaining', async () => {
    const limits = await client.getCreditLimits();
    const mine = limits.data.find((limit) => limit.accountGroupUuid === SeedIds.defaultGroup);
    expect(mine).toMatchObject({ ccy: 'USD', limit: '1000000.00', used: '0.00', available: '1000000.00' });
    expect(mine?.fields).toMatchObject({ accountGroup: { uuid: SeedIds.defaultGroup }, utilised: '0.00' });
  });

  it('pairs: symbol BASE/QUOTE, baseCurrency, quoteCurrency, minSize', async () => {
    const pairs = await client.listPairs();
    const btc = pairs.find((pair) => pair.instrument === 'BTC.USD');
    expect(btc).toMatchObject({ base: 'BTC', quote: 'USD' });
    expect(btc?.minQuantity).toBeDefined();
    expect(btc?.fields).toMatchObject({ symbol: 'BTC/USD' });
  });

  it('transfers: direction and reference kept, read to the end', async () => {
    await client.transfer({
      accountGroupUuid: SeedIds.defaultGroup,
      toAccountGroupUuid: SeedIds.subGroup,
      ccy: 'USD',
      amount: '10.00',
    });
    const transfers = [];
    for await (const transfer of client.iterateTransfers()) transfers.push(transfer);
    expect(transfers).toHaveLength(1);
    expect(transfers[0]).toMatchObject({
      fromAccountGroupUuid: SeedIds.defaultGroup,
      toAccountGroupUuid: SeedIds.subGroup,
      amount: '10',
      fields: { direction: 'INTERNAL' },
    });
    expect(transfers[0]?.fields?.['reference']).toMatch(/^TRF-/);
  });
});
