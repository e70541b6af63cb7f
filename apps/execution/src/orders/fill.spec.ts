import { describe, expect, it } from '@jest/globals';
import type { OrderOutcome } from '#contracts';
import { fillFromOutcome, fillFromQuote } from './fill.js';
import type { OrderRecord } from './order-record.js';

const record: OrderRecord = {
  v: 1,
  orderId: 'o-1',
  clientRequestId: 'c-1',
  idempotencyKey: 'k-1',
  payloadHash: 'h',
  strategyId: 's',
  accountGroup: 'g',
  side: 'BUY',
  instrument: 'BTC.USD',
  quoteId: 'q-1',
  quote: { quoteExpiresAt: 0, price: '42010.5', quantity: '0.5', quoteAmount: '21005.25' },
  state: 'SENT',
  acceptedAt: 0,
  updatedAt: 0,
  owner: 'i',
  eventSeq: 2,
};

const success = (fields: Partial<OrderOutcome>): OrderOutcome => ({
  v: 1,
  clientRequestId: 'c-1',
  status: 'SUCCESS',
  code: '',
  message: 'Filled',
  source: 'reply',
  instrument: 'BTC.USD',
  price: '42010.5',
  ...fields,
});

describe('fillFromOutcome: the reply quantity is the base amount only when nothing says otherwise', () => {
  it('a quantity in the base currency, equal to the quoted size, is the fill', () => {
    expect(fillFromOutcome(record, success({ quantity: '0.50', quoteAmount: '21005.25', currency: 'BTC' }))).toEqual({
      price: '42010.5',
      baseCurrency: 'BTC',
      quoteCurrency: 'USD',
      baseAmount: '0.5',
      quoteAmount: '21005.25',
      source: 'outcome',
    });
    // no currency in the reply: the quoted size decides
    expect(fillFromOutcome(record, success({ quantity: '0.5' }))?.baseAmount).toBe('0.5');
  });

  it('a quantity in another currency (a quote-currency subscription echoed as submitted) is left to the trade list', () => {
    // USD 21005.25 on BTC.USD must never be booked as 21005.25 BTC
    expect(fillFromOutcome(record, success({ quantity: '21005.25', currency: 'USD' }))).toBeUndefined();
    expect(fillFromOutcome(record, success({ quantity: '0.5', currency: 'USD' }))).toBeUndefined();
  });

  it('a quantity other than the quoted size is left to the trade list', () => {
    expect(fillFromOutcome(record, success({ quantity: '21005.25' }))).toBeUndefined();
    // without a recorded size (an unseen quote) the reply's quantity is all there is
    const unseen = { ...record, quote: { quoteExpiresAt: 0 } };
    expect(fillFromOutcome(unseen, success({ quantity: '0.25', currency: 'BTC', quoteAmount: '10502.63' }))).toEqual(
      expect.objectContaining({ baseAmount: '0.25', quoteAmount: '10502.63' }),
    );
  });
});

describe('fillFromOutcome: a reply without the quote amount never books quantity × price (the venue rounds what it settles, W33)', () => {
  const quoted: OrderRecord = {
    ...record,
    quote: { quoteExpiresAt: 0, price: '64272.592', quantity: '0.01', quoteAmount: '642.73' },
  };

  it("takes the quote's amount when the reply's price is the quote's (642.73, not 642.72592)", () => {
    expect(fillFromOutcome(quoted, success({ price: '64272.5920', quantity: '0.01' }))).toEqual(
      expect.objectContaining({ price: '64272.592', baseAmount: '0.01', quoteAmount: '642.73', source: 'outcome' }),
    );
  });

  it('leaves it to the trade list when the price differs from the quote or the quote has no amount', () => {
    expect(fillFromOutcome(quoted, success({ price: '64272.6', quantity: '0.01' }))).toBeUndefined();
    const unseen = { ...record, quote: { quoteExpiresAt: 0 } };
    expect(fillFromOutcome(unseen, success({ price: '64272.592', quantity: '0.01' }))).toBeUndefined();
  });
});

describe('fillFromQuote', () => {
  it('writes the figures plain, like every other fill (a quote may spell them with an exponent)', () => {
    const shib: OrderRecord = {
      ...record,
      instrument: 'SHIB.USD',
      quote: { quoteExpiresAt: 0, price: '2.4359e-5', quantity: '1000', quoteAmount: '0.02' },
    };
    expect(fillFromQuote(shib)).toEqual({
      price: '0.000024359',
      baseCurrency: 'SHIB',
      quoteCurrency: 'USD',
      baseAmount: '1000',
      quoteAmount: '0.02',
      source: 'quote',
    });
  });
});
