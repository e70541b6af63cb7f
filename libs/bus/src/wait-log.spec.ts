import { describe, expect, it } from '@jest/globals';
import { FakeClock } from '#testing';
import { logWhileWaiting } from './wait-log.js';

describe('logWhileWaiting', () => {
  it('says it first after the first interval, then at doubling intervals up to the ceiling, until stopped', () => {
    const clock = new FakeClock(0);
    const said: number[] = [];
    const stop = logWhileWaiting((waited) => said.push(waited), 2_000, 10_000, clock);
    clock.advance(1_999);
    expect(said).toEqual([]);
    for (let i = 0; i < 60; i++) clock.advance(1_000);
    // 2 s, then +4, +8, +10 (the ceiling), +10 … within 62 s
    expect(said).toEqual([2_000, 6_000, 14_000, 24_000, 34_000, 44_000, 54_000]);
    stop();
    clock.advance(60_000);
    expect(said).toHaveLength(7);
  });
});
