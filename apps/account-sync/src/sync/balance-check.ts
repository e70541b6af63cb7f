/**
 * The consistency check (docs/spec-gaps.md AS8): a balance against the transaction legs that moved it.
 * Pure: the mirrored balances and the legs in, the drifts out.
 */
import { Decimal } from 'decimal.js';
import { stateKey, type BalanceDrift, type BalanceState } from '#contracts';
import type { TransactionRecord } from '#venue-api';

function bookedAt(leg: TransactionRecord): number | undefined {
  return leg.received ?? leg.timestampMillis ?? leg.processed;
}

/**
 * For each (group, ccy) with legs booked before `balancesReadAt`: the newest such leg's `balanceAfter`
 * must equal the balance. Inconclusive (skipped) when the newest leg was reversed or cancelled, or has no
 * `balanceAfter`.
 */
export function findDrifts(
  balances: ReadonlyMap<string, BalanceState>,
  legs: Iterable<TransactionRecord>,
  balancesReadAt: number,
  now: number,
): BalanceDrift[] {
  const newest = new Map<string, TransactionRecord>();
  for (const leg of legs) {
    const at = bookedAt(leg);
    if (leg.accountGroupUuid === undefined || at === undefined || at > balancesReadAt) continue;
    const key = stateKey(leg.accountGroupUuid, leg.ccy);
    const held = newest.get(key);
    if (held === undefined || at > (bookedAt(held) ?? 0)) newest.set(key, leg);
  }
  const drifts: BalanceDrift[] = [];
  for (const [key, leg] of newest) {
    const balance = balances.get(key);
    if (balance === undefined || leg.balanceAfter === undefined) continue;
    if (leg.transactionState === 'REVERSED' || leg.transactionState === 'CANCELLED') continue;
    if (new Decimal(balance.balance).equals(new Decimal(leg.balanceAfter))) continue;
    drifts.push({
      v: 1,
      accountGroupUuid: balance.accountGroupUuid,
      ccy: balance.ccy,
      balance: balance.balance,
      expected: leg.balanceAfter,
      transactionUuid: leg.uuid,
      detectedAt: now,
    });
  }
  return drifts;
}
