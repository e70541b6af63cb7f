import { describe, it, expect } from '@jest/globals';
import { AccountLimits } from './account-limits.js';

describe('account limits (§8, W14, W15)', () => {
  it('admits 30 messages in a sliding second per account', () => {
    let now = 0;
    const limits = new AccountLimits(30, 250, () => now);
    for (let i = 0; i < 30; i += 1) expect(limits.admitMessage('a')).toBe(true);
    expect(limits.admitMessage('a')).toBe(false);
    expect(limits.admitMessage('b')).toBe(true);
    now = 999;
    expect(limits.admitMessage('a')).toBe(false);
    now = 1000;
    expect(limits.admitMessage('a')).toBe(true);
  });

  it('spaces orders 250 ms per account', () => {
    let now = 0;
    const limits = new AccountLimits(30, 250, () => now);
    expect(limits.admitOrder('a')).toBe(true);
    now = 249;
    expect(limits.admitOrder('a')).toBe(false);
    expect(limits.admitOrder('b')).toBe(true);
    now = 250;
    expect(limits.admitOrder('a')).toBe(true);
  });
});
