/**
 * Per-strategy positions derived from fills: net amount per currency (a BUY of BASE.QUOTE adds the base
 * amount and takes away the quote amount; a SELL the reverse), kept in KV (`position.<strategyId>`) and
 * updated by compare-and-set. Each order is applied once: the record remembers the last orders applied,
 * so an order resumed after a crash between its fill and its close is not counted twice. A fill the venue undid
 * later (its trade CANCELLED or FAILED) is taken back once too, remembered as `undone:<orderId>`.
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

  apply(strategyId: string, orderId: string, side: 'BUY' | 'SELL', fill: OrderFill): Promise<'applied' | 'already'> {
    return this.change(strategyId, orderId, (current) => applyFill(current, side, fill, this.now()));
  }

  /** Takes back the fill of an order the venue undid (the opposite of `apply`), once. */
  undo(strategyId: string, orderId: string, side: 'BUY' | 'SELL', fill: OrderFill): Promise<'applied' | 'already'> {
    return this.change(strategyId, `undone:${orderId}`, (current) => undoFill(current, side, fill, this.now()));
  }

  private async change(
    strategyId: string,
    orderId: string,
    next: (current: StoredPositions) => StoredPositions,
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
      const changed = next(current);
      changed.applied = [...current.applied, orderId].slice(-REMEMBERED);
      try {
        if (entry === undefined) {
          if ((await this.bucket.createIfAbsent(key, changed)) === 'created') return 'applied';
        } else {
          await this.bucket.update(key, changed, entry.revision);
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
  return { ...moved(current, side === 'BUY' ? 1 : -1, fill, now), fills: current.fills + 1 };
}

/** The positions after a fill the venue undid is taken back: the fill's movement reversed, counted as undone. */
export function undoFill(
  current: StrategyPositions & { applied: string[] },
  side: 'BUY' | 'SELL',
  fill: OrderFill,
  now: number,
): StoredPositions {
  return { ...moved(current, side === 'BUY' ? -1 : 1, fill, now), undoneFills: (current.undoneFills ?? 0) + 1 };
}

/** The positions moved by a fill's amounts: `sign` 1 as bought (+base, −quote), −1 as sold. */
function moved(
  current: StrategyPositions & { applied: string[] },
  sign: 1 | -1,
  fill: OrderFill,
  now: number,
): StoredPositions {
  const positions = { ...current.positions };
  const add = (currency: string, amount: string, direction: number): void => {
    const before = parseDecimal(positions[currency] ?? '0');
    const delta = parseDecimal(amount).times(direction);
    positions[currency] = toPlain(before.plus(delta));
  };
  add(fill.baseCurrency, fill.baseAmount, sign);
  add(fill.quoteCurrency, fill.quoteAmount, -sign);
  return { ...current, positions, updatedAt: now };
}
