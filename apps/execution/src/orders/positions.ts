/**
 * Per-strategy positions derived from fills: net amount per currency (a BUY of BASE.QUOTE adds the base
 * amount and takes away the quote amount; a SELL the reverse), kept in KV (`position.<strategyId>`) and
 * updated by compare-and-set. Each order is applied once: the record remembers the last orders applied,
 * so an order resumed after a crash between its fill and its close is not counted twice.
 */
import type { KvBucket } from '#bus';
import type { OrderFill, StrategyPositions } from '#contracts';
import { parseDecimal, toPlain } from '#venue-api';

interface StoredPositions extends StrategyPositions {
  /** The last orders applied (newest last), to apply each once. */
  applied: string[];
}

const REMEMBERED = 1_000;
const ATTEMPTS = 20;

export class Positions {
  constructor(
    private readonly bucket: KvBucket,
    private readonly now: () => number,
  ) {}

  async apply(
    strategyId: string,
    orderId: string,
    side: 'BUY' | 'SELL',
    fill: OrderFill,
  ): Promise<'applied' | 'already'> {
    const key = `position.${strategyId}`;
    for (let attempt = 0; attempt < ATTEMPTS; attempt += 1) {
      const entry = await this.bucket.get<StoredPositions>(key);
      const current: StoredPositions = entry?.value ?? {
        strategyId,
        positions: {},
        fills: 0,
        updatedAt: 0,
        applied: [],
      };
      if (current.applied.includes(orderId)) return 'already';
      const next = applyFill(current, side, fill, this.now());
      next.applied = [...current.applied, orderId].slice(-REMEMBERED);
      try {
        if (entry === undefined) {
          if ((await this.bucket.createIfAbsent(key, next)) === 'created') return 'applied';
        } else {
          await this.bucket.update(key, next, entry.revision);
          return 'applied';
        }
      } catch {
        // another instance applied a fill of the same strategy in between: read again
      }
    }
    throw new Error(`position of ${strategyId} could not be updated (contention)`);
  }

  async of(strategyId: string): Promise<StrategyPositions> {
    const entry = await this.bucket.get<StoredPositions>(`position.${strategyId}`);
    if (entry === undefined) return { strategyId, positions: {}, fills: 0, updatedAt: 0 };
    const { applied: _applied, ...positions } = entry.value;
    return positions;
  }
}

/** The pure part: the positions after one fill. */
export function applyFill(
  current: StrategyPositions & { applied: string[] },
  side: 'BUY' | 'SELL',
  fill: OrderFill,
  now: number,
): StoredPositions {
  const positions = { ...current.positions };
  const sign = side === 'BUY' ? 1 : -1;
  const add = (currency: string, amount: string, direction: number): void => {
    const before = parseDecimal(positions[currency] ?? '0');
    const delta = parseDecimal(amount).times(direction);
    positions[currency] = toPlain(before.plus(delta));
  };
  add(fill.baseCurrency, fill.baseAmount, sign);
  add(fill.quoteCurrency, fill.quoteAmount, -sign);
  return {
    strategyId: current.strategyId,
    positions,
    fills: current.fills + 1,
    updatedAt: now,
    applied: current.applied,
  };
}
