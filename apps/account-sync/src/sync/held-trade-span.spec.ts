import { describe, expect, it } from '@jest/globals';
import { AccountSyncSubjects, Subjects } from '#contracts';
import type { Trade } from '#venue-api';
import { HeldTradeSpan } from './held-trade-span.js';
import { sweepWindowStart } from './list-walks.js';
import { StateMirror, type MirrorStore } from './state-mirror.js';
import { heldTradeSpanByWalk } from './testing/trade-span-full-walk.js';

const T0 = Date.UTC(2026, 0, 1);

/** A KV bucket in memory (the mirror's port), surviving reloads of the mirror. */
class MemoryStore implements MirrorStore {
  readonly entries = new Map<string, unknown>();
  values<T>(): Promise<Map<string, T>> {
    return Promise.resolve(new Map(this.entries) as Map<string, T>);
  }
  put(key: string, value: unknown): Promise<void> {
    this.entries.set(key, structuredClone(value));
    return Promise.resolve();
  }
}

const subjects = new AccountSyncSubjects(new Subjects('gw.v1', 'a1'));

/** A trade mirror (stream: takes everything) and the index watching it, as TradeReads builds it. */
function watched(store = new MemoryStore()) {
  const mirror = new StateMirror<Trade>(store, () => Promise.resolve(), subjects, {
    resource: 'trade',
    stateOf: (trade) => trade.state,
  });
  let walks = 0;
  const index = new HeldTradeSpan(() => {
    walks += 1;
    return mirror.iterate();
  });
  mirror.watch((key, previous, value) => index.held(key, previous, value));
  const hold = (...trades: Trade[]) => mirror.apply(new Map(trades.map((trade) => [trade.uuid, trade])));
  return { mirror, index, hold, store, walks: () => walks };
}

function trade(id: string, at: number | string | undefined, state: Trade['state']): Trade {
  const createdAt = typeof at === 'number' ? new Date(T0 + at * 1_000).toISOString() : at;
  return { uuid: id, ...(createdAt === undefined ? {} : { createdAt }), ...(state === undefined ? {} : { state }) };
}

const at = (seconds: number) => T0 + seconds * 1_000;

