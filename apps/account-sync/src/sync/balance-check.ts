/**
 * The consistency check (docs/spec-gaps.md AS8): a balance against the transaction legs that moved it.
 *
 * §2.9 does not say what `balanceAfter` means or when a leg moves the balance (the sandbox, R29: a trade
 * leg moves it when booked, a deposit or withdrawal when processed, a cancel or reversal undoes it with no
 * `balanceAfter` of its own). So the check only speaks when that does not matter: it compares a balance
 * with a leg's `balanceAfter` only when every leg of the (group, ccy) was final when the balance was read
 * and the newest one to become final is PROCESSED and had the account to itself — no other leg of the
 * (group, ccy) was booked or became final between its booking and its end. Anything else is inconclusive
 * (no drift): a false drift would page someone; a missed one is caught at the next quiet moment.
 *
 * The check runs after every balances and transactions read, and an account may hold 10^5–10^6 legs, so
 * its state is kept as legs are held (`BalanceCheckState`): each (group, ccy) keeps its legs in the order
 * they became final, and a check reads only the latest of them, again only for the accounts whose legs
 * changed or when the balances' read time moved. Its entries are the only copy of the legs the ledger sync holds
 * (`legs`; transaction-reads.ts keeps no map of its own): each is the leg and when its uuid was first held, its
 * account and times read from the leg. Pure: no I/O.
 */
import { Decimal } from 'decimal.js';
import { stateKey, type BalanceDrift, type BalanceState } from '#contracts';
import type { TransactionRecord } from '#venue-api';
import { FirstOutHeap } from './first-out-heap.js';

/** A leg's lifetime: booked (`received`, else `timestampMillis`) to final (`processed`, else `timestampMillis`; PENDING: never yet). */
export interface LegSpan {
  booked: number;
  final: number;
}

/** Undefined when the leg lacks the times (it holds the check of its account). */
export function legSpan(leg: TransactionRecord): LegSpan | undefined {
  const booked = leg.received ?? leg.timestampMillis;
  if (booked === undefined) return undefined;
  if (leg.transactionState === 'PENDING') return { booked, final: Number.POSITIVE_INFINITY };
  const final = leg.processed ?? leg.timestampMillis;
  return final === undefined ? undefined : { booked, final };
}

/** The drift the evidence shows for a balance, if any (decimal equality of the texts). */
export function driftOf(
  balance: BalanceState | undefined,
  evidence: TransactionRecord | undefined,
  now: number,
): BalanceDrift | undefined {
  if (balance === undefined || evidence?.balanceAfter === undefined) return undefined;
  if (new Decimal(balance.balance).equals(new Decimal(evidence.balanceAfter))) return undefined;
  return {
    v: 1,
    accountGroupUuid: balance.accountGroupUuid,
    ccy: balance.ccy,
    balance: balance.balance,
    expected: evidence.balanceAfter,
    transactionUuid: evidence.uuid,
    detectedAt: now,
  };
}

/**
 * A leg held, in its latest version: the one entry a leg has (the legs held by the ledger sync are these entries,
 * `legs`; an account may hold 10^6). Its account and times are read from `leg` (`legSpan`): an entry is replaced
 * when they change, and only updated in place when they do not, so its place in a heap never moves under it.
 */
interface HeldLeg {
  leg: TransactionRecord;
  /** When its uuid was first held: among legs final at the same time the first held is the newest (as the walk). */
  readonly seq: number;
}

/** One (group, ccy). */
interface Account {
  readonly key: string;
  /** Its timed legs, latest final first (PENDING before any), ties by `seq`; older versions are dropped when met. */
  readonly byFinal: FirstOutHeap<HeldLeg>;
  /** Entries of `byFinal` that are latest versions. */
  current: number;
  /** Its untimed legs. */
  untimed: number;
  /** The evidence found for a balances read time, until a leg of the account changes. */
  checked: { balancesReadAt: number; evidence: TransactionRecord | undefined } | undefined;
}

/** The transaction legs held, by uuid, read-only (the `transaction-list` query and the list reads). */
export interface LegsByUuid {
  readonly size: number;
  get(uuid: string): TransactionRecord | undefined;
  has(uuid: string): boolean;
  values(): IterableIterator<TransactionRecord>;
}

/** Older versions a heap may carry before it is compacted: beyond this and beyond its current ones. */
const STALE_SLACK = 64;

/** Booked: `received`, else `timestampMillis` (legSpan's, without the object). */
const bookedOf = (leg: TransactionRecord): number | undefined => leg.received ?? leg.timestampMillis;

/** Final: `processed`, else `timestampMillis`; PENDING: never yet (legSpan's, without the object). */
const finalOf = (leg: TransactionRecord): number | undefined =>
  leg.transactionState === 'PENDING' ? Number.POSITIVE_INFINITY : (leg.processed ?? leg.timestampMillis);

const isTimed = (leg: TransactionRecord): boolean => bookedOf(leg) !== undefined && finalOf(leg) !== undefined;

/** Only timed legs are in a heap: both finals are numbers. */
const finalFirst = (a: HeldLeg, b: HeldLeg): boolean => {
  const aFinal = finalOf(a.leg) as number;
  const bFinal = finalOf(b.leg) as number;
  return aFinal > bFinal || (aFinal === bFinal && a.seq < b.seq);
};

export class BalanceCheckState {
  /** Every leg held, by uuid, in the order first held: the only copy (`legs` reads it). */
  private readonly entries = new Map<string, HeldLeg>();
  private readonly accounts = new Map<string, Account>();
  private nextSeq = 0;
  /** The legs held, latest versions (TransactionReads keeps no map of its own). */
  readonly legs: LegsByUuid = new LegsView(this.entries);

