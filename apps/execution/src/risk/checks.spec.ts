import { describe, expect, it } from '@jest/globals';
import type { RiskLimitsFile } from '#contracts';
import { FakeClock } from '#testing';
import { decide } from './checks.js';
import { parseLimitSet, withOverride } from './limits.js';
import { RiskBook } from './risk-book.js';
import { RiskEngine } from './risk-engine.js';
import type { RiskDecision, RiskOrder } from './risk-gate.js';
import { entry, limits, order, states, T0 } from './testing/risk-fixtures.js';
import type { TradingStates } from './trading-states.js';

/** One order decided on an empty book. */
function single(
  o: RiskOrder,
  file: RiskLimitsFile = {},
  now = T0,
  tradingStates: TradingStates = states(),
): RiskDecision {
  return decide(o, { book: new RiskBook(), limits: limits(file), states: tradingStates, now }).decision;
}

/** An engine on a fake clock: `admit` decides at the clock's time. */
function engineWith(file: RiskLimitsFile, tradingStates: TradingStates = states()) {
  const clock = new FakeClock(T0);
  const engine = new RiskEngine(limits(file), { clock }, tradingStates);
  return { clock, engine, admit: (o: RiskOrder = order()) => engine.admit(o, clock.now()) };
}

describe('quote checks', () => {
  it.each([
    ['stale', 'QUOTE_STALE'],
    ['stopped', 'QUOTE_NOT_LIVE'],
    ['unknown', 'QUOTE_UNKNOWN'],
  ] as const)('a quote whose stream is %s is refused with %s (even without its amounts)', (status, code) => {
    expect(single(order({}, { status }))).toMatchObject({ ok: false, code, values: { quoteId: expect.any(String) } });
    const bare = order({}, { status, price: undefined, quantity: undefined, quoteAmount: undefined });
    expect(single(bare)).toMatchObject({ ok: false, code });
  });

  it('refuses an expired quote at its expiry, with the times', () => {
    const o = order();
    expect(single(o, {}, T0 + 599_999)).toEqual({ ok: true });
    expect(single(o, {}, T0 + 600_000)).toMatchObject({
      ok: false,
      code: 'QUOTE_EXPIRED',
      values: { quoteExpiresAt: new Date(T0 + 600_000).toISOString(), now: new Date(T0 + 600_000).toISOString() },
    });
  });

  it('a quote seen and past its life (its amounts forgotten) is refused QUOTE_EXPIRED, not QUOTE_UNKNOWN (t3 F1)', () => {
    const bare = order(
      {},
      { status: 'expired', quoteExpiresAt: T0 - 1_000, price: undefined, quantity: undefined, quoteAmount: undefined },
    );
    expect(single(bare)).toMatchObject({
      ok: false,
      code: 'QUOTE_EXPIRED',
      values: { quoteExpiresAt: new Date(T0 - 1_000).toISOString(), now: new Date(T0).toISOString() },
    });
  });

  it('takes the expiry as ten minutes after the venue timestamp when the order side does not give it', () => {
    const o = order({}, { quoteExpiresAt: undefined });
    expect(single(o, {}, T0 + 599_999).ok).toBe(true);
    expect(single(o, {}, T0 + 600_000)).toMatchObject({ code: 'QUOTE_EXPIRED' });
  });

  it('refuses a quote lacking the amounts the checks need, naming them', () => {
    const o = order(
      {},
      { quantity: undefined, quoteAmount: '12,5', quoteExpiresAt: undefined, venueTimestamp: undefined },
    );
    expect(single(o)).toMatchObject({
      code: 'QUOTE_INCOMPLETE',
      values: { missing: 'quantity,quoteAmount,quoteExpiresAt' },
    });
  });

  it('refuses a quote older than the scope allows (maxQuoteAgeMs)', () => {
    const file = { accountGroups: { g1: { maxQuoteAgeMs: 2_000 } } };
    expect(single(order(), file, T0 + 2_000).ok).toBe(true);
    expect(single(order(), file, T0 + 2_001)).toMatchObject({
      code: 'QUOTE_STALE',
      values: { ageMs: '2001', limitMs: '2000', scope: 'accountGroup', scopeId: 'g1' },
    });
  });

  it('§2.2 rule 4: orders on one quote together take at most its quantity, in-flight ones counted', async () => {
    const { admit, engine } = engineWith({});
    const first = order({}, { quoteId: 'shared' });
    expect(await admit(first)).toEqual({ ok: true });
    expect(await admit(order({}, { quoteId: 'shared' }))).toMatchObject({
      code: 'QUOTE_SIZE_EXHAUSTED',
      values: { quoteId: 'shared', quoted: '1', used: '1', requested: '1' },
    });
    // the first order did not execute: its quantity is free again
    engine.record({ kind: 'not-executed', orderId: first.orderId });
    expect(await admit(order({ side: 'SELL' }, { quoteId: 'shared' }))).toEqual({ ok: true });
  });
});

