import { describe, expect, it } from '@jest/globals';
import { FirstOutHeap } from './first-out-heap.js';

describe('FirstOutHeap', () => {
  it('gives its items back in order (peek shows the next), pushes and pops mixed, and keeps only what retain accepts', () => {
    let seed = 7;
    const random = () => (seed = (seed * 48271) % 2147483647) / 2147483647;
    const heap = new FirstOutHeap<number>((a, b) => a > b);
    const held: number[] = [];
    for (let step = 0; step < 5_000; step += 1) {
      if (random() < 0.6 || held.length === 0) {
        const item = Math.floor(random() * 100);
        heap.push(item);
        held.push(item);
      } else {
        held.sort((a, b) => b - a);
        expect(heap.pop()).toBe(held.shift());
      }
      if (step % 1_000 === 999) {
        heap.retain((item) => item % 3 !== 0);
        held.splice(0, held.length, ...held.filter((item) => item % 3 !== 0));
      }
      expect(heap.size).toBe(held.length);
      expect(heap.peek()).toBe(held.length === 0 ? undefined : Math.max(...held));
    }
    held.sort((a, b) => b - a);
    const rest: number[] = [];
    for (let item = heap.pop(); item !== undefined; item = heap.pop()) rest.push(item);
    expect(rest).toEqual(held);
  });
});
