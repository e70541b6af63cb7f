import { describe, expect, it } from '@jest/globals';
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
