import { describe, expect, it } from '@jest/globals';
import { restoreFailed, restoringHealth, restoringSeconds, type Restoring } from './withdrawal-restoring.js';

const T0 = 1_700_000_000_000;
const GRACE_MS = 60_000;

describe("the withdrawal records' restoration told to operators (WD9)", () => {
  it('nothing pending: 0 seconds and no health finding', () => {
    expect(restoringSeconds(undefined, T0)).toBe(0);
    expect(restoringHealth(undefined, T0, GRACE_MS)).toBeUndefined();
  });

  it('pending since the first failure: later failures keep that start, count, and keep the last reason', () => {
    const first = restoreFailed(undefined, T0, 'venue REST 503 on listFiatWithdrawals');
    const third = restoreFailed(restoreFailed(first, T0 + 5_000, 'timeout'), T0 + 10_000, 'connection:ECONNREFUSED');
    const expected: Restoring = { since: T0, failures: 3, lastError: 'connection:ECONNREFUSED' };
    expect(third).toEqual(expected);
    expect(restoringSeconds(third, T0 + 90_500)).toBe(90);
    expect(restoringSeconds(third, T0 - 1_000)).toBe(0); // a clock stepped back never reads negative
  });

  it('/health is told only once it has failed beyond the grace period, naming the reason and what is refused', () => {
    const pending = restoreFailed(undefined, T0, 'venue REST 503 on listFiatWithdrawals');
    expect(restoringHealth(pending, T0 + GRACE_MS - 1, GRACE_MS)).toBeUndefined();
    const told = restoringHealth(pending, T0 + GRACE_MS, GRACE_MS);
    expect(told?.up).toBe(false);
    expect(told?.detail).toContain('not restored for 60 s');
    expect(told?.detail).toContain('venue REST 503 on listFiatWithdrawals');
    expect(told?.detail).toContain('WITHDRAWALS_RESTORING');
  });

  it('a long reason is cut: the detail stays bounded', () => {
    const pending = restoreFailed(undefined, T0, 'x'.repeat(5_000));
    expect(restoringHealth(pending, T0 + GRACE_MS, GRACE_MS)?.detail?.length).toBeLessThanOrEqual(500);
  });
});
