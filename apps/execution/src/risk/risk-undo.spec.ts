import { describe, expect, it } from '@jest/globals';
import { FakeClock } from '#testing';
import { Decimal } from '#venue-api';
import { RiskEngine } from './risk-engine.js';
import type { LateFill, UndoneFill } from './risk-gate.js';
import { limits, order, states, T0 } from './testing/risk-fixtures.js';

/** A durable positions store that records what it was asked to add. */
function recordingStore() {
  const stored: Array<{ id: string; scopes: string[]; deltas: Record<string, string> }> = [];
  return {
    stored,
    store: {
      applyFill: (scopes: readonly string[], id: string, deltas: ReadonlyMap<string, Decimal>) => {
        stored.push({
          id,
          scopes: [...scopes],
          deltas: Object.fromEntries([...deltas].map(([c, d]) => [c, d.toFixed()])),
        });
        return Promise.resolve();
      },
    },
  };
}

const undoneOf = (taken: ReturnType<typeof order>): UndoneFill => ({
  kind: 'undone',
  orderId: taken.orderId,
  baseAmount: '1',
  quoteAmount: '50000',
  order: {
    strategyId: taken.strategyId,
    accountGroup: taken.accountGroup,
    side: taken.side,
    instrument: taken.instrument,
  },
});

describe('risk: a fill the venue undid is taken back', () => {
  it('from the positions of every scope and from the durable store (as undone:<orderId>), once; the headroom comes back', async () => {
    const file = { strategies: { alpha: { maxOpenExposure: { BTC: '1' } } } };
    const engine = new RiskEngine(limits(file), { clock: new FakeClock(T0) }, states());
    const { stored, store } = recordingStore();
    engine.positionsLoaded({ positions: new Map(), applied: new Map() }, store as never);
    const taken = order();
    expect(await engine.admit(taken, T0)).toEqual({ ok: true });
    engine.record({ kind: 'filled', orderId: taken.orderId, baseAmount: '1', quoteAmount: '50000', price: '50000' });
    expect((await engine.admit(order(), T0)).ok).toBe(false); // the fill uses the whole exposure limit
    await engine.undo(undoneOf(taken));
    await engine.undo(undoneOf(taken)); // delivered again: changes nothing more
    const positions = engine.state.book.positions;
    expect(positions.get('strategy:alpha')?.get('BTC')?.toFixed()).toBe('0');
    expect(positions.get('global')?.get('USD')?.toFixed()).toBe('0');
    expect(positions.get('accountGroup:g1')?.get('BTC')?.toFixed()).toBe('0');
    expect(await engine.admit(order(), T0)).toEqual({ ok: true });
    const undone = { id: `undone:${taken.orderId}`, scopes: ['global', 'strategy:alpha', 'accountGroup:g1'] };
    // stored each time it is learnt here (the store applies an id once per scope), with the fill's deltas negated
    expect(stored.filter((s) => s.id.startsWith('undone:'))).toEqual([
      { ...undone, deltas: { BTC: '-1', USD: '50000' } },
      { ...undone, deltas: { BTC: '-1', USD: '50000' } },
    ]);
  });

  it('a peer’s undo is taken back here but stored by that peer; one the durable positions already hold is not taken back again', async () => {
    const engine = new RiskEngine(limits(), { clock: new FakeClock(T0) }, states());
    const { stored, store } = recordingStore();
    const taken = order();
    // as read at a restart: the fill and its undo both stored already, net zero
    engine.positionsLoaded(
      {
        positions: new Map([['strategy:alpha', new Map([['BTC', new Decimal(0)]])]]),
        applied: new Map([['strategy:alpha', new Set([taken.orderId, `undone:${taken.orderId}`])]]),
      },
      store as never,
    );
    engine.peerRecorded(undoneOf(taken));
    await engine.admit(order({ strategyId: 'beta' }), T0); // through the mailbox
    expect(engine.state.book.positions.get('strategy:alpha')?.get('BTC')?.toFixed()).toBe('0');
    const other = order();
    engine.peerAdmitted(other, T0);
    engine.peerRecorded({
      kind: 'filled',
      orderId: other.orderId,
      baseAmount: '1',
      quoteAmount: '50000',
      price: '50000',
    });
    engine.peerRecorded(undoneOf(other));
    await engine.admit(order({ strategyId: 'beta' }), T0);
    expect(engine.state.book.positions.get('strategy:alpha')?.get('BTC')?.toFixed()).toBe('0');
    expect(stored).toEqual([]); // peers' events are stored by the peer that learnt them
  });

  it('an order this book still holds open (its fill never reached this instance) is settled not executed instead', async () => {
    const engine = new RiskEngine(limits(), { clock: new FakeClock(T0) }, states());
    const taken = order();
    engine.peerAdmitted(taken, T0);
    engine.peerRecorded(undoneOf(taken));
    await engine.admit(order({ strategyId: 'beta' }), T0);
    expect(engine.state.book.open.has(taken.orderId)).toBe(false);
    expect(engine.state.book.positions.get('strategy:alpha')?.get('BTC')?.toFixed() ?? '0').toBe('0');
  });

  it('an undo without usable amounts or currencies is refused with its reason', async () => {
    const engine = new RiskEngine(limits(), { clock: new FakeClock(T0) }, states());
    const taken = order();
    await expect(engine.undo({ ...undoneOf(taken), baseAmount: 'lots' })).rejects.toThrow(/decimal/);
    await expect(
      engine.undo({ ...undoneOf(taken), order: { ...undoneOf(taken).order, instrument: 'BTCUSD' } }),
    ).rejects.toThrow(/instrument/);
  });

  it('a failed durable write is told to the caller (so the undone trade is handled again)', async () => {
    const engine = new RiskEngine(limits(), { clock: new FakeClock(T0) }, states());
    const store = { applyFill: () => Promise.reject(new Error('KV timeout')) };
    engine.positionsLoaded({ positions: new Map(), applied: new Map() }, store as never);
    await expect(engine.undo(undoneOf(order()))).rejects.toThrow('KV timeout');
  });
});

