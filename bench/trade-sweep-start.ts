/**
 * The trade sweep's start (apps/account-sync/src/sync/held-trade-span.ts), against the walk it replaced: where a
 * new sweep pass of the trade list starts is the oldest PENDING_SETTLEMENT trade held (never later than the newest
 * held). It used to be found by walking the whole trade mirror twice at each pass start (testing/
 * trade-span-full-walk.ts, kept as the oracle); it is now kept as the mirror changes (StateMirror.watch). In
 * process, no I/O: a real trade mirror over a bucket in memory and a stream that takes everything, holding N trades
 * (1 in 100 PENDING_SETTLEMENT, `createdAt` increasing); then sweep starts as the engine sees them — a new pending
 * trade held and the oldest pending one settling (one apply; so as many stay pending), then the pass start both
 * ways, timed in the same process and required to agree at every one. Also the index's upkeep per trade held (the
 * watcher's call, where its cost went) and the one-off build at the first pass start (the mirror tells its new
 * watcher every trade held). µs p50/p90/p99 at 10^4 and 10^5 trades (BENCH_BALANCE_CHECK_LEGS=10000,100000).
 */
import { performance } from 'node:perf_hooks';
import { AccountSyncSubjects, Subjects } from '#contracts';
import type { Trade } from '#venue-api';
import { HeldTradeSpan } from '../apps/account-sync/src/sync/held-trade-span.js';
import { StateMirror, type MirrorStore } from '../apps/account-sync/src/sync/state-mirror.js';
import { heldTradeSpanByWalk } from '../apps/account-sync/src/sync/testing/trade-span-full-walk.js';
import { percentile } from './hop-recorder.js';

const SIZES = (process.env['BENCH_BALANCE_CHECK_LEGS'] ?? '10000,100000').split(',').map(Number);
const T0 = Date.UTC(2026, 0, 1);

class MemoryStore implements MirrorStore {
  private readonly entries = new Map<string, unknown>();
  values<T>(): Promise<Map<string, T>> {
    return Promise.resolve(new Map(this.entries) as Map<string, T>);
  }
  put(key: string, value: unknown): Promise<void> {
    this.entries.set(key, value);
    return Promise.resolve();
  }
}

/** A trade as the venue lists it (§4.5), booked `i` seconds after T0. */
function benchTrade(i: number, state: 'PENDING_SETTLEMENT' | 'SETTLED'): Trade {
  return {
    uuid: `trade-${i}`,
    tradeRef: `R-${i}`,
    createdAt: new Date(T0 + i * 1_000).toISOString(),
    state,
    tradeSide: 'BUY',
    tradedAmount: { amount: '0.0100', currency: 'BTC' },
    settlementAmount: { amount: '650.00', currency: 'USD' },
    settlementDate: '2026-01-03',
  };
}

interface TradeSweepFigure {
  trades: number;
  pending: number;
  walk: number[];
  index: number[];
  upkeep: number[];
  buildMs: number;
}

const sorted = (micros: number[]) => micros.sort((a, b) => a - b);

async function measureTradeSweepStarts(size: number, starts: number): Promise<TradeSweepFigure> {
  const subjects = new AccountSyncSubjects(new Subjects('gw.v1', 'bench'));
  const mirror = new StateMirror<Trade>(new MemoryStore(), () => Promise.resolve(), subjects, {
    resource: 'trade',
    stateOf: (trade) => trade.state,
  });
  const pendingInOrder: number[] = [];
  let next = 0;
  const held = (i: number, state: 'PENDING_SETTLEMENT' | 'SETTLED'): [string, Trade] => [
    `trade-${i}`,
    benchTrade(i, state),
  ];
  const history = new Map<string, Trade>();
  for (; next < size; next += 1) {
    const state = next % 100 === 0 ? 'PENDING_SETTLEMENT' : 'SETTLED';
    if (state === 'PENDING_SETTLEMENT') pendingInOrder.push(next);
    history.set(...held(next, state));
  }
  await mirror.apply(history);
  // The first pass start: the index built, the mirror telling it every trade held.
  const index = new HeldTradeSpan(() => mirror.iterate());
  const upkeep: number[] = [];
  let timing = false;
  const buildStarted = performance.now();
  mirror.watch((key, previous, value) => {
    if (!timing) return index.held(key, previous, value);
    const started = performance.now();
    index.held(key, previous, value);
    upkeep.push((performance.now() - started) * 1000);
  });
  const buildMs = performance.now() - buildStarted;
  timing = true;
  const walk: number[] = [];
  const indexed: number[] = [];
  for (let start = 0; start < starts; start += 1, next += 1) {
    const changes = new Map([held(next, 'PENDING_SETTLEMENT')]);
    pendingInOrder.push(next);
    const settling = pendingInOrder.shift();
    if (settling !== undefined) changes.set(...held(settling, 'SETTLED'));
    await mirror.apply(changes);
    const indexStarted = performance.now();
    const fromIndex = index.span();
    indexed.push((performance.now() - indexStarted) * 1000);
    const walkStarted = performance.now();
    const walked = heldTradeSpanByWalk(() => mirror.iterate());
    walk.push((performance.now() - walkStarted) * 1000);
    if (walked.newestHeld !== fromIndex.newestHeld || walked.oldestPending !== fromIndex.oldestPending) {
      throw new Error(
        `trade sweep start: the index says ${JSON.stringify(fromIndex)}, the walk ${JSON.stringify(walked)}`,
      );
    }
  }
  return {
    trades: size,
    pending: index.pendingCount,
    walk: sorted(walk),
    index: sorted(indexed),
    upkeep: sorted(upkeep),
    buildMs,
  };
}

const percentiles = (values: number[], digits: number): string =>
  [50, 90, 99].map((p) => percentile(values, p).toFixed(digits)).join(' / ');

export async function tradeSweepStartFigure(): Promise<string> {
  await measureTradeSweepStarts(2_000, 300); // warm-up
  const figures: TradeSweepFigure[] = [];
  for (const size of SIZES) figures.push(await measureTradeSweepStarts(size, size >= 100_000 ? 200 : 1_000));
  return [
    'Trade sweep start (the newest trade held, the oldest PENDING_SETTLEMENT one): the mirror walked twice against the index kept as it changes',
    '',
    '| trades held at the first start (pending) | sweep starts (each holds one more) | full walk µs (p50 / p90 / p99) | index µs (p50 / p90 / p99) | index upkeep µs per trade stored (p50 / p90 / p99) | index built at the first pass start, ms |',
    '|---|---|---|---|---|---|',
    ...figures.map(
      (f) =>
        `| ${f.trades.toLocaleString('en')} (${f.pending.toLocaleString('en')}) | ${f.walk.length} | ${percentiles(f.walk, 0)} | ` +
        `${percentiles(f.index, 2)} | ${percentiles(f.upkeep, 2)} | ${f.buildMs.toFixed(0)} |`,
    ),
  ].join('\n');
}
