import { describe, expect, it } from '@jest/globals';
import { sameAccountGroup } from './venue-codes.js';

describe('account group identifiers', () => {
  const group = '9a000000-0000-4000-8000-0000000000ab';

  it('two spellings of one UUID are one group (WD10: either case); anything else is compared as written', () => {
    expect(sameAccountGroup(group, group)).toBe(true);
    expect(sameAccountGroup(group.toUpperCase(), group)).toBe(true);
    expect(sameAccountGroup(group, '9A000000-0000-4000-8000-0000000000Ab')).toBe(true);
    expect(sameAccountGroup(group, '9a000000-0000-4000-8000-0000000000ac')).toBe(false);
    expect(sameAccountGroup('group-1', 'GROUP-1')).toBe(false);
    expect(sameAccountGroup('group-1', 'group-1')).toBe(true);
    expect(sameAccountGroup(group, undefined)).toBe(false);
    expect(sameAccountGroup(undefined, undefined)).toBe(true);
    expect(sameAccountGroup('', group)).toBe(false);
  });
});
