/**
 * Where a trade sweep pass started before the index (held-trade-span.ts): every trade held walked twice, the
 * newest `createdAt` of all and the oldest of the PENDING_SETTLEMENT ones — kept as the oracle of the unit test
 * and the bench (bench/balance-check.ts).
 */
import type { Trade } from '#venue-api';
import { createdAtOf, type HeldSpan } from '../held-trade-span.js';
import { mapIterable, timeSpan } from '../list-walks.js';

export function heldTradeSpanByWalk(trades: () => Iterable<Trade>): HeldSpan {
  const held = timeSpan(mapIterable(trades(), createdAtOf));
  const pending = timeSpan(
    mapIterable(trades(), (trade) => (trade.state === 'PENDING_SETTLEMENT' ? createdAtOf(trade) : undefined)),
  );
  return { newestHeld: held.newest, oldestPending: pending.oldest };
}
