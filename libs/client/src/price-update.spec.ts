import { describe, expect, it } from '@jest/globals';
import type { PriceMessage } from '#contracts';
import { asPriceMessage, heldLastValue, msUntilExpiry, priceUpdate } from './price-update.js';

const live: PriceMessage = {
  v: 1,
  status: 'live',
  accountGroup: 'g',
  instrument: 'BTC.USD',
  tenor: 'T',
  currency: 'BTC',
  quantity: '1',
  quoteId: 'q1',
  venueTimestamp: 1_000,
  quoteExpiresAt: 601_000,
  bid: { price: '100', quantity: '1', quoteAmount: '100' },
  offer: { price: '101', quantity: '1', quoteAmount: '101' },
};

describe('price updates', () => {
  it('a live quote within its life is tradable; the expiry is watched', () => {
    const update = priceUpdate('s', live, 1_500, false);
    expect(update).toMatchObject({
      stale: false,
      stopped: false,
      expired: false,
      tradable: true,
      fromLastValue: false,
    });
    expect(msUntilExpiry(update)).toBe(599_500);
  });

  it('past quoteExpiresAt: expired, not tradable, nothing more to watch', () => {
    const update = priceUpdate('s', live, 601_000, true);
    expect(update).toMatchObject({ expired: true, tradable: false, fromLastValue: true });
    expect(msUntilExpiry(update)).toBeUndefined();
  });

  it('stale and stopped are never tradable', () => {
    expect(priceUpdate('s', { ...live, status: 'stale' }, 2_000, false)).toMatchObject({
      stale: true,
      tradable: false,
    });
    const stopped = priceUpdate(
      's',
      {
        v: 1,
        status: 'stopped',
        accountGroup: 'g',
        instrument: 'BTC.USD',
        tenor: 'T',
        currency: 'BTC',
        quantity: '1',
        code: 'RELEASED',
      },
      2_000,
      false,
    );
    expect(stopped).toMatchObject({ stopped: true, tradable: false, expired: false });
    expect(msUntilExpiry(stopped)).toBeUndefined();
  });

  it('reads only messages of this contract version', () => {
    expect(asPriceMessage(live)).toBe(live);
    expect(asPriceMessage({ ...live, v: 2 })).toBeUndefined();
    expect(asPriceMessage({ ...live, status: 'weird' })).toBeUndefined();
    expect(asPriceMessage('text')).toBeUndefined();
    expect(asPriceMessage(null)).toBeUndefined();
  });

  describe('a last value read at subscription', () => {
    // outside tester t2: a crashed connector's last `live` price, 17–29 s old, came first as tradable and executed
    it('stored longer ago than silentStaleMs with nothing newer: shown stale, never tradable', () => {
      const held = heldLastValue(live, 10_000, 22_000, 12_000);
      expect(held.status).toBe('stale');
      expect(priceUpdate('s', held, 22_000, true)).toMatchObject({ stale: true, tradable: false, fromLastValue: true });
    });

    it('stored within silentStaleMs: shown as it is', () => {
      expect(heldLastValue(live, 10_000, 21_999, 12_000)).toBe(live);
    });

    it('a stale or stopped one is left as it is', () => {
      const stale: PriceMessage = { ...live, status: 'stale' };
      expect(heldLastValue(stale, 0, 60_000, 12_000)).toBe(stale);
    });
  });
});
