import { describe, expect, it } from '@jest/globals';
import { LogThrottle } from './log-throttle.js';

describe('LogThrottle', () => {
  it('passes one line per interval per kind, the next one saying how many were held back', () => {
    let now = 0;
    const throttle = new LogThrottle(1_000, () => now);
    expect(throttle.pass('a', { x: 1 })).toEqual({ x: 1 });
    expect(throttle.pass('a', { x: 2 })).toBeUndefined();
    expect(throttle.pass('a', { x: 3 })).toBeUndefined();
    expect(throttle.pass('b', { x: 4 })).toEqual({ x: 4 }); // another kind is not held back by the first
    now = 999;
    expect(throttle.pass('a', { x: 5 })).toBeUndefined();
    now = 1_000;
    expect(throttle.pass('a', { x: 6 })).toEqual({ x: 6, suppressed: 3 });
    now = 2_000;
    expect(throttle.pass('a', { x: 7 })).toEqual({ x: 7 });
  });

  it('keeps a bounded number of kinds: kinds taken from input cannot grow it', () => {
    const throttle = new LogThrottle(1_000, () => 0, 3);
    for (const kind of ['a', 'b', 'c']) expect(throttle.pass(kind, {})).toEqual({});
    expect(throttle.pass('d', {})).toEqual({}); // the map starts again rather than growing
    expect(throttle.pass('d', {})).toBeUndefined();
    expect(throttle.pass('a', {})).toEqual({}); // forgotten: written once more
  });

  it('forgets a kind on request: its next line is written at once, the held-back count dropped', () => {
    const throttle = new LogThrottle(60_000, () => 0);
    expect(throttle.pass('a', { x: 1 })).toEqual({ x: 1 });
    expect(throttle.pass('a', { x: 2 })).toBeUndefined();
    throttle.forget('a');
    expect(throttle.pass('a', { x: 3 })).toEqual({ x: 3 });
    expect(throttle.pass('b', {})).toEqual({});
    throttle.forget('never-seen');
    expect(throttle.pass('b', {})).toBeUndefined();
  });
});
