/**
 * The REST client's trade and transaction lists against the sandbox writing some rows oddly (operator fault
 * `/admin/faults/odd-rows`): a row without uuid is left out and told, one with unusual fields is kept, and the
 * walk pages by the rows the venue sent — every other trade and leg is read (§4.5 "fewer than max": a left-out
 * row must not end the walk early).
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { TonceSource, VenueRestClient } from '#venue-api';
import { startSandboxVenue, type RunningSandbox } from '../../apps/sandbox-venue/src/bootstrap.js';
import { admin, deskTrade } from './sandbox-admin.js';

describe('VenueRestClient lists with odd rows from the sandbox', () => {
  let venue: RunningSandbox;
  const skipped: string[] = [];
  let api: VenueRestClient;

  beforeAll(async () => {
    venue = await startSandboxVenue({ port: 0, restRateLimitPerSecond: 10_000 });
    api = new VenueRestClient({
      baseUrl: venue.restBaseUrl,
      apiKey: venue.credentials.primary.apiKey,
      apiSecret: venue.credentials.primary.apiSecret,
      antiReplay: new TonceSource(),
      events: { onRowSkipped: (operation, problem) => skipped.push(`${operation} ${problem}`) },
    });
    await admin(venue, '/trades/otc-bulk', { ...deskTrade(venue, 'odd'), count: 5 });
  });
  afterAll(async () => {
    await venue.close();
  });

  it('reads every trade but the one without uuid, paging 2 at a time past it, and keeps the unusual one', async () => {
    const booked = (await api.listAllTrades({ tradeClass: 'OTC' }, 2)).map((trade) => trade.uuid);
    expect(booked).toHaveLength(5);
    // pages of 2: booked[0], booked[1] | booked[2], booked[3] | booked[4]
    await admin(venue, '/faults/odd-rows', { uuid: booked[1], shape: 'unreadable' });
    await admin(venue, '/faults/odd-rows', { uuid: booked[2], shape: 'unusual' });
    try {
      skipped.length = 0;
      const trades = await api.listAllTrades({ tradeClass: 'OTC' }, 2);
      expect(trades.map((trade) => trade.uuid)).toEqual(booked.filter((uuid) => uuid !== booked[1]));
      expect(skipped).toEqual(['listTrades body.data[1].uuid: expected a string, got undefined']);
      const unusual = trades[1];
      expect(unusual).toMatchObject({ uuid: booked[2], clientRef: 'odd', state: 'ON_HOLD', tradeClass: 'BLOCK' });
      expect(unusual).not.toHaveProperty('tradeSide');
      expect(unusual).not.toHaveProperty('createdAt');
      expect([unusual?.settlementAmount?.amount, unusual?.tradedAmount?.amount].sort()).toEqual(['0.00000001', '0.01']);
    } finally {
      await admin(venue, '/faults/odd-rows', undefined, 'DELETE');
    }
  });

  it('reads every leg but the one without uuid, paging 3 at a time, and keeps a leg of a new class', async () => {
    const legs = await api.listAllTransactions({}, 3);
    expect(legs.length).toBeGreaterThanOrEqual(10);
    const [unreadable, unusual] = [legs[1]?.uuid, legs[4]?.uuid];
    await admin(venue, '/faults/odd-rows', { uuid: unreadable, shape: 'unreadable' });
    await admin(venue, '/faults/odd-rows', { uuid: unusual, shape: 'unusual' });
    try {
      skipped.length = 0;
      const read = await api.listAllTransactions({}, 3);
      expect(read.map((leg) => leg.uuid)).toEqual(legs.map((leg) => leg.uuid).filter((uuid) => uuid !== unreadable));
      expect(skipped).toEqual(['listTransactions body.data[1].uuid: expected a string, got undefined']);
      const kept = read.find((leg) => leg.uuid === unusual);
      expect(kept).toMatchObject({ transactionClass: 'FEE', transactionType: 'FEE_DEBIT', displayTitle: null });
      expect(kept?.amount).toBe(legs[4]?.amount);
      expect(kept).not.toHaveProperty('received');
    } finally {
      await admin(venue, '/faults/odd-rows', undefined, 'DELETE');
    }
  });

  it('leaves out a leg whose ccy is no currency code, counted, and keeps every other leg (tester t2 F5)', async () => {
    const legs = await api.listAllTransactions({}, 3);
    const bad = legs[2]?.uuid;
    await admin(venue, '/faults/odd-rows', { uuid: bad, shape: 'bad-ccy' });
    try {
      skipped.length = 0;
      const read = await api.listAllTransactions({}, 3);
      expect(read.map((leg) => leg.uuid)).toEqual(legs.map((leg) => leg.uuid).filter((uuid) => uuid !== bad));
      expect(skipped).toEqual([
        'listTransactions body.data[2].ccy: expected a currency code: 1-16 characters without white space, control or format characters',
      ]);
    } finally {
      await admin(venue, '/faults/odd-rows', undefined, 'DELETE');
    }
  });
});
