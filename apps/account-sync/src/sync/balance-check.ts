/**
 * The consistency check (docs/spec-gaps.md AS8): a balance against the transaction legs that moved it.
 * Pure: the mirrored balances and the legs in, the drifts out.
 *
 * §2.9 does not say what `balanceAfter` means or when a leg moves the balance (the sandbox, R29: a trade
 * leg moves it when booked, a deposit or withdrawal when processed, a cancel or reversal undoes it with no
 * `balanceAfter` of its own). So the check only speaks when that does not matter: it compares a balance
 * with a leg's `balanceAfter` only when every leg of the (group, ccy) was final when the balance was read
 * and the newest one to become final is PROCESSED and had the account to itself — no other leg of the
 * (group, ccy) was booked or became final between its booking and its end. Anything else is inconclusive
 * (no drift): a false drift would page someone; a missed one is caught at the next quiet moment.
 */
import { Decimal } from 'decimal.js';
import { stateKey, type BalanceDrift, type BalanceState } from '#contracts';
import type { TransactionRecord } from '#venue-api';

/** A final leg's lifetime: booked (`received`) to final (`processed`, else `timestampMillis`). */
interface Span {
  leg: TransactionRecord;
  booked: number;
  final: number;
}

function span(leg: TransactionRecord): Span | undefined {
  const booked = leg.received ?? leg.timestampMillis;
  if (booked === undefined) return undefined;
  if (leg.transactionState === 'PENDING') return { leg, booked, final: Number.POSITIVE_INFINITY };
  const final = leg.processed ?? leg.timestampMillis;
  return final === undefined ? undefined : { leg, booked, final };
}

/**
 * The leg to compare the balance with, or undefined (inconclusive). Legs booked after the balances were read are left out (the balance could not include them). Any other
 * leg still PENDING at the read (PENDING now, or final after it), or without its times, holds the check.
 */
function evidence(legs: readonly TransactionRecord[], balancesReadAt: number): TransactionRecord | undefined {
  const spans: Span[] = [];
  for (const leg of legs) {
    const s = span(leg);
    if (s === undefined) return undefined;
    if (s.booked > balancesReadAt) continue;
    if (s.final > balancesReadAt) return undefined;
    spans.push(s);
  }
  let newest: Span | undefined;
  for (const s of spans) if (newest === undefined || s.final > newest.final) newest = s;
  if (newest === undefined || newest.leg.transactionState !== 'PROCESSED') return undefined;
  const last = newest;
  // Every other leg ended before `last` was booked (this also refuses a tie for newest).
  if (spans.some((s) => s !== last && s.final >= last.booked)) return undefined;
  return last.leg;
}

/**
 * For each (group, ccy) whose legs give unambiguous evidence (above): that leg's `balanceAfter` must equal
 * the balance (decimal equality). Legs with no account group are not used (AS7).
 */
export function findDrifts(
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
