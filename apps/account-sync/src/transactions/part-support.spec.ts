import { describe, expect, it } from '@jest/globals';
import { storeHealth } from './part-support.js';

describe('storeHealth', () => {
  it('down while NATS is not connected, though the part’s own check (no write failed yet) says up', async () => {
    const connection = { isUp: false };
    let asked = 0;
    const check = storeHealth(connection, 'the withdrawal requests', () => {
      asked += 1;
      return { up: true };
    });
    expect(await check()).toEqual({
      up: false,
      detail: 'NATS not connected: the withdrawal requests cannot be reached',
    });
    expect(asked).toBe(0);
    connection.isUp = true;
    expect(await check()).toEqual({ up: true });
  });

  it('connected: the part’s own verdict (down after a failed write until its probe reads)', async () => {
    const check = storeHealth({ isUp: true }, 'x', async () => ({ up: false, detail: 'storage failing' }));
    expect(await check()).toEqual({ up: false, detail: 'storage failing' });
  });
});