describe('HeldTradeSpan: where a trade sweep pass starts, kept as the trade mirror changes', () => {
  it('the newest trade held and the oldest pending, whatever order they arrive in', async () => {
    const { index, hold, walks } = watched();
    expect(index.span()).toEqual({ newestHeld: undefined, oldestPending: undefined });
    await hold(trade('b', 20, 'PENDING_SETTLEMENT'), trade('c', 30, 'SETTLED'));
    await hold(trade('a', 10, 'PENDING_SETTLEMENT')); // an older one read late (the list is newest first)
    expect(index.span()).toEqual({ newestHeld: at(30), oldestPending: at(10) });
    await hold(trade('a', 10, 'SETTLED'), trade('d', 40, 'CANCELLED'));
    expect(index.span()).toEqual({ newestHeld: at(40), oldestPending: at(20) });
    await hold(trade('b', 20, 'FAILED'));
    expect(index.span()).toEqual({ newestHeld: at(40), oldestPending: undefined });
    expect(walks()).toBe(0); // trades only arriving and settling: no pass start walked them
  });

  it('a trade without a time (or one that does not parse) is neither the newest nor pending, as the walk said', async () => {
    const { index, hold } = watched();
    await hold(trade('a', undefined, 'PENDING_SETTLEMENT'), trade('b', 'yesterday', 'PENDING_SETTLEMENT'));
    expect(index.span()).toEqual({ newestHeld: undefined, oldestPending: undefined });
    await hold(trade('c', '2026-01-01T00:00:05', 'PENDING_SETTLEMENT')); // no zone: UTC (spec-gaps C9)
    expect(index.span()).toEqual({ newestHeld: at(5), oldestPending: at(5) });
    await hold(trade('c', 'garbled', 'PENDING_SETTLEMENT'));
    expect(index.span()).toEqual({ newestHeld: undefined, oldestPending: undefined });
  });

  it('the newest trade restated older or removed: the next pass start walks the trades once, then no more', async () => {
    const { mirror, index, hold, walks } = watched();
    await hold(trade('a', 10, 'SETTLED'), trade('b', 30, 'SETTLED'), trade('c', 30, 'SETTLED'));
    await hold(trade('b', 5, 'SETTLED')); // another trade still at 30
    expect(index.span().newestHeld).toBe(at(30));
    await mirror.apply(new Map(), (key) => key === 'c'); // removed at the venue
    expect(index.span().newestHeld).toBe(at(10));
    expect(walks()).toBe(2);
    expect(index.span().newestHeld).toBe(at(10));
    await hold(trade('a', 10, 'PENDING_SETTLEMENT'));
    expect(index.span()).toEqual({ newestHeld: at(10), oldestPending: at(10) });
    expect(walks()).toBe(2);
  });

  it('restart: a mirror loaded from its bucket tells its new watcher every trade; a reload replaces them', async () => {
    const first = watched();
    for (let i = 0; i < 300; i += 1)
      await first.hold(trade(`t-${i}`, i, i % 7 === 3 ? 'PENDING_SETTLEMENT' : 'SETTLED'));
    const restarted = new StateMirror<Trade>(first.store, () => Promise.resolve(), subjects, { resource: 'trade' });
    await restarted.load();
    const index = new HeldTradeSpan(() => restarted.iterate());
    restarted.watch((key, previous, value) => index.held(key, previous, value));
    expect(index.span()).toEqual({ newestHeld: at(299), oldestPending: at(3) });
    expect(index.span()).toEqual(first.index.span());
    first.store.entries.delete('t-3'); // the bucket changed under a reload (another writer, or a lost put)
    first.store.entries.set('t-299', { version: 9, seenAt: 0, value: trade('t-299', 1, 'PENDING_SETTLEMENT') });
    await restarted.load();
    expect(index.span()).toEqual({ newestHeld: at(298), oldestPending: at(1) });
    const pending = [...restarted.iterate()].filter((held) => held.state === 'PENDING_SETTLEMENT');
    expect(index.pendingCount).toBe(pending.length);
  });

  it('agrees with the old walk of every trade held, and so starts the same window, after every change of long random histories', async () => {
    let seed = 23;
    const random = () => (seed = (seed * 48271) % 2147483647) / 2147483647;
    const int = (below: number) => Math.floor(random() * below);
    const states: Array<Trade['state']> = [
      'PENDING_SETTLEMENT',
      'PENDING_SETTLEMENT',
      'SETTLED',
      'CANCELLED',
      'FAILED',
      undefined,
    ];
    for (const ids of [4, 40, 400]) {
      const { mirror, index, hold, store } = watched();
      let pendingSeen = 0;
      for (let step = 0; step < 6_000; step += 1) {
        const id = `t-${int(ids)}`;
        const roll = random();
        if (roll < 0.03)
          await mirror.apply(new Map(), (key) => key === id); // removed
        else if (roll < 0.04) {
          // the bucket changed under a reload: one trade rewritten, one dropped
          store.entries.set(id, { version: 1, seenAt: 0, value: trade(id, int(1_000), 'PENDING_SETTLEMENT') });
          store.entries.delete(`t-${int(ids)}`);
          await mirror.load();
        } else {
          const time = roll < 0.08 ? undefined : roll < 0.1 ? 'not a time' : int(1_000);
          await hold(trade(id, time, states[int(states.length)]));
        }
        const walked = heldTradeSpanByWalk(() => mirror.iterate());
        const span = index.span();
        if (span.newestHeld !== walked.newestHeld || span.oldestPending !== walked.oldestPending)
          expect({ ids, step, ...span }).toEqual({ ids, step, ...walked });
        const start = (s: typeof span) => sweepWindowStart(s.newestHeld, s.oldestPending, 60_000);
        if (start(span) !== start(walked))
          expect({ ids, step, start: start(span) }).toEqual({ ids, step, start: start(walked) });
        if (walked.oldestPending !== undefined) pendingSeen += 1;
      }
      expect(pendingSeen).toBeGreaterThan(3_000); // not vacuous: mostly something pending
    }
  });
});
