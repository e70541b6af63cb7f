import { describe, expect, it } from '@jest/globals';
import { initialGap, nextGap, type OrderGap, type PaceVerdict, paceVerdict } from './order-gap.js';

const policy = { baseMs: 300, maxMs: 400, stepMs: 50, narrowAfter: 3 };

function after(verdicts: readonly PaceVerdict[], from: OrderGap = initialGap(policy)): OrderGap {
  return verdicts.reduce((gap, verdict) => nextGap(gap, verdict, policy), from);
}

describe('order gap', () => {
  it('starts at the configured interval', () => {
    expect(initialGap(policy)).toEqual({ ms: 300, admittedRun: 0 });
  });

  it('widens one step per pace refusal, up to the ceiling', () => {
    expect(after(['rateLimited']).ms).toBe(350);
    expect(after(['rateLimited', 'rateLimited']).ms).toBe(400);
    expect(after(['rateLimited', 'rateLimited', 'rateLimited']).ms).toBe(400);
  });

  it('narrows one step after a run of orders let through, never below the configured interval', () => {
    const wide = after(['rateLimited', 'rateLimited']);
    expect(after(['admitted', 'admitted'], wide).ms).toBe(400);
    expect(after(['admitted', 'admitted', 'admitted'], wide).ms).toBe(350);
    expect(after(Array<PaceVerdict>(6).fill('admitted'), wide).ms).toBe(300);
    expect(after(Array<PaceVerdict>(30).fill('admitted'), wide)).toEqual({ ms: 300, admittedRun: 0 });
  });

  it('a refusal starts the run again', () => {
    const wide = after(['rateLimited', 'admitted', 'admitted', 'rateLimited', 'admitted', 'admitted']);
    expect(wide).toEqual({ ms: 400, admittedRun: 2 });
  });

  it('an answer that says nothing of the pace changes nothing', () => {
    const wide = after(['rateLimited', 'admitted']);
    expect(after(['unjudged', 'unjudged', 'unjudged'], wide)).toEqual(wide);
  });

  it('a ceiling below the configured interval keeps the gap at the interval', () => {
    const low = { ...policy, maxMs: 100 };
    expect(nextGap(initialGap(low), 'rateLimited', low).ms).toBe(300);
  });

  it('reads the pace from the first answer code: only ORDER_RATE_LIMITED refuses, INVALID_ORDER never reached the check', () => {
    expect(paceVerdict('ORDER_RATE_LIMITED')).toBe('rateLimited');
    expect(paceVerdict('INVALID_ORDER')).toBe('unjudged');
    expect(['', 'RFS600021', 'RFS100019'].map(paceVerdict)).toEqual(['admitted', 'admitted', 'admitted']);
  });
});
