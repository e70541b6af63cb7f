/**
 * The balance check's cost per sync trigger (AS8, apps/account-sync/src/sync/balance-check.ts), against the full
 * walk it replaced (every held leg at every check; kept as the test's oracle). In process, no I/O: a history of
 * N legs over 4 currencies of one account group (most in USD, times increasing, balances matching), then
 * triggers as the engine sees them — a new leg held, a balances read every 5th trigger (so up to 4 legs are
 * booked after the read) — each followed by a check: 2,000 triggers on the held state, then as many as take
 * ≈ 60 walks of 10^4 legs on the same history built again (each timed in its own block, so each pays for its
 * own garbage). Neither may find a drift (the history has none), and both must agree. The figure is µs per check and their ratio, at 10^4 and 10^5 legs
 * (BENCH_BALANCE_CHECK_LEGS=10000,100000), plus the one-off cost of holding the history (the engine holds each
 * leg as it reads it) and, with `node --expose-gc`, the heap that takes: the held state is now the only copy of the
 * legs the ledger sync holds (TransactionReads.held reads it), so a plain uuid map of the same legs — the copy
 * TransactionReads kept beside it before — is measured too, for the comparison.
 *
 * Then the sweep's start (`sweepStartFigure`): where a new sweep pass of the transaction list starts is the oldest
 * PENDING leg held. It used to be found by walking every leg held; it is now an index of the pending legs kept as
 * legs are held (oldest-pending.ts). 1 leg in 100 of the history is PENDING; at each sweep start one new PENDING
 * leg is held and the oldest pending one settles (so as many stay pending); both ways are timed, in the same process, per
 * sweep start (the index also per leg held, which is where its cost went), and must agree at every one.
 */
import { Decimal } from 'decimal.js';
import { performance } from 'node:perf_hooks';
import { stateKey, type BalanceState } from '#contracts';
import type { TransactionRecord } from '#venue-api';
import { BalanceCheckState } from '../apps/account-sync/src/sync/balance-check.js';
import { mapIterable, timeSpan } from '../apps/account-sync/src/sync/list-walks.js';
import { OldestPending } from '../apps/account-sync/src/sync/oldest-pending.js';
import { findDriftsByFullWalk } from '../apps/account-sync/src/sync/testing/balance-check-full-walk.js';
import { percentile } from './hop-recorder.js';

const SIZES = (process.env['BENCH_BALANCE_CHECK_LEGS'] ?? '10000,100000').split(',').map(Number);
const GROUP = 'g-bench';
const CCYS = ['USD', 'USD', 'USD', 'USD', 'USD', 'EUR', 'GBP', 'BTC'];

class History {
  readonly legs = new Map<string, TransactionRecord>();
  readonly balances = new Map<string, BalanceState>();
  private readonly running = new Map<string, Decimal>();
  private next = 0;
  clock = 0;

  /** A processed deposit booked now; its balanceAfter is the account's running balance (exact). */
  add(): TransactionRecord {
    this.next += 1;
    this.clock += 10;
    const ccy = CCYS[this.next % CCYS.length] as string;
    const after = (this.running.get(ccy) ?? new Decimal(0)).plus('12.34');
    this.running.set(ccy, after);
    const leg: TransactionRecord = {
      uuid: `leg-${this.next}`,
      transactionClass: 'CASH',
      amount: '12.34',
      ccy,
      transactionState: 'PROCESSED',
      transactionType: 'DEPOSIT',
      received: this.clock,
      processed: this.clock + 5,
      balanceAfter: after.toFixed(2),
      displayTitle: null,
      displayDescription: null,
      paymentTransferType: null,
      beneficiaryUuid: null,
      accountGroupUuid: GROUP,
    };
    this.legs.set(leg.uuid, leg);
    return leg;
  }

  /** The venue's balances as of now: each currency at its running balance. */
  readBalances(): number {
    for (const [ccy, value] of this.running) {
      const text = value.toFixed(2);
      this.balances.set(stateKey(GROUP, ccy), {
        accountGroupUuid: GROUP,
        ccy,
        balance: text,
        available: text,
        brokerageAvailable: text,
      });
    }
    return this.clock + 7;
  }
}

interface Figure {
  legs: number;
  fullWalkMicros: number;
  heldMicros: number;
  holdAllMs: number;
  /** Heap the held state takes, when the process runs with --expose-gc. */
  heapMb: number | undefined;
  /** Heap a plain uuid map of the same legs takes (the copy TransactionReads kept beside the state before). */
  mapHeapMb: number | undefined;
}

