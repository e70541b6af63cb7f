import { describe, expect, it } from '@jest/globals';
import { MetricsRegistry } from '#observability';
import { Decimal } from '#venue-api';
import { FakeClock } from '#testing';
import { RiskMetrics } from './risk-metrics.js';
import { RiskEngine, type AdmissionAnswer } from './risk-engine.js';
import { ADMISSION_ATTEMPTS } from './risk-machine.js';
import { entry, limits, order, states, T0 } from './testing/risk-fixtures.js';

describe('RiskEngine (the RiskGate of the order side)', () => {
  it('refuses every order until the trading states have been read (fail closed)', async () => {
    const engine = new RiskEngine(limits(), { clock: new FakeClock(T0) });
    expect(await engine.admit(order(), T0)).toMatchObject({ ok: false, code: 'TRADING_STATE_UNAVAILABLE' });
    engine.storeSnapshot([], []);
    expect(await engine.admit(order(), T0)).toEqual({ ok: true });
    engine.storeReadable(false);
    expect(await engine.admit(order(), T0)).toMatchObject({ ok: false, code: 'TRADING_STATE_UNAVAILABLE' });
  });

  it('two concurrent admits never both use the same headroom', async () => {
    const file = { strategies: { alpha: { maxOpenExposure: { BTC: '1.5' } } } };
    const engine = new RiskEngine(limits(file), { clock: new FakeClock(T0) }, states());
    const [first, second] = await Promise.all([engine.admit(order(), T0), engine.admit(order(), T0)]);
    expect([first.ok, second.ok].sort()).toEqual([false, true]);
    expect(first.ok ? second : first).toMatchObject({
      code: 'RISK_EXPOSURE_EXCEEDS_MAX_OPEN',
      values: { currency: 'BTC', exposure: '1', exposureAfter: '2', limit: '1.5', scope: 'strategy', scopeId: 'alpha' },
    });
  });

  it('frees headroom when an order is known not executed, keeps it for a fill and for an unknown outcome', async () => {
    const file = { strategies: { alpha: { maxOpenExposure: { BTC: '1' } } } };
    const engine = new RiskEngine(limits(file), { clock: new FakeClock(T0) }, states());
    const a = order();
    expect(await engine.admit(a, T0)).toEqual({ ok: true });
    expect((await engine.admit(order(), T0)).ok).toBe(false);
    engine.record({ kind: 'not-executed', orderId: a.orderId });
    const b = order();
    expect(await engine.admit(b, T0)).toEqual({ ok: true });
    engine.record({ kind: 'unknown', orderId: b.orderId });
    expect((await engine.admit(order(), T0)).ok).toBe(false);
    engine.record({ kind: 'filled', orderId: b.orderId, baseAmount: '1', quoteAmount: '50000', price: '50000' });
    expect((await engine.admit(order(), T0)).ok).toBe(false);
    // a SELL reduces the filled long position, so it passes the exposure limit
    expect(await engine.admit(order({ side: 'SELL' }), T0)).toEqual({ ok: true });
  });

  it('a halt fed from the store takes effect for the next order', async () => {
    const engine = new RiskEngine(limits(), { clock: new FakeClock(T0) }, states());
    expect((await engine.admit(order(), T0)).ok).toBe(true);
    engine.stateStored(entry('global', 'HALTED'));
    expect(await engine.admit(order(), T0)).toMatchObject({
      ok: false,
      code: 'TRADING_HALTED',
      values: { scope: 'global', by: 'ops', reason: 'test' },
    });
    engine.stateStored(entry('global', 'ACTIVE', undefined, 2));
    expect((await engine.admit(order(), T0)).ok).toBe(true);
  });

  it('a halt refusal before any quote is sought (haltRefusal) is counted like an admit refusal (outside tester)', async () => {
    const registry = new MetricsRegistry('halt-count', { defaultMetrics: false });
    const metrics = new RiskMetrics(registry);
    const engine = new RiskEngine(limits(), { clock: new FakeClock(T0), metrics }, states());
    expect(engine.haltRefusal(order())).toBeUndefined();
    engine.stateStored(entry('global', 'HALTED'));
    expect(engine.haltRefusal(order())).toMatchObject({ code: 'TRADING_HALTED' });
    const counted = await registry.getSingleMetric('execution_risk_refusals_total')?.get();
    expect(counted?.values.find((v) => v.labels['code'] === 'TRADING_HALTED')?.value).toBe(1);
  });

  it('restores open and unknown orders from the journal beside the durable positions (a restored fill counts once)', async () => {
    const file = { strategies: { alpha: { maxOpenExposure: { BTC: '2' }, maxOrdersPerMinute: 4 } } };
    const engine = new RiskEngine(limits(file), { clock: new FakeClock(T0 + 1_000) }, states());
    // the durable positions already hold the fill of the order restored below as filled
    const filled = order();
    engine.positionsLoaded({
      positions: new Map([['strategy:alpha', new Map([['BTC', new Decimal('1')]])]]),
      applied: new Map(['global', 'strategy:alpha', 'accountGroup:g1'].map((s) => [s, new Set([filled.orderId])])),
    });
    const unknown = order();
    const failed = order();
    engine.restore([
      {
        order: filled,
        admittedAt: T0,
        event: { kind: 'filled', orderId: filled.orderId, baseAmount: '1', quoteAmount: '50000', price: '50000' },
      },
      { order: unknown, admittedAt: T0 + 10, event: { kind: 'unknown', orderId: unknown.orderId } },
      { order: failed, admittedAt: T0 + 20, event: { kind: 'not-executed', orderId: failed.orderId } },
    ]);
    // position 1 (filled) + 1 (unknown counted as filled) = 2: a further BUY exceeds the limit
    expect(await engine.admit(order(), T0 + 1_000)).toMatchObject({
      ok: false,
      code: 'RISK_EXPOSURE_EXCEEDS_MAX_OPEN',
    });
    // three orders in the last minute (the refused one does not count): the fourth passes, the fifth does not
    expect(await engine.admit(order({ side: 'SELL' }), T0 + 1_000)).toEqual({ ok: true });
    expect(await engine.admit(order({ side: 'SELL' }), T0 + 1_000)).toMatchObject({
      ok: false,
      code: 'RISK_ORDER_RATE_EXCEEDS_MAX_PER_MINUTE',
      values: { orders: '4', limit: '4' },
    });
    expect(engine.state.book.open.size).toBe(2);
  });

  it('a restored fill the durable positions lack (crash before it was stored) is counted and stored, in those scopes only', async () => {
    const engine = new RiskEngine(limits(), { clock: new FakeClock(T0 + 1_000) }, states());
    const stored: Array<{ orderId: string; scopes: string[]; deltas: Record<string, string> }> = [];
    const store = {
      applyFill: (scopes: readonly string[], orderId: string, deltas: ReadonlyMap<string, Decimal>) => {
        stored.push({
          orderId,
          scopes: [...scopes],
          deltas: Object.fromEntries([...deltas].map(([c, d]) => [c, d.toFixed()])),
        });
        return Promise.resolve();
      },
    };
    const filled = order();
    // stored for the global scope before the crash, not for the strategy and account group
    engine.positionsLoaded(
      {
        positions: new Map([
          [
            'global',
            new Map([
              ['BTC', new Decimal('0.5')],
              ['USD', new Decimal('-25000')],
            ]),
          ],
        ]),
        applied: new Map([['global', new Set([filled.orderId])]]),
      },
      store as never,
    );
    engine.restore([
      {
        order: filled,
        admittedAt: T0,
        event: { kind: 'filled', orderId: filled.orderId, baseAmount: '0.5', quoteAmount: '25000', price: '50000' },
      },
    ]);
    // the resumed order tells risk its fill again: nothing more is counted
    engine.record({ kind: 'filled', orderId: filled.orderId, baseAmount: '0.5', quoteAmount: '25000', price: '50000' });
    await engine.admit(order({ strategyId: 'beta' }), T0 + 1_000); // through the mailbox: everything above applied
    const { positions } = engine.state.book;
    expect(positions.get('global')?.get('BTC')?.toFixed()).toBe('0.5');
    expect(positions.get('strategy:alpha')?.get('BTC')?.toFixed()).toBe('0.5');
    expect(positions.get('accountGroup:g1')?.get('USD')?.toFixed()).toBe('-25000');
    expect(stored[0]).toEqual({
      orderId: filled.orderId,
      scopes: ['strategy:alpha', 'accountGroup:g1'],
      deltas: { BTC: '0.5', USD: '-25000' },
    });
    // the resumed order's fill goes to the store again (which counts each order once per scope), not to memory
    expect(stored.slice(1).map((s) => s.orderId)).toEqual([filled.orderId]);
    expect(engine.state.book.open.has(filled.orderId)).toBe(false);
  });

  it('a fill learnt here of an order a peer’s event closed already is stored (the peer may have died before), counted once', async () => {
    const engine = new RiskEngine(limits(), { clock: new FakeClock(T0) }, states());
    const stored: Array<{ orderId: string; scopes: string[] }> = [];
    const store = {
      applyFill: (scopes: readonly string[], orderId: string) => {
        stored.push({ orderId, scopes: [...scopes] });
        return Promise.resolve();
      },
    };
    engine.positionsLoaded({ positions: new Map(), applied: new Map() }, store as never);
    const taken = order();
    const fill = {
      kind: 'filled',
      orderId: taken.orderId,
      baseAmount: '1',
      quoteAmount: '50000',
      price: '50000',
    } as const;
    engine.peerAdmitted(taken, T0);
    engine.peerRecorded(fill); // its owner told the fill, then died before storing it
    engine.record(fill); // this instance took the order over and learnt the fill again
    await engine.admit(order({ strategyId: 'beta' }), T0); // through the mailbox
    expect(stored).toEqual([{ orderId: taken.orderId, scopes: ['global', 'strategy:alpha', 'accountGroup:g1'] }]);
    expect(engine.state.book.positions.get('strategy:alpha')?.get('BTC')?.toFixed()).toBe('1'); // not 2
  });

  it('a fill learnt here long after its admission, of an order no longer in the book, is stored from the order the event names', async () => {
    const clock = new FakeClock(T0);
    const engine = new RiskEngine(limits(), { clock }, states());
    const stored: Array<{ orderId: string; scopes: string[]; deltas: Record<string, string> }> = [];
    const store = {
      applyFill: (scopes: readonly string[], orderId: string, deltas: ReadonlyMap<string, Decimal>) => {
        stored.push({
          orderId,
          scopes: [...scopes],
          deltas: Object.fromEntries([...deltas].map(([c, d]) => [c, d.toFixed()])),
        });
        return Promise.resolve();
      },
    };
    engine.positionsLoaded({ positions: new Map(), applied: new Map() }, store as never);
    const taken = order({ side: 'SELL' });
    engine.peerAdmitted(taken, T0);
    clock.advance(90_000); // settled 90 s after its admission (UNKNOWN first, reconciled later)
    await engine.admit(order({ strategyId: 'beta' }), T0 + 90_000); // the windows move on
    const fill = {
      kind: 'filled',
      orderId: taken.orderId,
      baseAmount: '1',
      quoteAmount: '50000',
      price: '50000',
    } as const;
    engine.peerRecorded(fill); // the owner told it, then died before storing it
    const { strategyId, accountGroup, side, instrument } = taken;
    engine.record({ ...fill, order: { strategyId, accountGroup, side, instrument } }); // taken over, learnt again
    await engine.admit(order({ strategyId: 'beta' }), T0 + 90_000);
    expect(stored).toEqual([
      {
        orderId: taken.orderId,
        scopes: ['global', 'strategy:alpha', 'accountGroup:g1'],
        deltas: { BTC: '-1', USD: '50000' },
      },
    ]);
    expect(engine.state.book.positions.get('strategy:alpha')?.get('BTC')?.toFixed()).toBe('-1'); // counted once
  });

  it('the admissions of the last minute read back count in the windows, not as open orders', async () => {
    const file = { strategies: { alpha: { maxOrdersPerMinute: 3, maxNotionalPerMinute: { USD: '120000' } } } };
    const engine = new RiskEngine(limits(file), { clock: new FakeClock(T0 + 30_000) }, states());
    const old = order();
    const traded = order();
    const failed = order();
    engine.restoreWindow([
      { order: old, admittedAt: T0 - 40_000, traded: true }, // more than a minute before now: not counted
      { order: traded, admittedAt: T0, traded: true },
      { order: failed, admittedAt: T0 + 1_000, traded: false },
      { order: traded, admittedAt: T0, traded: true }, // read twice: counted once
    ]);
    const now = T0 + 30_000;
    expect(engine.state.book.open.size).toBe(0);
    expect(engine.state.book.recentOrderIds).toEqual([traded.orderId, failed.orderId]);
    // 50000 of the traded one + 50000 = 100000 ≤ 120000; the failed one counts for the rate only
    expect(await engine.admit(order(), now)).toEqual({ ok: true });
    expect(await engine.admit(order(), now)).toMatchObject({ code: 'RISK_ORDER_RATE_EXCEEDS_MAX_PER_MINUTE' });
    // the traded order's quote is taken, the failed one's is free
    expect(engine.state.book.quoteUsed(traded.quote.quoteId).toFixed()).toBe('1');
    expect(engine.state.book.quoteUsed(failed.quote.quoteId).toFixed()).toBe('0');
  });

  it('an order only read back into the windows, then known not executed: its notional and quote are freed', async () => {
    const engine = new RiskEngine(limits(), { clock: new FakeClock(T0 + 1_000) }, states());
    const read = order();
    engine.restoreWindow([{ order: read, admittedAt: T0, traded: true }]);
    engine.peerRecorded({ kind: 'not-executed', orderId: read.orderId }); // between the read-back and the journal
    await engine.admit(order({ strategyId: 'beta' }), T0 + 1_000); // through the mailbox
    expect(engine.state.book.notionalWithinMinute('strategy:alpha', 'USD').toFixed()).toBe('0');
    expect(engine.state.book.quoteUsed(read.quote.quoteId).toFixed()).toBe('0');
    expect(engine.state.book.recentOrderIds).toContain(read.orderId); // still counts for the order rate
  });

  it('an order both read back from the admissions and restored from the journal is counted once', async () => {
    const file = { strategies: { alpha: { maxOrdersPerMinute: 2 } } };
    const engine = new RiskEngine(limits(file), { clock: new FakeClock(T0 + 1_000) }, states());
    const open = order();
    engine.restoreWindow([{ order: open, admittedAt: T0, traded: true }]);
    engine.restore([{ order: open, admittedAt: T0 }]);
    await engine.admit(order({ strategyId: 'beta' }), T0 + 1_000); // through the mailbox: both restores applied
    expect(engine.state.book.quoteUsed(open.quote.quoteId).toFixed()).toBe('1');
    expect(engine.state.book.open.has(open.orderId)).toBe(true);
    expect(await engine.admit(order(), T0 + 1_000)).toEqual({ ok: true });
    expect(await engine.admit(order(), T0 + 1_000)).toMatchObject({ code: 'RISK_ORDER_RATE_EXCEEDS_MAX_PER_MINUTE' });
  });

  it('ignores a fill without decimal amounts and keeps the order counted', async () => {
    const engine = new RiskEngine(limits(), { clock: new FakeClock(T0) }, states());
    const a = order();
    await engine.admit(a, T0);
    engine.record({ kind: 'filled', orderId: a.orderId, baseAmount: 'lots', quoteAmount: '1', price: '1' });
    expect(engine.state.book.open.get(a.orderId)?.status).toBe('in-flight');
  });

  // outside tester: the gauge kept each scope's use as of its latest order — an hour without orders still showed a
  // minute's limits 90 % used, and an exposure freed by an outcome still counted
  it('limit utilisation is read at scrape time: a minute without orders reads 0, an exposure freed is freed', async () => {
    const registry = new MetricsRegistry('t', { defaultMetrics: false });
    const file = {
      strategies: {
        alpha: { maxOpenExposure: { BTC: '4' }, maxOrdersPerMinute: 10, maxNotionalPerMinute: { USD: '1000000000' } },
      },
    };
    const clock = new FakeClock(T0);
    const engine = new RiskEngine(limits(file), { clock, metrics: new RiskMetrics(registry) }, states());
    const a = order();
    await engine.admit(a, T0);
    const utilisation = async (limit: string): Promise<number | undefined> =>
      (await registry.metrics())
        .split('\n')
        .filter((line) => line.startsWith(`execution_risk_limit_utilisation{limit="${limit}",scope="strategy"`))
        .map((line) => Number(line.split(' ').at(-1)))[0];
    expect(await utilisation('orders_per_minute')).toBe(0.1);
    expect(await utilisation('notional_per_minute')).toBeGreaterThan(0);
    expect(await utilisation('open_exposure')).toBe(0.25);
    clock.advance(60_001);
    expect(await utilisation('orders_per_minute')).toBe(0);
    expect(await utilisation('notional_per_minute')).toBe(0);
    expect(await utilisation('open_exposure')).toBe(0.25); // still in flight
    engine.record({ kind: 'not-executed', orderId: a.orderId });
    expect(await utilisation('open_exposure')).toBe(0);
  });

  it('counts refusals by code and shows how much of a limit the most used scope takes', async () => {
    const registry = new MetricsRegistry('t', { defaultMetrics: false });
    const file = { strategies: { alpha: { maxOpenExposure: { BTC: '4' }, maxOrdersPerMinute: 10 } } };
    const engine = new RiskEngine(
      limits(file),
      { clock: new FakeClock(T0), metrics: new RiskMetrics(registry) },
      states(),
    );
    await engine.admit(order(), T0);
    await engine.admit(order({ strategyId: 'beta' }), T0);
    await engine.admit(order({}, { status: 'stale' }), T0);
    const text = await registry.metrics();
    expect(text).toContain('execution_risk_admitted_total{app="t"} 2');
    expect(text).toContain('execution_risk_refusals_total{code="QUOTE_STALE",app="t"} 1');
    expect(text).toContain('execution_risk_limit_utilisation{limit="open_exposure",scope="strategy",app="t"} 0.25');
    expect(text).toContain('execution_risk_limit_utilisation{limit="orders_per_minute",scope="strategy",app="t"} 0.1');
    expect(text).toContain('execution_risk_open_orders{status="in-flight",app="t"} 2');
  });

  it('counts an order another instance admitted once, and tells its peers what it admits and learns', async () => {
    const file = { strategies: { alpha: { maxOpenExposure: { BTC: '1.5' } } } };
    const engine = new RiskEngine(limits(file), { clock: new FakeClock(T0) }, states());
    const told: string[] = [];
    engine.attachPeers({
      publishAdmission: () => Promise.reject(new Error('not sequenced: never asked')),
      admitted: (o) => told.push(`admitted ${o.orderId}`),
      recorded: (e) => told.push(`${e.kind} ${e.orderId}`),
    });
    const peers = order();
    engine.peerAdmitted(peers, T0);
    engine.peerAdmitted(peers, T0);
    expect(engine.state.book.open.size).toBe(1);
    expect(await engine.admit(order(), T0)).toMatchObject({ code: 'RISK_EXPOSURE_EXCEEDS_MAX_OPEN' });
    engine.peerRecorded({ kind: 'not-executed', orderId: peers.orderId });
    const mine = order();
    expect(await engine.admit(mine, T0)).toEqual({ ok: true });
    engine.record({ kind: 'unknown', orderId: mine.orderId });
    // a peer's event is not told back to the peers
    expect(told).toEqual([`admitted ${mine.orderId}`, `unknown ${mine.orderId}`]);
  });

  describe('admissions in sequence across instances (the book stream orders them)', () => {
    type Publication = { orderId: string; expectedLast: number; answer: (a: AdmissionAnswer) => void };

    /** An engine whose peers hold each publication until the test answers it as the stream would. */
    function sequencedEngine(file: object, metrics?: RiskMetrics) {
      const engine = new RiskEngine(
        limits(file),
        { clock: new FakeClock(T0), ...(metrics ? { metrics } : {}) },
        states(),
      );
      const publications: Publication[] = [];
      const plain: string[] = [];
      engine.attachPeers({
        publishAdmission: (o, _at, expectedLast) =>
          new Promise((answer) => publications.push({ orderId: o.orderId, expectedLast, answer })),
        admitted: (o) => plain.push(o.orderId),
        recorded: () => undefined,
      });
      engine.startSequence(7);
      return { engine, publications, plain };
    }

    const settle = () => new Promise((resolve) => setImmediate(resolve));

    it('counts an admission only once the stream stored it, and decides the next admit after it', async () => {
      const { engine, publications } = sequencedEngine({ strategies: { alpha: { maxOpenExposure: { BTC: '1.5' } } } });
      const first = engine.admit(order(), T0);
      const second = engine.admit(order(), T0);
      await settle();
      // one publication out at a time, expecting the last admission counted
      expect(publications.map((p) => p.expectedLast)).toEqual([7]);
      expect(engine.state.book.open.size).toBe(0);
      publications[0]?.answer({ kind: 'stored', seq: 9 });
      expect(await first).toEqual({ ok: true });
      // the second is decided on the book that counts the first: over the limit, refused without a publication
      expect(await second).toMatchObject({ code: 'RISK_EXPOSURE_EXCEEDS_MAX_OPEN' });
      expect(publications).toHaveLength(1);
      expect(engine.state.sequence?.last).toBe(9);
    });

    it('an admission overtaken by another instance counts that one and is decided again on it', async () => {
      const metrics = new RiskMetrics(new MetricsRegistry('t'));
      const { engine, publications } = sequencedEngine(
        { strategies: { alpha: { maxOpenExposure: { BTC: '1.5' } } } },
        metrics,
      );
      const mine = engine.admit(order(), T0);
      await settle();
      const theirs = order();
      // the other instance's admission is read from the stream; and heard of live as well: counted once
      publications[0]?.answer({ kind: 'overtaken', missed: [{ order: theirs, admittedAt: T0 }], last: 8 });
      engine.peerAdmitted(theirs, T0);
      expect(await mine).toMatchObject({ code: 'RISK_EXPOSURE_EXCEEDS_MAX_OPEN', values: { exposure: '1' } });
      expect(engine.state.book.open.size).toBe(1);
      expect(engine.state.sequence?.last).toBe(8);
      expect(engine.state.sequence?.pending).toBeUndefined();
      expect((await metrics.admissionRetries.get()).values[0]?.value).toBe(1);
    });

    it('an overtaken admission that still fits is published again after the one that came first', async () => {
      const { engine, publications } = sequencedEngine({ strategies: { alpha: { maxOpenExposure: { BTC: '2.5' } } } });
      const mine = engine.admit(order(), T0);
      await settle();
      publications[0]?.answer({ kind: 'overtaken', missed: [{ order: order(), admittedAt: T0 }], last: 8 });
      await settle();
      expect(publications.map((p) => p.expectedLast)).toEqual([7, 8]);
      publications[1]?.answer({ kind: 'stored', seq: 10 });
      expect(await mine).toEqual({ ok: true });
      expect(engine.state.book.open.size).toBe(2);
    });

    it('refuses RISK_ADMISSION_CONTENDED once overtaken ADMISSION_ATTEMPTS (50) times in a row, and counts nothing', async () => {
      const { engine, publications } = sequencedEngine({});
      const mine = engine.admit(order(), T0);
      for (let i = 0; i < ADMISSION_ATTEMPTS; i += 1) {
        await settle();
        publications[i]?.answer({ kind: 'overtaken', missed: [], last: 8 + i });
      }
      expect(await mine).toMatchObject({
        ok: false,
        code: 'RISK_ADMISSION_CONTENDED',
        values: { attempts: String(ADMISSION_ATTEMPTS) },
      });
      expect(engine.state.book.open.size).toBe(0);
    });

    it('the stream unavailable: the order is admitted here alone, published plainly and counted as unsequenced', async () => {
      const metrics = new RiskMetrics(new MetricsRegistry('t'));
      const { engine, publications, plain } = sequencedEngine({}, metrics);
      const mine = order();
      const answer = engine.admit(mine, T0);
      await settle();
      publications[0]?.answer({ kind: 'unsequenced', reason: 'no answer in 1000 ms' });
      expect(await answer).toEqual({ ok: true });
      expect(plain).toEqual([mine.orderId]);
      expect(engine.state.book.open.has(mine.orderId)).toBe(true);
      expect((await metrics.admissionsUnsequenced.get()).values[0]?.value).toBe(1);
    });
  });
});
