/**
 * Where a trade sweep pass starts (list-walks.ts `sweepWindowStart`): the newest trade held and the oldest one
 * still PENDING_SETTLEMENT, by `createdAt`, kept as the trade mirror's records change (StateMirror.watch) rather
 * than found by walking every trade held at each pass start. The pending ones are the records of an OldestPending
 * (oldest-pending.ts); the newest is a running maximum, walked again only when the trade that held it is dropped
 * or restated older (trades keep their `createdAt` and are never removed but by a reload: in practice never). A
 * pass start costs O(1) amortised; a change O(log p) for p pending. Pure: no I/O.
 */
import type { Trade } from '#venue-api';
import { parseVenueDateTime } from '#venue-api';
import { mapIterable, timeSpan } from './list-walks.js';
import { OldestPending } from './oldest-pending.js';

/** What a sweep pass starts from (epoch ms): the newest trade held, the oldest pending one. */
export interface HeldSpan {
  newestHeld: number | undefined;
  oldestPending: number | undefined;
}

/** A trade's `createdAt` as epoch ms (no zone = UTC, spec-gaps C9); undefined when it does not parse. */
export function createdAtOf(trade: { createdAt?: string }): number | undefined {
  const at = trade.createdAt === undefined ? NaN : parseVenueDateTime(trade.createdAt);
  return Number.isNaN(at) ? undefined : at;
}

export class HeldTradeSpan {
  private readonly pending = new OldestPending();
  /** `createdAt` of the newest trade held (undefined: none has one), while `newestKnown`. */
  private newest: number | undefined;
  /** False once the trade at `newest` was dropped or restated older: the next `span` walks the trades again. */
  private newestKnown = true;

  /** `trades`: the trades held now (walked only when the newest one left). */
  constructor(private readonly trades: () => Iterable<Trade>) {}

  /** The mirror's change of one trade (StateMirror's watcher): `value` undefined when it is no longer held. */
  held(key: string, previous: Trade | undefined, value: Trade | undefined): void {
    const at = value === undefined ? undefined : createdAtOf(value);
    if (value?.state === 'PENDING_SETTLEMENT' && at !== undefined) this.pending.pending(key, at);
    else this.pending.settled(key);
    if (!this.newestKnown) return;
    if (at !== undefined && (this.newest === undefined || at >= this.newest)) {
      this.newest = at;
      return;
    }
    if (previous !== undefined && this.newest !== undefined && createdAtOf(previous) === this.newest) {
      this.newestKnown = false; // the newest may have left (another trade may share its time: walked to know)
    }
  }

  /** Where the next pass starts from, as the walk of every trade held would say (held-trade-span.spec.ts). */
  span(): HeldSpan {
    if (!this.newestKnown) {
      this.newest = timeSpan(mapIterable(this.trades(), createdAtOf)).newest;
      this.newestKnown = true;
    }
    return { newestHeld: this.newest, oldestPending: this.pending.oldest() };
  }

  /** Trades pending now. */
  get pendingCount(): number {
    return this.pending.size;
  }
}
