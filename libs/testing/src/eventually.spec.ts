import { describe, expect, it } from '@jest/globals';
import { eventually, waitFor } from './eventually.js';

describe('eventually', () => {
  it('returns the first defined value', async () => {
    let calls = 0;
    await expect(eventually(() => (++calls >= 3 ? `after ${calls}` : undefined), { intervalMs: 1 })).resolves.toBe(
      'after 3',
    );
  });

  it('fails naming what it waited for', async () => {
    await expect(eventually(() => undefined, { what: 'the SUCCESS outcome', timeoutMs: 30 })).rejects.toThrow(
      'timed out after 30 ms waiting for: the SUCCESS outcome',
    );
    await expect(waitFor(() => false, 'never', 30)).rejects.toThrow('waiting for: never');
  });
});
