import { describe, expect, it } from '@jest/globals';
import { BoundedMap } from './bounded-map.js';

describe('BoundedMap', () => {
  it('forgets its oldest entry past the limit; setting a key again makes it the newest', () => {
    const map = new BoundedMap<string, number>(2);
    map.set('a', 1);
    map.set('b', 2);
    map.set('a', 3);
    map.set('c', 4);
    expect([map.has('a'), map.has('b'), map.has('c')]).toEqual([true, false, true]);
    expect(map.get('a')).toBe(3);
    expect(map.size).toBe(2);
    map.delete('a');
    expect(map.get('a')).toBeUndefined();
  });
});
