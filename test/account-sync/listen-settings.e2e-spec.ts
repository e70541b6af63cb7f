/**
 * Outside tester ("tell operators the truth"): a port or host the app cannot listen on was found only when it
 * listened. account-sync with WEBHOOK_PORT taken by another process took the account lease, started its sync and
 * its parts, then failed with Node's `listen EADDRINUSE` (no setting named), released the lease and exited 1; a
 * connector with HTTP_HOST=1.5 (a legal host name: 1.0.0.5) failed with `listen EADDRNOTAVAIL`. Now every address
 * an app listens on is tried before anything starts: one configuration line naming the setting — exit 78 for a
 * host (a setting to fix), exit 75 for a port in use (it may be the app's previous life still stopping: start again).
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createServer, type Server } from 'node:net';
import { AppProcess } from '../kit/app-process.js';

const VENUE = {
  VENUE_REST_URL: 'http://127.0.0.1:1',
  VENUE_API_KEY: 'key',
  VENUE_API_SECRET: 'c2VjcmV0LXZhbHVl',
  NATS_URL: 'nats://127.0.0.1:1', // never reached: the start-up stops before NATS
};

describe('an address an app cannot listen on is refused before anything starts', () => {
  let taken: Server;
  let takenPort: number;
  beforeAll(async () => {
    taken = createServer();
    await new Promise<void>((resolve) => taken.listen(0, '0.0.0.0', resolve));
    takenPort = (taken.address() as { port: number }).port;
  });
  afterAll(() => new Promise<void>((resolve) => taken.close(() => resolve())));

  it('account-sync: WEBHOOK_PORT in use is named, exit 75 (start again), no lease taken', async () => {
    const app = AppProcess.start('account-sync', { ...VENUE, HTTP_PORT: '0', WEBHOOK_PORT: String(takenPort) });
    expect((await app.exited).code).toBe(75);
    expect(app.lines[0]).toBe(
      `account-sync: configuration: WEBHOOK_PORT ${takenPort} is in use on WEBHOOK_HOST 0.0.0.0 (another process listens there)`,
    );
    expect(app.lines.at(-1)).toBe(
      'account-sync: see docs/account-sync.md#configuration; nothing was started; exit 75: start it again once the port is free',
    );
  });

  it('connector: an HTTP_HOST that is not an address of this machine is named, exit 78', async () => {
    const app = AppProcess.start('connector', {
      ...VENUE,
      VENUE_WS_URL: 'ws://127.0.0.1:1/svc/ws/ws-client',
      VENUE_SESSION_ID: 'session-1',
      HTTP_HOST: '1.5',
      HTTP_PORT: '0',
    });
    expect((await app.exited).code).toBe(78);
    expect(app.lines[0]).toBe('connector: configuration: HTTP_HOST 1.5 is not an address this machine can listen on');
  });

  it('sandbox venue: SANDBOX_PORT in use is named, exit 75', async () => {
    const app = AppProcess.start('sandbox-venue', { SANDBOX_PORT: String(takenPort), SANDBOX_HOST: '0.0.0.0' });
    expect((await app.exited).code).toBe(75);
    expect(app.lines[0]).toBe(
      `sandbox-venue: configuration: SANDBOX_PORT ${takenPort} is in use on SANDBOX_HOST 0.0.0.0 (another process listens there)`,
    );
  });

  it('execution: HTTP_PORT in use is named, exit 75', async () => {
    const app = AppProcess.start('execution', { ...VENUE, HTTP_PORT: String(takenPort) });
    expect((await app.exited).code).toBe(75);
    expect(app.lines[0]).toBe(
      `execution: configuration: HTTP_PORT ${takenPort} is in use on HTTP_HOST 0.0.0.0 (another process listens there)`,
    );
  });

  it('a port in use beside a host not of this machine: the host is the setting to fix, exit 78', async () => {
    const app = AppProcess.start('account-sync', {
      ...VENUE,
      HTTP_PORT: String(takenPort),
      WEBHOOK_PORT: '0',
      WEBHOOK_HOST: '1.5',
    });
    expect((await app.exited).code).toBe(78);
    expect(app.lines).toContain(
      'account-sync: configuration: WEBHOOK_HOST 1.5 is not an address this machine can listen on',
    );
    expect(app.lines).toContain(
      `account-sync: configuration: HTTP_PORT ${takenPort} is in use on HTTP_HOST 0.0.0.0 (another process listens there)`,
    );
  });
});