  /** A leg read (new, changed, or the same again): its latest version replaces the one held. */
  hold(leg: TransactionRecord): void {
    const previous = this.entries.get(leg.uuid);
    const account = this.accountOfLeg(leg);
    if (previous !== undefined && this.samePlace(previous.leg, leg, account)) {
      // Its place among the account's legs is unchanged: the new version takes it.
      if (account !== undefined && changesEvidence(previous.leg, leg)) account.checked = undefined;
      previous.leg = leg;
      return;
    }
    const held: HeldLeg = { leg, seq: previous?.seq ?? this.nextSeq++ };
    this.entries.set(leg.uuid, held);
    if (previous !== undefined) this.release(previous);
    if (account === undefined) return;
    account.checked = undefined;
    if (!isTimed(leg)) account.untimed += 1;
    else {
      account.byFinal.push(held);
      account.current += 1;
    }
  }

  /** The drifts as of a balances read (AS8); each account's evidence is looked for again only when it may differ. */
  drifts(balances: ReadonlyMap<string, BalanceState>, balancesReadAt: number, now: number): BalanceDrift[] {
    const drifts: BalanceDrift[] = [];
    for (const account of this.accounts.values()) {
      if (account.checked?.balancesReadAt !== balancesReadAt) {
        account.checked = { balancesReadAt, evidence: this.evidence(account, balancesReadAt) };
      }
      const drift = driftOf(balances.get(account.key), account.checked.evidence, now);
      if (drift !== undefined) drifts.push(drift);
    }
    return drifts;
  }

  /**
   * The leg to compare the balance with, or undefined (inconclusive). Legs booked after the balances were read
   * are left out (the balance could not include them); the latest final of the others must be PROCESSED, final
   * by then, and the next latest must have ended before it was booked. Reads the account's legs latest final
   * first: past the ones booked after the read (few: those since the last balances read), two at most.
   */
  private evidence(account: Account, balancesReadAt: number): TransactionRecord | undefined {
    if (account.untimed > 0) return undefined;
    const seen: HeldLeg[] = [];
    let newest: HeldLeg | undefined;
    let next: HeldLeg | undefined;
    for (let held = account.byFinal.pop(); held !== undefined; held = account.byFinal.pop()) {
      if (!this.isLatest(held)) continue; // an older version: dropped for good
      seen.push(held);
      if ((bookedOf(held.leg) as number) > balancesReadAt) continue;
      if (newest !== undefined) {
        next = held;
        break;
      }
      newest = held;
      if ((finalOf(held.leg) as number) > balancesReadAt) break;
    }
    for (const held of seen) account.byFinal.push(held);
    if (newest === undefined || (finalOf(newest.leg) as number) > balancesReadAt) return undefined;
    if (newest.leg.transactionState !== 'PROCESSED') return undefined;
    if (next !== undefined && (finalOf(next.leg) as number) >= (bookedOf(newest.leg) as number)) return undefined;
    return newest.leg;
  }

  private isLatest(held: HeldLeg): boolean {
    return this.entries.get(held.leg.uuid) === held;
  }

  /**
   * A leg's former version leaves its account: its heap entry goes stale, dropped when a check meets it or when
   * stale entries outnumber current ones (compaction, O(n) once per as many changes: amortised O(1)).
   */
  private release(former: HeldLeg): void {
    const account = this.accountOfLeg(former.leg);
    if (account === undefined) return;
    account.checked = undefined;
    if (!isTimed(former.leg)) {
      account.untimed -= 1;
      return;
    }
    account.current -= 1;
    if (account.byFinal.size > 2 * account.current + STALE_SLACK) {
      account.byFinal.retain((held) => this.isLatest(held));
    }
  }

  /** Whether a new version of a leg keeps its account and times (so its heap entry stays where it is). */
  private samePlace(held: TransactionRecord, read: TransactionRecord, account: Account | undefined): boolean {
    const sameAccount =
      (held.accountGroupUuid === read.accountGroupUuid && held.ccy === read.ccy) || this.accountOfLeg(held) === account;
    return sameAccount && sameTimes(held, read);
  }

  /** No account: no group (AS7), not used. */
  private accountOfLeg(leg: TransactionRecord): Account | undefined {
    return leg.accountGroupUuid === undefined ? undefined : this.accountOf(leg.accountGroupUuid, leg.ccy);
  }

  private accountOf(group: string, ccy: string): Account {
    const key = stateKey(group, ccy);
    let account = this.accounts.get(key);
    if (account === undefined) {
      account = { key, byFinal: new FirstOutHeap(finalFirst), current: 0, untimed: 0, checked: undefined };
      this.accounts.set(key, account);
    }
    return account;
  }
}

/** The legs of the entries, as a read-only map (no copy). */
class LegsView implements LegsByUuid {
  constructor(private readonly entries: ReadonlyMap<string, HeldLeg>) {}

  get size(): number {
    return this.entries.size;
  }

  get(uuid: string): TransactionRecord | undefined {
    return this.entries.get(uuid)?.leg;
  }

  has(uuid: string): boolean {
    return this.entries.has(uuid);
  }

  *values(): IterableIterator<TransactionRecord> {
    for (const held of this.entries.values()) yield held.leg;
  }
}

/** Whether two versions of a leg have the same span (both untimed, or booked and final at the same times). */
function sameTimes(held: TransactionRecord, read: TransactionRecord): boolean {
  if (!isTimed(read)) return !isTimed(held);
  return isTimed(held) && bookedOf(held) === bookedOf(read) && finalOf(held) === finalOf(read);
}

/** Whether a new version of a leg, final at the same time, can change what the check says. */
function changesEvidence(held: TransactionRecord, read: TransactionRecord): boolean {
  return held.transactionState !== read.transactionState || held.balanceAfter !== read.balanceAfter;
}