function heapUsed(): number | undefined {
  const gc = (globalThis as { gc?: () => void }).gc;
  if (gc === undefined) return undefined;
  gc();
  return process.memoryUsage().heapUsed;
}

/** A history of `size` legs with its balances read: the same one at every call. */
function historyOf(size: number): { history: History; readAt: number } {
  const history = new History();
  for (let i = 0; i < size; i += 1) history.add();
  return { history, readAt: history.readBalances() };
}

/**
 * `triggers` sync triggers on a history: a new leg, a balances read every 5th, then `check(leg, readAt)`, which
 * alone is timed (the median check is the figure: this machine is shared, and a check preempted is not its
 * cost). One way of checking a block, so each pays for its own garbage only.
 */
function timeTriggers(
  history: History,
  readAt: number,
  triggers: number,
  check: (leg: TransactionRecord, readAt: number) => number,
): { microsPerCheck: number; readAt: number } {
  let drifts = 0;
  const micros: number[] = [];
  for (let step = 0; step < triggers; step += 1) {
    const leg = history.add();
    if (step % 5 === 0) readAt = history.readBalances();
    const started = performance.now();
    drifts += check(leg, readAt);
    micros.push((performance.now() - started) * 1000);
  }
  if (drifts !== 0) throw new Error('a drift where the history has none');
  return {
    microsPerCheck: percentile(
      micros.sort((a, b) => a - b),
      50,
    ),
    readAt,
  };
}

function measure(size: number, walkTriggers = Math.max(20, Math.round(6e5 / size)), heldTriggers = 2_000): Figure {
  // The held state: the history held once (as the engine holds each leg it reads), then the triggers.
  const forState = historyOf(size);
  const before = heapUsed();
  const state = new BalanceCheckState();
  const holdStarted = performance.now();
  for (const leg of forState.history.legs.values()) state.hold(leg);
  const holdAllMs = performance.now() - holdStarted;
  const after = heapUsed();
  const heapMb = before === undefined || after === undefined ? undefined : (after - before) / 1e6;
  const beforeMap = heapUsed();
  const plainMap = new Map<string, TransactionRecord>();
  for (const leg of forState.history.legs.values()) plainMap.set(leg.uuid, leg);
  const afterMap = heapUsed();
  const mapHeapMb = beforeMap === undefined || afterMap === undefined ? undefined : (afterMap - beforeMap) / 1e6;
  if (plainMap.size !== state.legs.size) throw new Error('the held state does not hold every leg');
  const held = timeTriggers(forState.history, forState.readAt, heldTriggers, (leg, readAt) => {
    state.hold(leg);
    return state.drifts(forState.history.balances, readAt, 0).length;
  });
  // Same answer as the full walk on the same legs (no drift here: a drift-free history; the unit test proves more).
  const walkedHeld = findDriftsByFullWalk(forState.history.balances, forState.history.legs.values(), held.readAt, 0);
  if (JSON.stringify(walkedHeld) !== JSON.stringify(state.drifts(forState.history.balances, held.readAt, 0))) {
    throw new Error('the held state and the full walk disagree');
  }
  // The full walk, on the same history built again (it grows by walkTriggers legs only).
  const forWalk = historyOf(size);
  const walk = timeTriggers(forWalk.history, forWalk.readAt, walkTriggers, (_leg, readAt) => {
    return findDriftsByFullWalk(forWalk.history.balances, forWalk.history.legs.values(), readAt, 0).length;
  });
  return {
    legs: size,
    fullWalkMicros: walk.microsPerCheck,
    heldMicros: held.microsPerCheck,
    holdAllMs,
    heapMb,
    mapHeapMb,
  };
}

export function balanceCheckFigure(): string {
  measure(2_000, 50, 2_000); // warm-up: both checks optimised before they are timed
  const rows = SIZES.map((size) => measure(size)).map(
    (f) =>
      `| ${f.legs.toLocaleString('en')} | ${f.fullWalkMicros.toFixed(0)} | ${f.heldMicros.toFixed(2)} | ` +
      `${(f.fullWalkMicros / f.heldMicros).toFixed(0)} | ${f.holdAllMs.toFixed(0)} | ${mb(f.heapMb)} | ${mb(f.mapHeapMb)} |`,
  );
  return [
    'Balance check per sync trigger (one new leg held, then the check; a balances read every 5th trigger)',
    '',
    '| legs held | full walk µs/check (median) | held state µs/check (hold + check, median) | ratio | holding the history, ms | its heap, MB | a plain uuid map of the legs, MB |',
    '|---|---|---|---|---|---|---|',
    ...rows,
    '',
    sweepStartFigure(),
  ].join('\n');
}

