/**
 * Trade and transaction lists with rows the client cannot read or reads only in part (HTTP, scripted venue): the
 * rest of the page is read, the walk pages by the rows the venue sent (§4.5), nothing after a bad row is lost.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { freePort } from '#testing';
import { ClientFixture } from './test-support/client-fixture.js';
import { json } from './test-support/scripted-venue.js';
import { beneficiaryJson, senderJson, tradeJson, transactionJson } from './test-support/venue-bodies.js';

let fixture: ClientFixture;

beforeAll(async () => {
  fixture = await ClientFixture.start(await freePort());
});

afterAll(async () => {
  await fixture.stop();
});

const offsetsAsked = () =>
  fixture.venue.requests.map((request) => (JSON.parse(request.bodyText) as { offset: number }).offset);

/** The venue answers `{data, total}` pages of `rows` (raw JSON texts) by the `max` and `offset` asked. */
function servePages(rows: string[]): void {
  fixture.venue.reset((request) => {
    const body = JSON.parse(request.bodyText) as { max: number; offset: number };
    return json(200, `{"data":[${rows.slice(body.offset, body.offset + body.max).join(',')}],"total":${rows.length}}`);
  });
}

/** A client whose left-out rows are collected as `operation problem`. */
function clientTelling(skipped: string[]) {
  return fixture.client({
    events: { onRowSkipped: (operation, problem) => skipped.push(`${operation} ${problem}`) },
  });
}

describe('trade list rows', () => {
  /** A row with every unusual field value but a usable uuid (300 characters: the spec says only "string"). */
  const longUuid = `t-${'9'.repeat(298)}`;
  const oddTrade = JSON.stringify({
    uuid: longUuid,
    clientRef: 'cr-odd',
    tradeSide: 7,
    state: 'ON_HOLD',
    tradeClass: 'BLOCK',
    settlementAmount: { amount: 'lots', currency: 'USD' },
    tradedAmount: { amount: 0.5, currency: 'BTC' },
    accountGroup: 'Default',
    createdAt: 1_700_000_000_000,
  });
  const noUuid = `{"tradeRef":"TR-x","tradeSide":"BUY","state":"SETTLED","secret":"${'s'.repeat(5_000)}"}`;
  /** 8 rows, 3 a page: the unreadable one is on the first (full) page, the odd one on the second. */
  const rows = [
    tradeJson('t-0'),
    noUuid,
    tradeJson('t-2'),
    oddTrade,
    tradeJson('t-4'),
    tradeJson('t-5'),
    tradeJson('t-6'),
    tradeJson('t-7'),
  ];

  it('leaves out a row without uuid (told, bounded) and pages on by the rows sent, so no later trade is lost', async () => {
    servePages(rows);
    const skipped: string[] = [];
    const trades = await clientTelling(skipped).listAllTrades({}, 3);
    expect(trades.map((trade) => trade.uuid)).toEqual(['t-0', 't-2', longUuid, 't-4', 't-5', 't-6', 't-7']);
    expect(offsetsAsked()).toEqual([0, 3, 6]);
    expect(skipped).toEqual(['listTrades body.data[1].uuid: expected a string, got undefined']);
  });

  it('keeps a trade whose optional fields are unusual: values outside §2.4 lists as sent, wrong kinds not known', async () => {
    fixture.venue.reset(() => json(200, `{"data":[${noUuid},${oddTrade}],"total":2}`));
    const page = await clientTelling([]).listTrades({ max: 50 });
    expect(page).toEqual({
      total: 2,
      rows: 2,
      data: [
        {
          uuid: longUuid,
          clientRef: 'cr-odd',
          state: 'ON_HOLD',
          tradeClass: 'BLOCK',
          tradedAmount: { amount: '0.5', currency: 'BTC' },
        },
      ],
    });
  });

  it('refuses a uuid over 1024 bytes (it becomes a NATS subject), reading the rest of the page', async () => {
    const tooLong = tradeJson(`t-${'8'.repeat(1_100)}`);
    fixture.venue.reset(() => json(200, `{"data":[${tooLong},${tradeJson('t-1')}],"total":2}`));
    const skipped: string[] = [];
    const page = await clientTelling(skipped).listTrades({ max: 50 });
    expect(page.data.map((trade) => trade.uuid)).toEqual(['t-1']);
    expect(page.rows).toBe(2);
    expect(skipped).toEqual(['listTrades body.data[0].uuid: expected at most 1024 bytes, got 1102']);
  });
});

