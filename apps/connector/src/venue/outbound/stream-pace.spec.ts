import { describe, expect, it } from '@jest/globals';
import { initialStreamPace, paceAfterQuiet, paceAfterVenueDrop, type StreamPacePolicy } from './stream-pace.js';

const policy: StreamPacePolicy = { basePerWindow: 20, minPerWindow: 5, windowMs: 1_100, recoverAfterMs: 5_500 };

describe('stream pace (subscribes and unsubscribes per window, after MESSAGE_RATE_LIMITED)', () => {
  it('a drop narrows the share by a quarter; a burst of drops within one window counts once', () => {
    let pace = paceAfterVenueDrop(initialStreamPace(policy), 1_000, policy);
    expect(pace.perWindow).toBe(15);
    pace = paceAfterVenueDrop(pace, 1_500, policy);
    expect(pace.perWindow).toBe(15);
    pace = paceAfterVenueDrop(pace, 2_100, policy);
    expect(pace.perWindow).toBe(11);
  });

  it('never narrows below the floor', () => {
    let pace = initialStreamPace(policy);
    for (let i = 0; i < 20; i++) pace = paceAfterVenueDrop(pace, i * 2_000, policy);
    expect(pace.perWindow).toBe(5);
  });

  it('widens by one per quiet period, up to the configured share', () => {
    let pace = paceAfterVenueDrop(initialStreamPace(policy), 0, policy);
    expect(paceAfterQuiet(pace, 5_000, policy).perWindow).toBe(15);
    pace = paceAfterQuiet(pace, 5_500, policy);
    expect(pace.perWindow).toBe(16);
    expect(paceAfterQuiet(pace, 6_000, policy).perWindow).toBe(16);
    for (let t = 11_000; t < 100_000; t += 5_500) pace = paceAfterQuiet(pace, t, policy);
    expect(pace.perWindow).toBe(20);
  });
});
