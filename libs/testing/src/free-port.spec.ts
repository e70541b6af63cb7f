import { describe, expect, it, jest } from '@jest/globals';
import { freePort } from './free-port.js';

describe('freePort', () => {
  it('never hands out a port twice in one process: a port picked is often bound only later (an app started on it)', async () => {
    // none of these is bound, as when a test picks the ports of two apps and then starts them: a port handed out
    // again would be taken by the first app and refused to the second (EADDRINUSE)
    const ports: number[] = [];
    for (let i = 0; i < 300; i += 1) ports.push(await freePort());
    expect(new Set(ports).size).toBe(ports.length);
  });
});

describe('freePort in two jest workers at once', () => {
  it('never hands out a port the other worker may hand out too (each its own module, its own memory)', async () => {
    const picks = async (workerId: string): Promise<number[]> => {
      const before = process.env['JEST_WORKER_ID'];
      process.env['JEST_WORKER_ID'] = workerId;
      try {
        const ports: number[] = [];
        await jest.isolateModulesAsync(async () => {
          const { freePort: fresh } = await import('./free-port.js');
          for (let i = 0; i < 200; i += 1) ports.push(await fresh());
        });
        return ports;
      } finally {
        process.env['JEST_WORKER_ID'] = before;
      }
    };
    const first = new Set(await picks('1'));
    expect((await picks('2')).filter((port) => first.has(port))).toEqual([]);
  });
});
