import { describe, expect, it } from '@jest/globals';
import type { OrderOutcome } from '#contracts';
import { SettledOrders } from './settled-orders.js';

const outcome = (clientRequestId: string, status: OrderOutcome['status']): OrderOutcome => ({
  v: 1,
  clientRequestId,
  status,
  code: '',
  message: '',
  source: 'order-state',
});

describe('SettledOrders', () => {
  it('tells an outcome contradicting the final state of an order this instance settled; nothing else', () => {
    const settled = new SettledOrders(2);
    settled.settle('c1', 'SUCCESS');
    expect(settled.contradiction(outcome('c1', 'FAILED'))).toEqual({
      kept: 'SUCCESS',
      status: 'FAILED',
      source: 'order-state',
    });
    expect(settled.contradiction(outcome('c1', 'SUCCESS'))).toBeUndefined();
    expect(settled.contradiction(outcome('c1', 'UNKNOWN'))).toBeUndefined();
    expect(settled.contradiction(outcome('other', 'FAILED'))).toBeUndefined();
  });

  it('remembers a bounded number of orders (the oldest settled are forgotten)', () => {
    const settled = new SettledOrders(2);
    settled.settle('c1', 'FAILED');
    settled.settle('c2', 'FAILED');
    settled.settle('c3', 'FAILED');
    expect(settled.contradiction(outcome('c1', 'SUCCESS'))).toBeUndefined();
    expect(settled.contradiction(outcome('c3', 'SUCCESS'))).toMatchObject({ kept: 'FAILED' });
  });
});
