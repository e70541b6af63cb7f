/**
 * The balance check (AS8) as it was run before balance-check.ts kept its state: every held leg walked at every
 * check. Kept as the oracle the incremental check is compared with (balance-check.spec.ts) and the baseline of
 * its benchmark (bench/balance-check.ts); the engine does not use it.
 */
import { Decimal } from 'decimal.js';
import { stateKey, type BalanceDrift, type BalanceState } from '#contracts';
import type { TransactionRecord } from '#venue-api';
import { legSpan, type LegSpan } from '../balance-check.js';

/** The leg to compare the balance with, or undefined (inconclusive): balance-check.ts's rule, by a full walk. */
function evidence(legs: readonly TransactionRecord[], balancesReadAt: number): TransactionRecord | undefined {
  const spans: Array<LegSpan & { leg: TransactionRecord }> = [];
  for (const leg of legs) {
    const s = legSpan(leg);
    if (s === undefined) return undefined;
    if (s.booked > balancesReadAt) continue;
    if (s.final > balancesReadAt) return undefined;
    spans.push({ leg, booked: s.booked, final: s.final });
  }
  let newest: (typeof spans)[number] | undefined;
  for (const s of spans) if (newest === undefined || s.final > newest.final) newest = s;
  if (newest === undefined || newest.leg.transactionState !== 'PROCESSED') return undefined;
  const last = newest;
  // Every other leg ended before `last` was booked (this also refuses a tie for newest).
  if (spans.some((s) => s !== last && s.final >= last.booked)) return undefined;
  return last.leg;
}

export function findDriftsByFullWalk(
  balances: ReadonlyMap<string, BalanceState>,
  legs: Iterable<TransactionRecord>,
  balancesReadAt: number,
  now: number,
): BalanceDrift[] {
  const byAccount = new Map<string, TransactionRecord[]>();
  for (const leg of legs) {
    if (leg.accountGroupUuid === undefined) continue;
    const key = stateKey(leg.accountGroupUuid, leg.ccy);
    const held = byAccount.get(key);
    if (held === undefined) byAccount.set(key, [leg]);
    else held.push(leg);
  }
  const drifts: BalanceDrift[] = [];
  for (const [key, accountLegs] of byAccount) {
    const balance = balances.get(key);
    const leg = evidence(accountLegs, balancesReadAt);
    if (balance === undefined || leg?.balanceAfter === undefined) continue;
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
