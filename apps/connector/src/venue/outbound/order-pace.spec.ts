import { describe, expect, it } from '@jest/globals';
import { nextOrderAt, orderBefore, orderCycleMs, orderPaceOf, type OrderPace } from './order-pace.js';

const pace: OrderPace = { gapMs: 300, venueIntervalMs: 250, ceilingMs: 1_000 };

describe('order pace', () => {
  it('an answer quicker than our gap leaves the gap from our send in charge (the throughput floor)', () => {
    expect(nextOrderAt({ sentAt: 1_000, answeredAt: 1_040 }, pace)).toEqual({ at: 1_300, bound: 'gap' });
  });

  it("a late answer holds the next order the venue's interval after it, and a millisecond for the clock", () => {
    expect(nextOrderAt({ sentAt: 1_000, answeredAt: 1_200 }, pace)).toEqual({ at: 1_451, bound: 'answer' });
  });

  it('no answer yet: wait for it, at most the ceiling from our send', () => {
    expect(nextOrderAt({ sentAt: 1_000, answeredAt: undefined }, pace)).toEqual({ at: 2_000, bound: 'unanswered' });
  });

  it('an answer after the ceiling still holds the next order its interval after it', () => {
    expect(nextOrderAt({ sentAt: 1_000, answeredAt: 2_500 }, pace)).toEqual({ at: 2_751, bound: 'answer' });
  });

  it('a ceiling below the gap never lets an unanswered order’s successor go before the gap', () => {
    expect(nextOrderAt({ sentAt: 0, answeredAt: undefined }, { ...pace, ceilingMs: 100 }).at).toBe(300);
  });

  it('a widened gap binds past an early answer', () => {
    expect(nextOrderAt({ sentAt: 0, answeredAt: 10 }, { ...pace, gapMs: 600 })).toEqual({ at: 600, bound: 'gap' });
  });

  it('the order before this process counts one gap from its start, no answer awaited', () => {
    expect(nextOrderAt(orderBefore(5_000), pace)).toEqual({ at: 5_300, bound: 'gap' });
    expect(nextOrderAt(orderBefore(Number.NEGATIVE_INFINITY), pace).at).toBe(Number.NEGATIVE_INFINITY);
  });

  it('whatever the jitter, an order sent at the moment allowed arrives at least the venue interval after the previous', () => {
    // the venue read the previous order at some time ≤ its answer; it reads the next at some time ≥ our send
    for (const [sentAt, readAt, answeredAt] of [
      [0, 0, 5],
      [0, 290, 295],
      [0, 700, 1_400],
      [0, 40, 900],
    ] as const) {
      const { at } = nextOrderAt({ sentAt, answeredAt }, pace);
      expect(at - readAt).toBeGreaterThanOrEqual(pace.venueIntervalMs);
    }
  });
});

describe('order pace published', () => {
  it('an answer quicker than the gap costs the gap; a late one its delay + the venue interval + a millisecond', () => {
    expect(orderCycleMs({ sentAt: 1_000, answeredAt: 1_040 }, pace)).toBe(300);
    expect(orderCycleMs({ sentAt: 1_000, answeredAt: 2_500 }, pace)).toBe(1_751);
  });

  it('the mean of the last five cycles, never below the gap now; none yet: the gap', () => {
    expect(orderPaceOf([], 300)).toBe(300);
    expect(orderPaceOf([300, 1_751], 300)).toBe(1_026);
    expect(orderPaceOf([9_999, 1_000, 1_000, 1_000, 1_000, 1_001], 300)).toBe(1_001); // the oldest left the sample
    expect(orderPaceOf([300, 300], 1_000)).toBe(1_000); // a widened gap binds
  });
});
