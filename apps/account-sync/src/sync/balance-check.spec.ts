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
  processed: number | undefined = state === 'PENDING' ? undefined : received,
): TransactionRecord {
  return {
    processed,
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

  it('a withdrawal approved but not processed (R29: its PENDING leg shows the debit first): held, no drift', () => {
    // Balance 250000.00; the PENDING withdrawal leg says 249990 (the debit to come).
    const legs = [leg('dep', 1, '250000'), leg('wd', 5, '249990', 'PENDING')];
    expect(findDrifts(balance('250000.00'), legs, 10, 11)).toEqual([]);
    // Processed before the next read: the balance now shows the debit, and that leg is the evidence.
    const processed = [leg('dep', 1, '250000'), leg('wd', 5, '249990', 'PROCESSED', 12)];
    expect(findDrifts(balance('249990.00'), processed, 20, 21)).toEqual([]);
    // Processed after the read: it was still PENDING when the balance was read — held.
    expect(findDrifts(balance('250000.00'), processed, 10, 21)).toEqual([]);
  });

  it('a trade cancelled after a newer leg of the same account: ordered by when legs ended, no drift', () => {
    // Trade booked at 2 (balance 110), a deposit at 3 processed at 4 (120), the trade cancelled at 6 (→ 100).
    const legs = [leg('t', 2, '110', 'CANCELLED', 6), leg('d', 3, '120', 'PROCESSED', 4)];
    expect(findDrifts(balance('110'), legs, 10, 11)).toEqual([]);
    // A reversal likewise.
    const reversed = [leg('t', 2, '110', 'REVERSED', 6), leg('d', 3, '120', 'PROCESSED', 4)];
    expect(findDrifts(balance('110'), reversed, 10, 11)).toEqual([]);
  });

  it('inconclusive while the newest final leg overlapped another leg of the account, or a leg has no times', () => {
    // A trade booked at 3 while a withdrawal (booked 2) was pending; the withdrawal processed at 4, trade at 5.
    const overlapping = [leg('wd', 2, '90', 'PROCESSED', 4), leg('t', 3, '110', 'PROCESSED', 5)];
    expect(findDrifts(balance('100'), overlapping, 10, 11)).toEqual([]);
    const untimed = { ...leg('x', 1, '1'), received: undefined, timestampMillis: undefined };
    expect(findDrifts(balance('100'), [leg('a', 2, '90'), untimed], 10, 11)).toEqual([]);
  });

  it('still reports a true drift: the last leg ended, alone, and the balance read after it differs', () => {
    const legs = [leg('t', 2, '110', 'CANCELLED', 3), leg('wd', 5, '90', 'PROCESSED', 7)];
    expect(findDrifts(balance('93.00'), legs, 10, 11)).toEqual([
      {
        v: 1,
        accountGroupUuid: G,
        ccy: 'USD',
        balance: '93.00',
        expected: '90',
        transactionUuid: 'wd',
        detectedAt: 11,
      },
    ]);
  });
});