describe('worst price', () => {
  it('BUY: the price must not be above the worst price', () => {
    expect(single(order({ worstPrice: '50000' })).ok).toBe(true);
    expect(single(order({ worstPrice: '49999.99' }))).toMatchObject({
      code: 'PRICE_WORSE_THAN_LIMIT',
      values: { side: 'BUY', price: '50000', worstPrice: '49999.99' },
    });
  });

  it('SELL: the price must not be below the worst price (decimals exact, scientific notation too)', () => {
    expect(single(order({ side: 'SELL', worstPrice: '5e4' })).ok).toBe(true);
    expect(single(order({ side: 'SELL', worstPrice: '50000.00000000000000000001' }))).toMatchObject({
      code: 'PRICE_WORSE_THAN_LIMIT',
      values: { side: 'SELL', price: '50000', worstPrice: '50000.00000000000000000001' },
    });
  });
});

describe('limits', () => {
  it('instrument allow-list, per scope', () => {
    const file = { strategies: { alpha: { allowedInstruments: ['ETH.USD'] } } };
    expect(single(order(), file)).toMatchObject({
      code: 'RISK_INSTRUMENT_NOT_ALLOWED',
      values: { instrument: 'BTC.USD', scope: 'strategy', scopeId: 'alpha' },
    });
    expect(single(order({ instrument: 'ETH.USD' }), file).ok).toBe(true);
    expect(single(order({ strategyId: 'beta' }), file).ok).toBe(true);
  });

  it('notional per order, in the quote currency, per currency', () => {
    const file = { global: { maxNotionalPerOrder: { USD: '49999', EUR: '1' } } };
    expect(single(order(), file)).toMatchObject({
      code: 'RISK_NOTIONAL_EXCEEDS_MAX_PER_ORDER',
      values: { notional: '50000', limit: '49999', currency: 'USD', scope: 'global' },
    });
    expect(single(order(), { global: { maxNotionalPerOrder: { USD: '5e4' } } }).ok).toBe(true);
    // a currency without a limit is not limited
    expect(single(order({ instrument: 'BTC.GBP' }), file).ok).toBe(true);
  });

  it('notional per rolling minute: orders not executed no longer count', async () => {
    const { admit, clock, engine } = engineWith({ accountGroups: { g1: { maxNotionalPerMinute: { USD: '120000' } } } });
    expect(await admit()).toEqual({ ok: true });
    clock.advance(30_000);
    const second = order();
    expect(await admit(second)).toEqual({ ok: true });
    expect(await admit()).toMatchObject({
      code: 'RISK_NOTIONAL_EXCEEDS_MAX_PER_MINUTE',
      values: {
        notional: '50000',
        lastMinute: '100000',
        limit: '120000',
        currency: 'USD',
        scope: 'accountGroup',
        scopeId: 'g1',
      },
    });
    engine.record({ kind: 'not-executed', orderId: second.orderId });
    expect(await admit()).toEqual({ ok: true });
    expect(await admit()).toMatchObject({ code: 'RISK_NOTIONAL_EXCEEDS_MAX_PER_MINUTE' });
    clock.advance(30_000); // the first order leaves the window
    expect(await admit()).toEqual({ ok: true });
  });

  it('order rate per second and per minute (every admitted order counts)', async () => {
    const { admit, clock } = engineWith({ strategies: { alpha: { maxOrdersPerSecond: 2, maxOrdersPerMinute: 3 } } });
    expect(await admit()).toEqual({ ok: true });
    expect(await admit()).toEqual({ ok: true });
    expect(await admit()).toMatchObject({
      code: 'RISK_ORDER_RATE_EXCEEDS_MAX_PER_SECOND',
      values: { orders: '2', limit: '2', scope: 'strategy', scopeId: 'alpha' },
    });
    clock.advance(1_000);
    expect(await admit()).toEqual({ ok: true });
    clock.advance(1_000);
    expect(await admit()).toMatchObject({
      code: 'RISK_ORDER_RATE_EXCEEDS_MAX_PER_MINUTE',
      values: { orders: '3', limit: '3' },
    });
    clock.advance(58_001);
    expect(await admit()).toEqual({ ok: true });
    // another strategy has its own count
    expect(await admit(order({ strategyId: 'beta' }))).toEqual({ ok: true });
  });

  it('open exposure per currency counts in-flight and unknown orders as filled, in base and quote currency', async () => {
    const { admit, engine } = engineWith({ accountGroups: { g1: { maxOpenExposure: { USD: '120000' } } } });
    const a = order();
    const b = order();
    expect(await admit(a)).toEqual({ ok: true });
    expect(await admit(b)).toEqual({ ok: true });
    engine.record({ kind: 'unknown', orderId: a.orderId });
    expect(await admit()).toMatchObject({
      code: 'RISK_EXPOSURE_EXCEEDS_MAX_OPEN',
      values: {
        currency: 'USD',
        exposure: '100000',
        exposureAfter: '150000',
        limit: '120000',
        scope: 'accountGroup',
        scopeId: 'g1',
      },
    });
    // a fill at a better amount than quoted is what counts once known
    engine.record({ kind: 'filled', orderId: a.orderId, baseAmount: '1', quoteAmount: '10000', price: '10000' });
    expect(await admit()).toEqual({ ok: true });
  });

  it('an order that reduces an exposure already above a lowered limit passes; one that adds does not', async () => {
    const { admit, engine } = engineWith({});
    const a = order();
    await admit(a);
    engine.record({ kind: 'filled', orderId: a.orderId, baseAmount: '1', quoteAmount: '50000', price: '50000' });
    engine.limitsChanged('strategy:alpha', parseLimitSet({ maxOpenExposure: { BTC: '0.5' } }));
    expect(await admit()).toMatchObject({
      code: 'RISK_EXPOSURE_EXCEEDS_MAX_OPEN',
      values: { currency: 'BTC', exposure: '1' },
    });
    expect(await admit(order({ side: 'SELL' }))).toEqual({ ok: true });
  });

  it('an order that opens the other side is checked on that side: a SELL beside an unknown BUY above a lowered limit', async () => {
    const { admit, engine } = engineWith({});
    const a = order(); // BUY 1 BTC, outcome unknown: filled or not, both count
    await admit(a);
    engine.record({ kind: 'unknown', orderId: a.orderId });
    engine.limitsChanged('strategy:alpha', parseLimitSet({ maxOpenExposure: { BTC: '0.5' } }));
    // if the BUY did not execute, this SELL leaves -1 BTC against a limit of 0.5
    expect(await admit(order({ side: 'SELL' }))).toMatchObject({
      code: 'RISK_EXPOSURE_EXCEEDS_MAX_OPEN',
      values: { currency: 'BTC', exposure: '0', exposureAfter: '1', limit: '0.5' },
    });
  });

  it('defaults apply to an unlisted strategy; refuseUnlisted refuses it', () => {
    const defaults = { defaults: { strategy: { maxNotionalPerOrder: { USD: '10' } } } };
    expect(single(order({ strategyId: 'new' }), defaults)).toMatchObject({
      code: 'RISK_NOTIONAL_EXCEEDS_MAX_PER_ORDER',
    });
    expect(single(order({ strategyId: 'new' }), { refuseUnlisted: true, accountGroups: { g1: {} } })).toMatchObject({
      code: 'RISK_STRATEGY_NOT_CONFIGURED',
      values: { scope: 'strategy', scopeId: 'new' },
    });
    expect(single(order(), { refuseUnlisted: true, strategies: { alpha: {} } })).toMatchObject({
      code: 'RISK_ACCOUNT_GROUP_NOT_CONFIGURED',
      values: { scopeId: 'g1' },
    });
  });

  it('a run-time override replaces the file entry; an override that does not validate refuses its scope', () => {
    const config = withOverride(
      limits({ strategies: { alpha: { maxNotionalPerOrder: { USD: '1' } } } }),
      'strategy:alpha',
      parseLimitSet({}),
    );
    expect(decide(order(), { book: new RiskBook(), limits: config, states: states(), now: T0 }).decision).toEqual({
      ok: true,
    });
    const broken = withOverride(config, 'strategy:alpha', 'invalid');
    expect(decide(order(), { book: new RiskBook(), limits: broken, states: states(), now: T0 }).decision).toMatchObject(
      {
        code: 'RISK_LIMITS_INVALID',
      },
    );
  });

  it('refuses an instrument that is not BASE.QUOTE', () => {
    expect(single(order({ instrument: 'BTCUSD' }))).toMatchObject({ code: 'RISK_INSTRUMENT_INVALID' });
  });
});