describe('transaction list rows', () => {
  const leg = (uuid: string, change: Record<string, string> = {}) =>
    Object.entries(change).reduce(
      (row, [field, value]) => row.replace(new RegExp(`"${field}":("[^"]*"|[^,}]*)`), `"${field}":${value}`),
      transactionJson.replace('"tx-1"', JSON.stringify(uuid)),
    );
  const longUuid = `tx-${'7'.repeat(997)}`;

  it('keeps a leg with unusual optional fields and a new class or type; leaves out one whose state the ledger cannot rank', async () => {
    const odd = leg(longUuid, {
      transactionClass: '"FEE"',
      transactionType: '"FEE_DEBIT"',
      displayTitle: '5',
      received: '"soon"',
      balanceAfter: '"n/a"',
      beneficiaryUuid: '{"uuid":"b-1"}',
    });
    const rows = [leg('tx-a'), leg('tx-b', { transactionState: '"ON_HOLD"' }), odd, leg('tx-d'), leg('tx-e')];
    servePages(rows);
    const skipped: string[] = [];
    const legs = await clientTelling(skipped).listAllTransactions({}, 2);
    expect(legs.map((l) => l.uuid)).toEqual(['tx-a', longUuid, 'tx-d', 'tx-e']);
    expect(offsetsAsked()).toEqual([0, 2, 4]);
    expect(skipped).toEqual(['listTransactions body.data[1].transactionState: unexpected value "ON_HOLD"']);
    const kept = legs[1];
    expect(kept).toMatchObject({
      transactionClass: 'FEE',
      transactionType: 'FEE_DEBIT',
      amount: '12345678901234567890.123456789',
      displayTitle: null,
      beneficiaryUuid: null,
      balanceBefore: '0.00000001',
    });
    expect(kept).not.toHaveProperty('received');
    expect(kept).not.toHaveProperty('balanceAfter');
  });
});

/** The venue answers participant pages of `rows` by the `limit` and `offset` asked, at most `served` a page. */
function serveParticipants(rows: string[], served: number, total: number | string = rows.length): void {
  fixture.venue.reset((request) => {
    const body = JSON.parse(request.bodyText) as { offset: number };
    return json(
      200,
      `{"data":[${rows.slice(body.offset, body.offset + served).join(',')}],"total":${JSON.stringify(total)}}`,
    );
  });
}

describe('participant list rows', () => {
  const noUuid = '{"type":"ENTITY","kind":"BENEFICIARY","companyName":"No Id Ltd"}';
  const newKind = beneficiaryJson('bn-odd').replace('"BENEFICIARY"', '"PAYEE"');

  it('leaves out a beneficiary it cannot read (told), reads the rest and walks on by the rows sent', async () => {
    serveParticipants([beneficiaryJson('bn-0'), noUuid, beneficiaryJson('bn-2'), newKind, beneficiaryJson('bn-4')], 2);
    const skipped: string[] = [];
    const listing = await clientTelling(skipped).listAllBeneficiaries({}, 50);
    expect(listing.records.map((b) => b.uuid)).toEqual(['bn-0', 'bn-2', 'bn-4']);
    expect(listing.unreadable).toBe(2);
    expect(offsetsAsked()).toEqual([0, 2, 4]);
    expect(skipped).toEqual([
      'listBeneficiaries body.data[1].uuid: expected a string, got undefined',
      'listBeneficiaries body.data[1].kind: unexpected value "PAYEE"',
    ]);
  });

  it('leaves out a sender it cannot read; a whole page read says nothing was unreadable', async () => {
    serveParticipants([senderJson('sn-0'), '7', senderJson('sn-2')], 3, '3');
    const skipped: string[] = [];
    const listing = await clientTelling(skipped).listAllSenders({}, 3);
    expect(listing).toMatchObject({ unreadable: 1 });
    expect(listing.records.map((s) => s.uuid)).toEqual(['sn-0', 'sn-2']);
    expect(skipped).toEqual(['listSenders body.data[1]: expected an object, got number']);
    serveParticipants([senderJson('sn-0')], 3);
    expect(await clientTelling([]).listAllSenders({}, 3)).toMatchObject({ unreadable: 0 });
  });
});

describe('transfer list rows', () => {
  const transfer = (uuid: string) => `{"uuid":"${uuid}","ccy":"USD","amount":"10.00","state":"DONE"}`;

  it('leaves out a transfer without an identifier (told), reads the rest and pages on by the rows sent', async () => {
    servePages([transfer('tf-0'), '{"ccy":"USD","amount":"1"}', transfer('tf-2'), transfer('tf-3')]);
    const skipped: string[] = [];
    const seen: string[] = [];
    for await (const t of clientTelling(skipped).iterateTransfers({}, 2)) seen.push(t.uuid);
    expect(seen).toEqual(['tf-0', 'tf-2', 'tf-3']);
    expect(offsetsAsked()).toEqual([0, 2, 4]);
    expect(skipped).toEqual(['listTransfers body.data[1].uuid: no transfer identifier']);
  });
});
