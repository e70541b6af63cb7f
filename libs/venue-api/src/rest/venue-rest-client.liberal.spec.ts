/**
 * Issue 9: what the client did wrong against another reading of the spec's "not shown" shapes (§4.11,
 * §4.8, R6, R9, R10). Each case is the other reading, played by the scripted venue.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { freePort } from '#testing';
import { ClientFixture } from './test-support/client-fixture.js';
import { json, type SeenRequest } from './test-support/scripted-venue.js';
import { beneficiaryJson, senderJson, transactionJson } from './test-support/venue-bodies.js';

let fixture: ClientFixture;

beforeAll(async () => {
  fixture = await ClientFixture.start(await freePort());
});

afterAll(async () => {
  await fixture.stop();
});

const bodyOf = (request: SeenRequest | undefined): Record<string, unknown> =>
  JSON.parse(request?.bodyText ?? '{}') as Record<string, unknown>;

describe('credit limits and pairs read liberally (§4.11: shapes not shown)', () => {
  it('reads limits named differently (currency/utilised) without throwing, keeping every field', async () => {
    fixture.venue.reset(() =>
      json(
        200,
        '{"data":[{"accountGroup":{"uuid":"g-1","name":"Default"},"currency":"EUR","creditLimit":250000.10,"utilised":"100.5","remaining":249899.60,"tier":"B"}]}',
      ),
    );
    const limits = await fixture.client().getCreditLimits();
    expect(limits.data).toEqual([
      {
        accountGroupUuid: 'g-1',
        ccy: 'EUR',
        limit: '250000.10',
        used: '100.5',
        available: '249899.60',
        fields: {
          accountGroup: { uuid: 'g-1', name: 'Default' },
          currency: 'EUR',
          creditLimit: '250000.10',
          utilised: '100.5',
          remaining: '249899.60',
          tier: 'B',
        },
      },
    ]);
  });

  it('reads limits as a bare array or under another envelope key, and a record with none of the guessed names', async () => {
    fixture.venue.reset(() => json(200, '[{"something":"else","amount":1.50}]'));
    const limits = await fixture.client().getCreditLimits();
    expect(limits.data).toEqual([{ fields: { something: 'else', amount: '1.50' } }]);
    fixture.venue.reset(() => json(200, '{"limits":[{"ccy":"USD","limit":"5"}],"resultCode":"OK"}'));
    await expect(fixture.client().getCreditLimits()).resolves.toMatchObject({
      data: [{ ccy: 'USD', limit: '5' }],
      resultCode: 'OK',
    });
  });

  it('reads pairs named differently (baseCurrency/quoteCurrency, symbol), building the instrument', async () => {
    fixture.venue.reset(() =>
      json(
        200,
        '{"data":[{"symbol":"BTC/USD","baseCurrency":"BTC","quoteCurrency":"USD","minSize":0.0001,"enabled":true},{"baseCcy":"ETH","quoteCcy":"EUR"}]}',
      ),
    );
    const pairs = await fixture.client().listPairs();
    expect(pairs[0]).toMatchObject({ instrument: 'BTC.USD', base: 'BTC', quote: 'USD', minQuantity: '0.0001' });
    expect(pairs[0]?.fields).toMatchObject({ symbol: 'BTC/USD', enabled: true, minSize: '0.0001' });
    expect(pairs[1]).toMatchObject({ instrument: 'ETH.EUR', base: 'ETH', quote: 'EUR' });
  });
});

describe('transfer list (§4.11, R10): every field kept, filters and paging sent, read to its end', () => {
  it('keeps account groups, direction, reference and unknown fields of each record', async () => {
    fixture.venue.reset(() =>
      json(
        200,
        '{"data":[{"uuid":"tf-1","ccy":"USD","amount":5.00,"state":"PROCESSED","createdAt":"2026-01-05T10:00:00Z","fromAccountGroupUuid":"a","toAccountGroupUuid":"b","direction":"OUT","reference":"REF-9"}],"total":1}',
      ),
    );
    const page = await fixture.client().listTransfers({ accountGroupUuid: 'a', ccy: 'USD', from: '2026-01-01' });
    expect(page.data[0]).toMatchObject({
      uuid: 'tf-1',
      amount: '5.00',
      fromAccountGroupUuid: 'a',
      toAccountGroupUuid: 'b',
      fields: { direction: 'OUT', reference: 'REF-9', amount: '5.00' },
    });
    expect(bodyOf(fixture.venue.requests[0])).toMatchObject({ accountGroupUuid: 'a', ccy: 'USD', from: '2026-01-01' });
  });

  it('iterates every transfer page until a short page', async () => {
    fixture.venue.reset((request) => {
      const { offset } = JSON.parse(request.bodyText) as { offset: number };
      const count = offset === 0 ? 2 : 1;
      const rows = Array.from({ length: count }, (_, i) => `{"uuid":"tf-${offset + i}","amount":"1"}`);
      return json(200, `{"data":[${rows.join(',')}],"total":3}`);
    });
    const seen: string[] = [];
    for await (const transfer of fixture.client().iterateTransfers({}, 2)) seen.push(transfer.uuid);
    expect(seen).toEqual(['tf-0', 'tf-1', 'tf-2']);
    expect(fixture.venue.requests.map(bodyOf)).toEqual([
      expect.objectContaining({ max: 2, offset: 0 }),
      expect.objectContaining({ max: 2, offset: 2 }),
    ]);
  });
});

describe('beneficiaries and senders read to their end', () => {
  it('pages beneficiaries with limit 50 until total is reached, even when the venue pages shorter', async () => {
    // The venue answers at most 10 per page whatever the limit (its own default), total 23.
    fixture.venue.reset((request) => {
      const { offset } = JSON.parse(request.bodyText) as { offset: number };
      const count = Math.min(10, 23 - offset);
      const rows = Array.from({ length: count }, (_, i) => beneficiaryJson(`bn-${offset + i}`));
      return json(200, `{"data":[${rows.join(',')}],"total":23}`);
    });
    const all = await fixture.client().listAllBeneficiaries();
    expect(all.unreadable).toBe(0);
    expect(all.records.map((b) => b.uuid)).toEqual(Array.from({ length: 23 }, (_, i) => `bn-${i}`));
    expect(fixture.venue.requests.map(bodyOf).map((b) => [b['limit'], b['offset']])).toEqual([
      [50, 0],
      [50, 10],
      [50, 20],
    ]);
  });

  it('pages senders to their end (total sent as a string)', async () => {
    fixture.venue.reset((request) => {
      const { offset } = JSON.parse(request.bodyText) as { offset: number };
      const count = Math.min(2, 3 - offset);
      const rows = Array.from({ length: count }, (_, i) => senderJson(`sn-${offset + i}`));
      return json(200, `{"data":[${rows.join(',')}],"total":"3"}`);
    });
    const all = await fixture.client().listAllSenders({}, 2);
    expect(all.records.map((s) => s.uuid)).toEqual(['sn-0', 'sn-1', 'sn-2']);
  });

  it('stops on an empty page even when total promises more (no endless walk)', async () => {
    fixture.venue.reset(() => json(200, '{"data":[],"total":5}'));
    await expect(fixture.client().listAllBeneficiaries()).resolves.toEqual({ records: [], unreadable: 0 });
    expect(fixture.venue.requests).toHaveLength(1);
  });
});

describe('crypto withdrawal precision (R6: crypto scale not shown)', () => {
  it('sends an 18-decimal amount by default; a caller-given precision still checks', async () => {
    fixture.venue.reset(() => json(200, '{"success":true,"uuid":"wd-1"}'));
    const request = { accountGroupUuid: 'g', ccy: 'ETH', walletUuid: 'w', amount: '0.123456789012345678' };
    await expect(fixture.client().submitCryptoWithdrawal(request)).resolves.toEqual({ uuid: 'wd-1' });
    expect(fixture.venue.requests[0]?.bodyText).toContain('"amount":0.123456789012345678');
    await expect(fixture.client().submitCryptoWithdrawal({ ...request, precision: 8 })).rejects.toMatchObject({
      name: 'InvalidVenueRequestError',
    });
  });
});

describe('transactions narrowed by account group, type and state (R9)', () => {
  it('sends the filters and pages to the end', async () => {
    fixture.venue.reset(() => json(200, `{"data":[${transactionJson}],"total":1}`));
    const legs = await fixture.client().listAllTransactions({
      accountGroupUuid: 'g-1',
      transactionType: 'DEPOSIT',
      transactionState: 'PENDING',
    });
    expect(legs).toHaveLength(1);
    expect(bodyOf(fixture.venue.requests[0])).toMatchObject({
      accountGroupUuid: 'g-1',
      transactionType: 'DEPOSIT',
      transactionState: 'PENDING',
      max: 200,
      offset: 0,
    });
  });
});
