import { describe, expect, it } from '@jest/globals';
import { stateKey, type BalanceState } from '#contracts';
import type { TransactionRecord } from '#venue-api';
import { findDrifts } from './balance-check.js';

const G = 'g-1';
const balance = (value: string): Map<string, BalanceState> =>
  new Map([
    [
      stateKey(G, 'USD'),
      { accountGroupUuid: G, ccy: 'USD', balance: value, available: value, brokerageAvailable: value },
    ],
  ]);

function leg(
  uuid: string,
  received: number,
  balanceAfter: string,
  state: TransactionRecord['transactionState'] = 'PROCESSED',
): TransactionRecord {
  return {
    uuid,
    transactionClass: 'CASH',
    amount: '1',
    ccy: 'USD',
    transactionState: state,
    transactionType: 'DEPOSIT',
    received,
    balanceAfter,
    displayTitle: null,
    displayDescription: null,
    paymentTransferType: null,
    beneficiaryUuid: null,
    accountGroupUuid: G,
  };
}

describe('findDrifts (AS8)', () => {
  it('no drift when the balance equals the newest leg’s balanceAfter (decimal equality, not text)', () => {
    expect(findDrifts(balance('100.50'), [leg('a', 1, '90'), leg('b', 2, '100.5')], 10, 11)).toEqual([]);
  });

  it('a drift when they differ, naming the leg', () => {
    expect(findDrifts(balance('99.00'), [leg('a', 1, '90'), leg('b', 2, '100.50')], 10, 11)).toEqual([
      {
        v: 1,
        accountGroupUuid: G,
        ccy: 'USD',
        balance: '99.00',
        expected: '100.50',
        transactionUuid: 'b',
        detectedAt: 11,
      },
    ]);
  });

  it('ignores legs booked after the balances were read, and is inconclusive after a reversal', () => {
    expect(findDrifts(balance('90'), [leg('a', 1, '90'), leg('b', 20, '100')], 10, 21)).toEqual([]);
    expect(findDrifts(balance('90'), [leg('a', 1, '100', 'REVERSED')], 10, 11)).toEqual([]);
  });
});