const mb = (value: number | undefined): string => value?.toFixed(1) ?? 'n/a (--expose-gc)';

/** A leg of the sweep's history: booked at `at`, PENDING or PROCESSED. */
function sweepLeg(i: number, at: number, state: 'PENDING' | 'PROCESSED'): TransactionRecord {
  return {
    uuid: `leg-${i}`,
    transactionClass: 'RFSTRADE',
    amount: '1.00',
    ccy: 'USD',
    transactionState: state,
    transactionType: 'TRADE_DEBIT',
    received: at,
    displayTitle: null,
    displayDescription: null,
    paymentTransferType: null,
    beneficiaryUuid: null,
  };
}

/** The old sweep start: every leg held walked (transaction-reads.ts before the index). */
function oldestPendingByWalk(held: ReadonlyMap<string, TransactionRecord>): number | undefined {
  return timeSpan(
    mapIterable(held.values(), (leg) =>
      leg.transactionState === 'PENDING' ? (leg.received ?? leg.timestampMillis) : undefined,
    ),
  ).oldest;
}

interface SweepFigure {
  legs: number;
  pending: number;
  walk: number[];
  index: number[];
  holdInIndex: number[];
}

/** `starts` sweep starts on a history of `size` legs, 1 in 100 PENDING; µs samples of each way, sorted. */
function measureSweepStarts(size: number, starts: number): SweepFigure {
  const held = new Map<string, TransactionRecord>();
  const index = new OldestPending();
  const pendingInOrder: TransactionRecord[] = [];
  let next = 0;
  const holdInIndex: number[] = [];
  const hold = (leg: TransactionRecord): void => {
    held.set(leg.uuid, leg);
    const started = performance.now();
    if (leg.transactionState === 'PENDING' && leg.received !== undefined) index.pending(leg.uuid, leg.received);
    else index.settled(leg.uuid);
    holdInIndex.push((performance.now() - started) * 1000);
  };
  const add = (state: 'PENDING' | 'PROCESSED'): void => {
    next += 1;
    const leg = sweepLeg(next, 1_000 * next, state);
    if (state === 'PENDING') pendingInOrder.push(leg);
    hold(leg);
  };
  for (let i = 0; i < size; i += 1) add(i % 100 === 0 ? 'PENDING' : 'PROCESSED');
  holdInIndex.length = 0;
  const walk: number[] = [];
  const indexed: number[] = [];
  for (let start = 0; start < starts; start += 1) {
    add('PENDING');
    const settling = pendingInOrder.shift();
    if (settling !== undefined) hold({ ...settling, transactionState: 'PROCESSED', processed: 1_000 * next });
    const indexStarted = performance.now();
    const fromIndex = index.oldest();
    indexed.push((performance.now() - indexStarted) * 1000);
    const walkStarted = performance.now();
    const walked = oldestPendingByWalk(held);
    walk.push((performance.now() - walkStarted) * 1000);
    if (walked !== fromIndex) throw new Error(`sweep start: the index says ${fromIndex}, the walk ${walked}`);
  }
  const sorted = (micros: number[]) => micros.sort((a, b) => a - b);
  return {
    legs: size,
    pending: index.size,
    walk: sorted(walk),
    index: sorted(indexed),
    holdInIndex: sorted(holdInIndex),
  };
}

const percentiles = (sorted: number[], digits: number): string =>
  [50, 90, 99].map((p) => percentile(sorted, p).toFixed(digits)).join(' / ');

export function sweepStartFigure(): string {
  measureSweepStarts(2_000, 500); // warm-up
  const figures = SIZES.map((size) => measureSweepStarts(size, size >= 100_000 ? 300 : 1_000));
  return [
    'Transaction sweep start (the oldest PENDING leg held): the full walk against the pending index',
    '',
    '| legs held (pending) | sweep starts | full walk µs (p50 / p90 / p99) | index µs (p50 / p90 / p99) | index upkeep µs per leg held (p50 / p90 / p99) |',
    '|---|---|---|---|---|',
    ...figures.map(
      (f) =>
        `| ${f.legs.toLocaleString('en')} (${f.pending.toLocaleString('en')}) | ${f.walk.length} | ${percentiles(f.walk, 0)} | ` +
        `${percentiles(f.index, 2)} | ${percentiles(f.holdInIndex, 2)} |`,
    ),
  ].join('\n');
}
