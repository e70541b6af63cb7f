import { describe, expect, it } from '@jest/globals';
import { KeyedMailbox } from './keyed-mailbox.js';

describe('KeyedMailbox', () => {
  it('runs work of one key one at a time in arrival order, other keys alongside, and holds no idle key', async () => {
    const mailbox = new KeyedMailbox();
    const log: string[] = [];
    let releaseFirst: () => void = () => undefined;
    const first = mailbox.run('k', async () => {
      log.push('k1 start');
      await new Promise<void>((resolve) => (releaseFirst = resolve));
      log.push('k1 end');
      throw new Error('k1 failed');
    });
    const second = mailbox.run('k', async () => {
      log.push('k2');
      return 2;
    });
    const other = mailbox.run('other', async () => {
      log.push('other');
      return 'o';
    });
    await expect(other).resolves.toBe('o');
    expect(log).toEqual(['k1 start', 'other']);
    releaseFirst();
    await expect(first).rejects.toThrow('k1 failed');
    await expect(second).resolves.toBe(2); // a failure does not block the key's next work
    expect(log).toEqual(['k1 start', 'other', 'k1 end', 'k2']);
    await mailbox.drained();
    expect(mailbox.size).toBe(0);
  });
});
