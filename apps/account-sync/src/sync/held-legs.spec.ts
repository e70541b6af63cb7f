/**
 * The legs held by the ledger sync are the balance check's own entries (balance-check.ts `legs`): one copy, read
 * as a map by uuid — the latest version of each leg, in the order first held, the very objects read.
 */
import { describe, expect, it } from '@jest/globals';
import { stateKey } from '#contracts';
import type { TransactionRecord } from '#venue-api';
import { BalanceCheckState } from './balance-check.js';

function leg(uuid: string, received: number | undefined, patch: Partial<TransactionRecord> = {}): TransactionRecord {
  return {
    uuid,
    transactionClass: 'CASH',
    amount: '1',
    ccy: 'USD',
    transactionState: 'PROCESSED',
    transactionType: 'DEPOSIT',
    received,
    processed: received,
    balanceAfter: '1',
    displayTitle: null,
    displayDescription: null,
    paymentTransferType: null,
    beneficiaryUuid: null,
    accountGroupUuid: 'g-1',
    ...patch,
  };
}

describe('BalanceCheckState.legs: the legs held, shared with the ledger sync', () => {
  it('each leg once, at its latest version (the object held, not a copy), in the order first held', () => {
    const state = new BalanceCheckState();
    const a1 = leg('a', 1, { transactionState: 'PENDING', processed: undefined });
    const b = leg('b', 2);
    const a2 = leg('a', 1, { processed: 5 }); // settled: its times changed (a new entry)
    const b2 = { ...b, balanceAfter: '2' }; // restated: same times (the entry updated in place)
    const c = leg('c', undefined, { accountGroupUuid: undefined, ccy: 'EUR' }); // untimed, no group: held all the same
    for (const read of [a1, b, a2, b2, c]) state.hold(read);
    expect(state.legs.size).toBe(3);
    expect(state.legs.get('a')).toBe(a2);
    expect(state.legs.get('b')).toBe(b2);
    expect(state.legs.get('c')).toBe(c);
    expect(state.legs.has('c')).toBe(true);
    expect(state.legs.has('d')).toBe(false);
    expect(state.legs.get('d')).toBeUndefined();
    expect([...state.legs.values()]).toEqual([a2, b2, c]);
  });

  it('a leg moved to another account is still held once, and the check sees it only in the new one', () => {
    const state = new BalanceCheckState();
    const usd = leg('a', 1, { balanceAfter: '10' });
    const eur = { ...usd, ccy: 'EUR' };
    state.hold(usd);
    state.hold(eur);
    expect([...state.legs.values()]).toEqual([eur]);
    const balanceOf = (ccy: string) => ({
      accountGroupUuid: 'g-1',
      ccy,
      balance: '11',
      available: '11',
      brokerageAvailable: '11',
    });
    const balances = new Map(['USD', 'EUR'].map((ccy) => [stateKey('g-1', ccy), balanceOf(ccy)]));
    expect(state.drifts(balances, 10, 11).map((drift) => [drift.ccy, drift.transactionUuid])).toEqual([['EUR', 'a']]);
  });
});
