import { describe, expect, it } from '@jest/globals';
import type { RiskLimitOverride, TradingStateEntry } from '#contracts';
import { restorationAfterLoss, restoredReason, RESTORED_BY } from './store-loss.js';

const AT = '2026-03-02T10:00:00.000Z';

function entry(overrides: Partial<TradingStateEntry>): TradingStateEntry {
  return {
    scope: 'global',
    state: 'HALTED',
    by: 'alice',
    reason: 'drill',
    at: '2026-03-02T09:00:00.000Z',
    revision: 7,
    ...overrides,
  };
}

const override: RiskLimitOverride = {
  scope: 'strategy',
  id: 'alpha',
  limits: { maxOrdersPerMinute: 3, maxNotionalPerOrder: { USD: '1000.50' } },
  by: 'carol',
  reason: 'tighter for the day',
  at: '2026-03-02T08:00:00.000Z',
  revision: 3,
};

describe('risk: what is written back when the trading-state store was lost', () => {
  it('a global HALT known before the loss is written back, attributed to the gateway, saying who set it and why', () => {
    expect(restorationAfterLoss({ states: [entry({})], overrides: [] }, AT)).toEqual({
      states: [
        {
          scope: 'global',
          state: 'HALTED',
          by: RESTORED_BY,
          reason: 'restored after the NATS store was lost; set by alice at 2026-03-02T09:00:00.000Z: drill',
          at: AT,
        },
      ],
      limits: [],
    });
  });

  it('every HALTED and REDUCING scope, most severe and widest first; an ACTIVE one is not written (absent reads ACTIVE)', () => {
    const known = [
      entry({ scope: 'strategy', id: 'slow', state: 'REDUCING' }),
      entry({ scope: 'strategy', id: 'live', state: 'ACTIVE' }),
      entry({ scope: 'accountGroup', id: 'g1', state: 'HALTED' }),
      entry({ scope: 'global', state: 'REDUCING' }),
      entry({ scope: 'strategy', id: 'bad', state: 'HALTED' }),
    ];
    const { states } = restorationAfterLoss({ states: known, overrides: [] }, AT);
    expect(states.map((s) => [s.scope, s.id, s.state])).toEqual([
      ['accountGroup', 'g1', 'HALTED'],
      ['strategy', 'bad', 'HALTED'],
      ['global', undefined, 'REDUCING'],
      ['strategy', 'slow', 'REDUCING'],
    ]);
    expect(states.every((s) => s.by === RESTORED_BY && s.at === AT)).toBe(true);
  });

  it('limit overrides are written back as they were (decimal strings untouched)', () => {
    expect(restorationAfterLoss({ states: [], overrides: [override] }, AT).limits).toEqual([
      {
        scope: 'strategy',
        id: 'alpha',
        limits: { maxOrdersPerMinute: 3, maxNotionalPerOrder: { USD: '1000.50' } },
        by: RESTORED_BY,
        reason: 'restored after the NATS store was lost; set by carol at 2026-03-02T08:00:00.000Z: tighter for the day',
        at: AT,
      },
    ]);
  });

  it('nothing known (a first start, or a process started while the store was gone): nothing written, scopes read ACTIVE', () => {
    expect(restorationAfterLoss({ states: [], overrides: [] }, AT)).toEqual({ states: [], limits: [] });
    expect(restorationAfterLoss({ states: [entry({ state: 'ACTIVE' })], overrides: [] }, AT).states).toEqual([]);
  });

  it('the reason stays within the contract’s 1024 characters, an unknown author or time said so', () => {
    const long = restoredReason({ by: 'bob', at: AT, reason: 'x'.repeat(2_000) });
    expect(long).toHaveLength(1024);
    expect(long.endsWith('…')).toBe(true);
    expect(restoredReason({ by: '', at: '', reason: 'hand-written' })).toBe(
      'restored after the NATS store was lost; set by unknown at unknown: hand-written',
    );
  });
});