describe('trading states', () => {
  it('HALTED at any scope refuses, naming the scope, who and why; the most severe scope wins', () => {
    expect(single(order(), {}, T0, states(entry('accountGroup', 'HALTED', 'g1')))).toMatchObject({
      code: 'TRADING_HALTED',
      values: { scope: 'accountGroup', scopeId: 'g1', by: 'ops', reason: 'test' },
    });
    expect(
      single(order(), {}, T0, states(entry('strategy', 'REDUCING', 'alpha'), entry('global', 'HALTED'))),
    ).toMatchObject({
      code: 'TRADING_HALTED',
      values: { scope: 'global' },
    });
    expect(single(order({ accountGroup: 'g2' }), {}, T0, states(entry('accountGroup', 'HALTED', 'g1'))).ok).toBe(true);
  });

  it("an account group's UUID matches in any case (RFC 4122): a halt set for 9A00… stops orders of 9a00…", () => {
    const upper = '9A000000-0000-4000-8000-00000000000A';
    const lower = upper.toLowerCase();
    expect(
      single(order({ accountGroup: lower }), {}, T0, states(entry('accountGroup', 'HALTED', upper))),
    ).toMatchObject({ code: 'TRADING_HALTED', values: { scope: 'accountGroup' } });
    expect(
      single(order({ accountGroup: upper }), {}, T0, states(entry('accountGroup', 'HALTED', lower))),
    ).toMatchObject({ code: 'TRADING_HALTED' });
    // strategy ids are names: case matters
    expect(single(order({ strategyId: 'Alpha' }), {}, T0, states(entry('strategy', 'HALTED', 'alpha'))).ok).toBe(true);
  });

  it('a halt refuses before any other check', () => {
    expect(single(order({}, { status: 'stopped' }), {}, T0, states(entry('global', 'HALTED')))).toMatchObject({
      code: 'TRADING_HALTED',
    });
  });

  it('REDUCING: with no position nothing reduces; an order towards zero passes; one crossing zero does not', async () => {
    const { admit, engine } = engineWith({}, states(entry('strategy', 'REDUCING', 'alpha')));
    expect(await admit()).toMatchObject({
      code: 'TRADING_REDUCING_ONLY',
      values: { scope: 'strategy', scopeId: 'alpha', currency: 'BTC', position: '0', positionAfter: '1' },
    });
    // build a long position of 2 BTC while ACTIVE
    engine.stateStored(entry('strategy', 'ACTIVE', 'alpha', 2));
    const long = order({}, { quantity: '2', quoteAmount: '100000' });
    await admit(long);
    engine.record({ kind: 'filled', orderId: long.orderId, baseAmount: '2', quoteAmount: '100000', price: '50000' });
    engine.stateStored(entry('strategy', 'REDUCING', 'alpha', 3));
    expect(await admit()).toMatchObject({
      code: 'TRADING_REDUCING_ONLY',
      values: { position: '2', positionAfter: '3' },
    });
    expect(await admit(order({ side: 'SELL' }, { quantity: '3', quoteAmount: '150000' }))).toMatchObject({
      code: 'TRADING_REDUCING_ONLY',
      values: { position: '2', positionAfter: '-1' },
    });
    expect(await admit(order({ side: 'SELL' }))).toEqual({ ok: true });
    // the in-flight SELL counts as filled: a second SELL of 1 reaches zero exactly, a third would cross
    expect(await admit(order({ side: 'SELL' }))).toEqual({ ok: true });
    expect(await admit(order({ side: 'SELL' }))).toMatchObject({
      code: 'TRADING_REDUCING_ONLY',
      values: { position: '0' },
    });
  });

  it('REDUCING of an account group judges the group position, of global the global one', async () => {
    const { admit, engine } = engineWith({});
    const beta = order({ strategyId: 'beta', side: 'SELL' });
    await admit(beta);
    engine.record({ kind: 'filled', orderId: beta.orderId, baseAmount: '1', quoteAmount: '50000', price: '50000' });
    engine.stateStored(entry('accountGroup', 'REDUCING', 'g1'));
    // alpha has no position, but the group is short 1 BTC: alpha's BUY reduces the group's position
    expect(await admit(order({ strategyId: 'alpha' }))).toEqual({ ok: true });
    engine.stateStored(entry('global', 'REDUCING'));
    expect(await admit(order({ strategyId: 'alpha', accountGroup: 'g2' }))).toMatchObject({
      code: 'TRADING_REDUCING_ONLY',
      values: { scope: 'global', position: '0' },
    });
  });
});