describe('risk: a fill found after its order was settled not executed (K7: a contradicted FAILED) is added', () => {
  const lateOf = (taken: ReturnType<typeof order>): LateFill => ({ ...undoneOf(taken), kind: 'late-fill' });

  it('to the positions of every scope and to the durable store (as late-fill:<orderId>), once; the headroom is used', async () => {
    const file = { strategies: { alpha: { maxOpenExposure: { BTC: '1' } } } };
    const engine = new RiskEngine(limits(file), { clock: new FakeClock(T0) }, states());
    const { stored, store } = recordingStore();
    engine.positionsLoaded({ positions: new Map(), applied: new Map() }, store as never);
    const taken = order();
    expect(await engine.admit(taken, T0)).toEqual({ ok: true });
    engine.record({ kind: 'not-executed', orderId: taken.orderId }); // reported FAILED: the headroom came back
    await engine.lateFill(lateOf(taken));
    await engine.lateFill(lateOf(taken)); // delivered again: changes nothing more
    const positions = engine.state.book.positions;
    expect(positions.get('strategy:alpha')?.get('BTC')?.toFixed()).toBe('1');
    expect(positions.get('global')?.get('USD')?.toFixed()).toBe('-50000');
    expect((await engine.admit(order(), T0)).ok).toBe(false); // the late fill uses the whole exposure limit
    const late = { id: `late-fill:${taken.orderId}`, scopes: ['global', 'strategy:alpha', 'accountGroup:g1'] };
    // stored each time it is learnt here (the store applies an id once per scope), with the fill's own deltas
    expect(stored.filter((s) => s.id.startsWith('late-fill:'))).toEqual([
      { ...late, deltas: { BTC: '1', USD: '-50000' } },
      { ...late, deltas: { BTC: '1', USD: '-50000' } },
    ]);
  });

  it('one the durable positions already hold (read at a restart) is not added again', async () => {
    const engine = new RiskEngine(limits(), { clock: new FakeClock(T0) }, states());
    const { store } = recordingStore();
    const taken = order();
    engine.positionsLoaded(
      {
        positions: new Map([['strategy:alpha', new Map([['BTC', new Decimal(1)]])]]),
        applied: new Map([['strategy:alpha', new Set([`late-fill:${taken.orderId}`])]]),
      },
      store as never,
    );
    await engine.lateFill(lateOf(taken));
    expect(engine.state.book.positions.get('strategy:alpha')?.get('BTC')?.toFixed()).toBe('1');
  });
});
