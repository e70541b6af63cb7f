import { describe, expect, it } from '@jest/globals';
import type { PriceMessage } from '#contracts';
import { priceArrives, recordSettles, SETTLED, UNRECORDED, type FirstPriceHold } from './first-price-hold.js';

const key = { accountGroup: 'g-1', instrument: 'BTC.USD', tenor: 'T', currency: 'BTC', quantity: '0.5' };
const live = (quoteId: string): PriceMessage => ({
  v: 1,
  status: 'live',
  ...key,
  quoteId,
  venueTimestamp: 1_700_000_000_000,
  quoteExpiresAt: 1_700_000_600_000,
  bid: { price: '64000', quantity: '0.5', quoteAmount: '32000' },
  offer: { price: '64010', quantity: '0.5', quoteAmount: '32005' },
  settleDate: '20261124',
});
const stopped: PriceMessage = { v: 1, status: 'stopped', ...key, code: 'HALTED', message: 'halted' };

describe("a new stream's first-price hold", () => {
  it('holds the first live price until its subject is recorded, asking for the record once', () => {
    const first = priceArrives(UNRECORDED, live('q-1'));
    expect(first).toMatchObject({ send: [], record: true, degraded: false });
    const second = priceArrives(first.next, live('q-2'));
    expect(second).toMatchObject({ send: [], record: false }); // waits behind the first, in order
    const settled = recordSettles(second.next, 'recorded');
    expect(settled).toEqual({ next: SETTLED, send: [live('q-1'), live('q-2')], record: false, degraded: false });
  });

  it('lets every later price straight out: no record, no wait', () => {
    for (const price of [live('q-3'), stopped]) {
      expect(priceArrives(SETTLED, price)).toEqual({ next: SETTLED, send: [price], record: false, degraded: false });
    }
  });

  it('a record that failed or timed out lets the held prices out in order (not lost), told as degraded', () => {
    for (const result of ['failed', 'timed_out'] as const) {
      const held: FirstPriceHold = { stage: 'recording', held: [live('q-1'), live('q-2')] };
      expect(recordSettles(held, result)).toEqual({
        next: SETTLED,
        send: [live('q-1'), live('q-2')],
        record: false,
        degraded: true,
      });
    }
  });

  it('a stream whose first message is stopped is never recorded', () => {
    expect(priceArrives(UNRECORDED, stopped)).toEqual({
      next: UNRECORDED,
      send: [stopped],
      record: false,
      degraded: false,
    });
  });

  it('a stop while the record is pending ends the wait: the held prices, then the stopped; the late record changes nothing', () => {
    const recording = priceArrives(UNRECORDED, live('q-1')).next;
    const stop = priceArrives(recording, stopped);
    expect(stop).toEqual({ next: SETTLED, send: [live('q-1'), stopped], record: false, degraded: false });
    expect(recordSettles(stop.next, 'failed')).toEqual({ next: SETTLED, send: [], record: false, degraded: false });
  });

  it('a stale first price is recorded like a live one (a reader must not take it for the stream of a live life)', () => {
    const stale: PriceMessage = { ...live('q-1'), status: 'stale' };
    expect(priceArrives(UNRECORDED, stale)).toMatchObject({ send: [], record: true });
  });
});
