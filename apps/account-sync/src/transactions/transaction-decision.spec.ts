import { describe, expect, it } from '@jest/globals';
import type { TransactionLegState } from '#contracts';
import { decideTransaction, type HeldLeg } from './transaction-decision.js';

/** A leg held from a webhook, never shown by the list (override any field). */
const held = (state: TransactionLegState, rest: Partial<HeldLeg> = {}): HeldLeg => ({
  state,
  source: 'webhook',
  listed: false,
  corrected: false,
  ...rest,
});

describe('decideTransaction (the ledger transition table)', () => {
  it('stores the first state seen, whichever it is', () => {
    for (const state of ['PENDING', 'PROCESSED', 'CANCELLED'] as const) {
      expect(decideTransaction(undefined, state, 'webhook')).toEqual({ kind: 'store', previousState: null });
    }
  });

  it('moves forward from PENDING to each final state', () => {
    for (const final of ['PROCESSED', 'REVERSED', 'CANCELLED'] as const) {
      for (const source of ['webhook', 'list'] as const) {
        expect(decideTransaction(held('PENDING'), final, source)).toEqual({ kind: 'store', previousState: 'PENDING' });
      }
    }
  });

  it('deduplicates on (uuid, state)', () => {
    for (const state of ['PENDING', 'PROCESSED', 'REVERSED', 'CANCELLED'] as const) {
      expect(decideTransaction(held(state), state, 'list')).toEqual({ kind: 'duplicate' });
    }
  });

  it('never moves back: PENDING after a final state is stale, from either source (a list read lags)', () => {
    expect(decideTransaction(held('PROCESSED'), 'PENDING', 'list')).toEqual({ kind: 'stale', held: 'PROCESSED' });
    expect(decideTransaction(held('REVERSED'), 'PENDING', 'webhook')).toEqual({ kind: 'stale', held: 'REVERSED' });
  });

  it('between webhooks: keeps the first of two failures and never turns a failure into a success', () => {
    expect(decideTransaction(held('REVERSED'), 'CANCELLED', 'webhook')).toEqual({ kind: 'stale', held: 'REVERSED' });
    expect(decideTransaction(held('CANCELLED'), 'PROCESSED', 'webhook')).toEqual({ kind: 'stale', held: 'CANCELLED' });
  });

  it('reads a reversal after PROCESSED as a later state (spec-gaps WH2)', () => {
    for (const source of ['webhook', 'list'] as const) {
      expect(decideTransaction(held('PROCESSED'), 'REVERSED', source)).toEqual({
        kind: 'store',
        previousState: 'PROCESSED',
      });
    }
  });

  it("the list's final state against a webhook's it never showed is disputed (WH12), not ignored", () => {
    expect(decideTransaction(held('CANCELLED'), 'PROCESSED', 'list')).toEqual({ kind: 'disputed', held: 'CANCELLED' });
    expect(decideTransaction(held('REVERSED'), 'CANCELLED', 'list')).toEqual({ kind: 'disputed', held: 'REVERSED' });
    // once the list showed the held state (or stored it), a later contrary read is its own lag: stale as before
    expect(decideTransaction(held('CANCELLED', { listed: true }), 'PROCESSED', 'list')).toEqual({
      kind: 'stale',
      held: 'CANCELLED',
    });
    expect(decideTransaction(held('CANCELLED', { source: 'list', listed: true }), 'PROCESSED', 'list')).toMatchObject({
      kind: 'stale',
    });
  });

  it('a leg the list corrected is no longer moved by webhooks, only by the list', () => {
    const corrected = held('PROCESSED', { source: 'list', listed: true, corrected: true });
    expect(decideTransaction(corrected, 'CANCELLED', 'webhook')).toEqual({ kind: 'stale', held: 'PROCESSED' });
    expect(decideTransaction(corrected, 'REVERSED', 'list')).toEqual({ kind: 'store', previousState: 'PROCESSED' });
  });

  it('whatever order a PENDING → PROCESSED pair arrives in, PROCESSED is the one final state', () => {
    let state: TransactionLegState | undefined;
    for (const incoming of ['PROCESSED', 'PENDING', 'PROCESSED', 'PENDING'] as const) {
      const decision = decideTransaction(state && held(state), incoming, 'webhook');
      if (decision.kind === 'store') state = incoming;
    }
    expect(state).toBe('PROCESSED');
  });
});
