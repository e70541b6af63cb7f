import { describe, expect, it } from '@jest/globals';
import { decideTransaction } from './transaction-decision.js';

describe('decideTransaction (the ledger transition table)', () => {
  it('stores the first state seen, whichever it is', () => {
    expect(decideTransaction(undefined, 'PENDING')).toEqual({ kind: 'store', previousState: null });
    expect(decideTransaction(undefined, 'PROCESSED')).toEqual({ kind: 'store', previousState: null });
    expect(decideTransaction(undefined, 'CANCELLED')).toEqual({ kind: 'store', previousState: null });
  });

  it('moves forward from PENDING to each final state', () => {
    for (const final of ['PROCESSED', 'REVERSED', 'CANCELLED'] as const) {
      expect(decideTransaction('PENDING', final)).toEqual({ kind: 'store', previousState: 'PENDING' });
    }
  });

  it('deduplicates on (uuid, state)', () => {
    for (const state of ['PENDING', 'PROCESSED', 'REVERSED', 'CANCELLED'] as const) {
      expect(decideTransaction(state, state)).toEqual({ kind: 'duplicate' });
    }
  });

  it('never moves back: PENDING after a final state is stale', () => {
    expect(decideTransaction('PROCESSED', 'PENDING')).toEqual({ kind: 'stale', held: 'PROCESSED' });
    expect(decideTransaction('REVERSED', 'PENDING')).toEqual({ kind: 'stale', held: 'REVERSED' });
  });

  it('keeps the first of two failures and never turns a failure into a success', () => {
    expect(decideTransaction('REVERSED', 'CANCELLED')).toEqual({ kind: 'stale', held: 'REVERSED' });
    expect(decideTransaction('CANCELLED', 'PROCESSED')).toEqual({ kind: 'stale', held: 'CANCELLED' });
  });

  it('reads a reversal after PROCESSED as a later state (spec-gaps WH2)', () => {
    expect(decideTransaction('PROCESSED', 'REVERSED')).toEqual({ kind: 'store', previousState: 'PROCESSED' });
  });

  it('whatever order a PENDING → PROCESSED pair arrives in, PROCESSED is the one final state', () => {
    let held: 'PENDING' | 'PROCESSED' | undefined;
    for (const incoming of ['PROCESSED', 'PENDING', 'PROCESSED', 'PENDING'] as const) {
      const decision = decideTransaction(held, incoming);
      if (decision.kind === 'store') held = incoming;
    }
    expect(held).toBe('PROCESSED');
  });
});
