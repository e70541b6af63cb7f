import { describe, expect, it } from '@jest/globals';
import { ORDER_OUTCOME_STATUSES, canFollow, contradicts, isFinalStatus, needsReconciliation } from './order-status.js';

describe('order-status lattice', () => {
  it('has exactly two final statuses, and nothing follows them', () => {
    expect(ORDER_OUTCOME_STATUSES.filter(isFinalStatus)).toEqual(['SUCCESS', 'FAILED']);
    for (const next of ORDER_OUTCOME_STATUSES) {
      expect(canFollow('SUCCESS', next)).toBe(false);
      expect(canFollow('FAILED', next)).toBe(false);
    }
  });

  it('reconciles UNKNOWN and INDETERMINATE, not PENDING or finals', () => {
    expect(ORDER_OUTCOME_STATUSES.filter(needsReconciliation)).toEqual(['UNKNOWN', 'INDETERMINATE']);
  });

  it('only moves up: evidence resolves UNKNOWN, a PENDING answer never regresses it', () => {
    expect(canFollow(undefined, 'PENDING')).toBe(true);
    expect(canFollow('PENDING', 'UNKNOWN')).toBe(true);
    expect(canFollow('UNKNOWN', 'SUCCESS')).toBe(true);
    expect(canFollow('UNKNOWN', 'INDETERMINATE')).toBe(true);
    expect(canFollow('INDETERMINATE', 'FAILED')).toBe(true);
    expect(canFollow('UNKNOWN', 'PENDING')).toBe(false);
    expect(canFollow('INDETERMINATE', 'UNKNOWN')).toBe(false);
    expect(canFollow('PENDING', 'PENDING')).toBe(false);
  });

  it('calls only a second, different final a contradiction (a regress or a repeat is not one)', () => {
    expect(contradicts('SUCCESS', 'FAILED')).toBe(true);
    expect(contradicts('FAILED', 'SUCCESS')).toBe(true);
    expect(contradicts('SUCCESS', 'SUCCESS')).toBe(false);
    expect(contradicts('SUCCESS', 'PENDING')).toBe(false);
    expect(contradicts('UNKNOWN', 'FAILED')).toBe(false);
    expect(contradicts(undefined, 'FAILED')).toBe(false);
  });
});
