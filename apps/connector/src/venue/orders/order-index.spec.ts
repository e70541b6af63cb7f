import { describe, expect, it } from '@jest/globals';
import { OrderIndex } from './order-index.js';

describe('OrderIndex', () => {
  it('matches a reply without clientRequestId by quote only while one order this process sent used the quote', () => {
    const index = new OrderIndex();
    index.quote('q-1', 'a');
    expect(index.correlate({ quoteId: 'q-1' })).toBe('a');
    index.quote('q-1', 'b'); // several orders may execute on one quote (§2.2 rule 4)
    expect(index.correlate({ quoteId: 'q-1' })).toBeUndefined();
    // a settled order stays counted on its quote: a late reply of it is never taken for b's
    index.forget('a');
    expect(index.correlate({ quoteId: 'q-1' })).toBeUndefined();
    expect(index.correlate({ clientRequestId: 'a', quoteId: 'q-1' })).toBe('a');
  });

  it('matches by a transaction an earlier reply bound, and forgets it with its order', () => {
    const index = new OrderIndex();
    index.quote('q-1', 'a');
    index.transaction('t-1', 'a');
    expect(index.correlate({ transactionId: 't-1' })).toBe('a');
    index.forget('a');
    expect(index.correlate({ transactionId: 't-1' })).toBeUndefined();
  });
});
