/**
 * Risk's positions per scope (global, strategy, account group) and currency, kept durably in a KV bucket so a
 * restarted instance counts the fills of before (the journal gives back only open orders). The instance that
 * learns of a fill (the order's owner) adds it, by compare-and-set per scope; each key remembers the last
 * orders it applied, so a fill applied again after a crash is not counted twice. Amounts are decimal strings.
 */
import type { KvBucket } from '#bus';
import { Decimal, isParsableDecimal, parseDecimal, toPlain } from '#venue-api';
import type { JsonLogger } from '#observability';
import type { ScopeKey } from './limits.js';

interface StoredPositions {
  scope: ScopeKey;
  positions: Record<string, string>;
  /** The last orders applied (newest last). */
  applied: string[];
}

const REMEMBERED = 1_000;
const ATTEMPTS = 20;

export type Positions = Map<ScopeKey, Map<string, Decimal>>;

/** What the store holds: the positions, and per scope the orders whose fills they hold (the last ones). */
export interface StoredRiskPositions {
  positions: Positions;
  applied: Map<ScopeKey, Set<string>>;
}

export class RiskPositionsStore {
  constructor(
    private readonly openBucket: () => Promise<KvBucket>,
    private readonly logger: JsonLogger,
  ) {}

  /** Every scope's stored positions (a value that does not parse is skipped and said). */
  async load(): Promise<StoredRiskPositions> {
    const bucket = await this.openBucket();
    const result: Positions = new Map();
    const applied = new Map<ScopeKey, Set<string>>();
    for (const key of await bucket.keys('p.>')) {
      const entry = await bucket.get<StoredPositions>(key);
      const stored = entry?.value;
      if (stored === undefined || typeof stored.scope !== 'string' || typeof stored.positions !== 'object') continue;
      const byCurrency = new Map<string, Decimal>();
      for (const [currency, amount] of Object.entries(stored.positions ?? {})) {
        if (isParsableDecimal(amount)) byCurrency.set(currency, parseDecimal(amount));
        else this.logger.warn('a stored risk position does not parse; skipped', { key, currency });
      }
      result.set(stored.scope, byCurrency);
      if (Array.isArray(stored.applied)) applied.set(stored.scope, new Set(stored.applied.map(String)));
    }
    return { positions: result, applied };
  }

  /** Adds one order's fill to each of its scopes, once. */
  async applyFill(scopes: readonly ScopeKey[], orderId: string, deltas: ReadonlyMap<string, Decimal>): Promise<void> {
    const bucket = await this.openBucket();
    for (const scope of scopes) await this.applyTo(bucket, scope, orderId, deltas);
  }

  private async applyTo(
    bucket: KvBucket,
    scope: ScopeKey,
    orderId: string,
    deltas: ReadonlyMap<string, Decimal>,
  ): Promise<void> {
    const key = `p.${Buffer.from(scope).toString('base64url')}`;
    for (let attempt = 0; attempt < ATTEMPTS; attempt += 1) {
      const entry = await bucket.get<StoredPositions>(key);
      const current: StoredPositions = entry?.value ?? { scope, positions: {}, applied: [] };
      if (current.applied.includes(orderId)) return;
      const positions = { ...current.positions };
      for (const [currency, delta] of deltas) {
        const held = positions[currency];
        const base = held !== undefined && isParsableDecimal(held) ? parseDecimal(held) : new Decimal(0);
        positions[currency] = toPlain(base.plus(delta));
      }
      const next: StoredPositions = { scope, positions, applied: [...current.applied, orderId].slice(-REMEMBERED) };
      if ((await bucket.compareAndSet(key, next, entry?.revision ?? 0)) !== 'conflict') return;
    }
    throw new Error(`the position of ${scope} stayed contended for ${ATTEMPTS} attempts`);
  }
}
