import { describe, expect, it } from '@jest/globals';
import type { PriceMessage } from '#contracts';
import { integerText, isPlain, PriceJson } from './price-json.js';

const stream = { accountGroup: 'g-1', instrument: 'BTC.USD', tenor: 'T', currency: 'BTC', quantity: '0.50' };

const live = (extra: Partial<PriceMessage> = {}): PriceMessage => ({
  v: 1,
  status: 'live',
  ...stream,
  quoteId: 'q-1',
  venueTimestamp: 1_700_000_000_000,
  quoteExpiresAt: 1_700_000_600_000,
  bid: { price: '64000.12345678901234567890', quantity: '0.5', quoteAmount: '32000.06' },
  offer: { price: '6.401E+4', quantity: '0.5', quoteAmount: '32005.25' },
  settleDate: '20261124',
  ...extra,
});

describe('PriceJson', () => {
  const writer = new PriceJson(stream);

  it('writes a live price exactly as JSON.stringify does, decimals untouched', () => {
    const price = live();
    expect(writer.write(price)).toBe(JSON.stringify(price));
    const noSettle = live();
    delete noSettle.settleDate;
    expect(writer.write(noSettle)).toBe(JSON.stringify(noSettle));
  });

  it('escapes venue strings that need it, with the same value as JSON.stringify', () => {
    for (const quoteId of ['a"b', 'a\\b', 'line\nbreak', '\u0000', 'é€', '😀', '\ud800lone', 'tab\t']) {
      const price = live({ quoteId, settleDate: quoteId });
      const text = writer.write(price);
      expect(JSON.parse(text)).toEqual(JSON.parse(JSON.stringify(price)));
      expect(text).toBe(JSON.stringify(price));
    }
  });

  it('escapes the stream constants once, correctly', () => {
    const odd = { ...stream, accountGroup: 'g"1\\x' };
    const price = live({ accountGroup: odd.accountGroup });
    expect(new PriceJson(odd).write(price)).toBe(JSON.stringify(price));
  });

  it('leaves stale, stopped and incomplete prices to JSON.stringify', () => {
    const stale = live({ status: 'stale' });
    const stopped: PriceMessage = { v: 1, status: 'stopped', ...stream, code: 'HALTED', message: 'halted' };
    const noBid = live();
    delete noBid.bid;
    const withCode = live({ code: 'X' });
    for (const price of [stale, stopped, noBid, withCode]) expect(writer.write(price)).toBe(JSON.stringify(price));
  });

  it('never writes a non-integer timestamp as a bare number', () => {
    const price = live({ venueTimestamp: Number.NaN });
    expect(writer.write(price)).toBe(JSON.stringify(price));
  });
});

describe('integerText', () => {
  it('writes a safe integer as String() does', () => {
    const values = [0, 7, -5, 999_999_999, 1e9, 1e9 + 1, 1_000_000_999, 1_800_000_000_000, 1_800_000_600_000];
    values.push(1_799_999_999_999, 1_234_567_890_123, Number.MAX_SAFE_INTEGER, -1_800_000_000_000);
    for (let n = 1_700_000_000_000; n < 1_700_000_000_000 + 5_000_000_000; n += 99_999_989) values.push(n);
    for (const n of values) expect([n, integerText(n)]).toEqual([n, String(n)]);
  });
});

describe('isPlain', () => {
  it('accepts text JSON writes unescaped and nothing else', () => {
    for (const text of ['64000.5', '', 'é€', 'b123']) expect(isPlain(text)).toBe(true);
    for (const text of ['"', '\\', '\u001f', '\ud83d', '\udc00', '😀']) expect(isPlain(text)).toBe(false);
    expect(isPlain(undefined)).toBe(false);
  });
});
