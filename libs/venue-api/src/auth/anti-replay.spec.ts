import { describe, it, expect } from '@jest/globals';
import { TonceSource, systemClockMicros } from './anti-replay.js';

function steppedClock(values: bigint[]): () => bigint {
  let i = 0;
  return () => {
    const value = values[Math.min(i, values.length - 1)];
    i++;
    if (value === undefined) throw new Error('no clock values');
    return value;
  };
}

describe('TonceSource', () => {
  it('sends tonce = the clock in microseconds', async () => {
    const source = new TonceSource(steppedClock([1_700_000_000_000_000n]));
    await expect(source.next()).resolves.toEqual({ field: 'tonce', value: 1_700_000_000_000_000n });
  });

  it('stays strictly increasing within one microsecond', async () => {
    const source = new TonceSource(steppedClock([5n]));
    const values = [];
    for (let i = 0; i < 4; i++) values.push((await source.next()).value);
    expect(values).toEqual([5n, 6n, 7n, 8n]);
  });

  it('stays strictly increasing when the clock steps back, then follows it again', () => {
    const source = new TonceSource(steppedClock([1000n, 400n, 401n, 1001n, 5000n]));
    expect([1, 2, 3, 4, 5].map(() => source.nextValue())).toEqual([1000n, 1001n, 1002n, 1003n, 5000n]);
  });

  it('uses the wall clock in microseconds by default', async () => {
    const before = BigInt(Date.now()) * 1000n;
    const { value } = await new TonceSource().next();
    const after = BigInt(Date.now()) * 1000n + 999n;
    expect(value >= before && value <= after + 1n).toBe(true);
  });

  it('resolves microseconds within the millisecond, so processes calling in one millisecond rarely collide', () => {
    const subMillisecond = new Set<bigint>();
    for (let i = 0; i < 200; i++) subMillisecond.add(systemClockMicros() % 1000n);
    expect(subMillisecond.size).toBeGreaterThan(1);
  });

  it('gives many calls distinct increasing values', () => {
    const source = new TonceSource();
    let previous = 0n;
    for (let i = 0; i < 10_000; i++) {
      const value = source.nextValue();
      expect(value > previous).toBe(true);
      previous = value;
    }
  });
});
