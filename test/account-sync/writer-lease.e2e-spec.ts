/**
 * One writer per account: two account-sync processes (from dist/) for one account. The second is a standby —
 * /health 503 naming the holder, no part started, nothing read or written, no series of the withdrawal desk's
 * gauges (it holds no request) — and takes over within about a second when the holder stops cleanly (SIGTERM,
 * exit 0: the lease released), and at once when an instance on this host starts after the holder was killed
 * (kill -9: its pid is gone). A holder whose lease another instance took stops at once, exit 75. In one process
 * (as tests run it), a second instance waits while the first runs and takes over when the first is closed.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Kvm } from '@nats-io/kv';
import { BucketName } from '#bus';
import { loadConfig } from '#observability';
import { freePort, waitFor } from '#testing';
import { startAccountSync } from '../../apps/account-sync/src/bootstrap.js';
import { AccountSyncConfig } from '../../apps/account-sync/src/config.js';
import { metricSum, metricValue } from '../connector/connector-stack.js';
import { startAccountSyncProcess, type AccountSyncProcess } from '../monitoring/gateway-stack.js';
import { ACCOUNT, startAccountSyncStack, type AccountSyncStack } from './webhooks-stack.js';

/** Long enough that a takeover by lapse could not pass for one by release or by a gone holder. */
const LEASE_MS = 10_000;

interface Health {
  status: string;
  checks: Record<string, { up: boolean; detail?: string }>;
}

async function health(app: { httpUrl: string }): Promise<{ code: number; body: Health }> {
  const response = await fetch(`${app.httpUrl}/health`);
  return { code: response.status, body: (await response.json()) as Health };
}

const STUCK = 'account_sync_withdrawals_stuck';
const OPEN = 'account_sync_withdrawals_open';

const leaseUp = async (app: { httpUrl: string }) => (await health(app)).body.checks['account-lease']?.up === true;

describe('account-sync: one writer per account (two processes)', () => {
  let stack: AccountSyncStack;
  const apps: AccountSyncProcess[] = [];

  /** Another instance for the same account: its own HTTP and webhook ports. */
  const start = async () => {
    const env = { ...stack.env, WEBHOOK_PORT: String(await freePort()), ACCOUNT_LEASE_MS: String(LEASE_MS) };
    const app = await startAccountSyncProcess({ ...env, LOG_LEVEL: 'info' });
    apps.push(app);
    return app;
  };

  beforeAll(async () => {
    stack = await startAccountSyncStack({ startApp: false, env: { SYNC_FAST_INTERVAL_MS: '1000' } });
  });
  afterAll(async () => {
    for (const app of apps) await app.process.stop();
    await stack?.stop();
  });

  it('the second waits (503, says who holds, writes nothing) and takes over about a second after a SIGTERM', async () => {
    const first = await start();
    await waitFor(() => leaseUp(first), 'the first holds the lease');
    await waitFor(async () => (await metricSum(first.httpUrl, 'account_sync_runs_total')) > 0, 'the first syncs');
    // the holder tells its withdrawal desk's requests (none here): 0, read at the scrape
    await waitFor(async () => (await metricValue(first.httpUrl, STUCK)) === 0, 'the holder exports none stuck');
    expect(await metricValue(first.httpUrl, OPEN, { state: 'PENDING_APPROVAL' })).toBe(0);

    const second = await start();
    await second.process.waitForLine('standby: account held by');
    const waiting = await health(second);
    expect(waiting.code).toBe(503);
    expect(waiting.body.checks['account-lease']).toMatchObject({ up: false });
    expect(waiting.body.checks['account-lease']?.detail).toMatch(
      new RegExp(`^standby: the account is held by instance \\S+ on host \\S+ \\(pid ${first.process.pid}\\)`),
    );
    expect(await metricValue(second.httpUrl, 'account_sync_lease_state', { state: 'standby' })).toBe(1);
    // its parts say they are not started (outside tester: the transaction ledger read "up")
    expect(waiting.body.checks['transaction-ledger']).toEqual({ up: false, detail: 'not started' });
    expect(waiting.body.checks['withdrawals']).toEqual({ up: false, detail: 'not started' });
    // it holds no withdrawal request: no series at all, never a 0 that reads "none stuck"
    expect(await metricValue(second.httpUrl, STUCK)).toBeUndefined();
    expect(await metricSum(second.httpUrl, OPEN)).toBe(0);
    expect(await metricValue(second.httpUrl, OPEN, { state: 'PENDING_APPROVAL' })).toBeUndefined();
    // a few of the first's sync periods later the standby has still started nothing: no read, no receiver
    await waitFor(async () => (await metricSum(first.httpUrl, 'account_sync_runs_total')) > 5, 'the first syncs on');
    expect(await metricSum(second.httpUrl, 'account_sync_runs_total')).toBe(0);
    expect(second.process.lines.some((line) => line.includes('webhook receiver listening'))).toBe(false);
    expect(second.process.lines.filter((line) => line.includes('standby: account held by'))).toHaveLength(1);

    first.process.signal('SIGTERM');
    expect((await first.process.exited).code).toBe(0);
    const stopped = Date.now();
    await waitFor(() => leaseUp(second), 'the standby holds the lease', LEASE_MS);
    const tookMs = Date.now() - stopped;
    expect(tookMs).toBeLessThan(LEASE_MS / 2); // released, not lapsed (it reads every second)
    await second.process.waitForLine('"reason":"released"');
    await waitFor(async () => (await metricSum(second.httpUrl, 'account_sync_runs_total')) > 0, 'the second syncs');
    await second.process.waitForLine('webhook receiver listening');
    expect(await metricValue(second.httpUrl, STUCK)).toBe(0); // the desk loaded: it tells now
    expect(await metricValue(second.httpUrl, OPEN, { state: 'PENDING_APPROVAL' })).toBe(0);
  }, 90_000);

  it('after kill -9 of the holder, an instance started again on this host takes over at once', async () => {
    const holder = apps.at(-1) as AccountSyncProcess;
    holder.process.signal('SIGKILL');
    await holder.process.exited;
    const restarted = await start();
    const taken = await restarted.process.waitForLine('account lease taken');
    expect(taken).toContain('"reason":"holder-gone"');
    expect(restarted.process.lines.some((line) => line.includes('standby:'))).toBe(false);
    await waitFor(() => leaseUp(restarted), 'the restarted instance holds the lease');
    restarted.process.signal('SIGTERM');
    expect((await restarted.process.exited).code).toBe(0);
  }, 60_000);

  it('a holder that finds its lease taken by another instance stops at once, exit 75', async () => {
    const holder = await start();
    await waitFor(() => leaseUp(holder), 'it holds the lease');
    const kv = await new Kvm(stack.client).open(BucketName.accountSyncLeases);
    const other = { instanceId: 'intruder', host: 'elsewhere', pid: 1, renewedAt: new Date().toISOString() };
    await kv.put(ACCOUNT, JSON.stringify(other));
    expect((await holder.process.exited).code).toBe(75);
    expect(holder.process.lines.some((line) => line.includes('account lease lost'))).toBe(true);
    expect(holder.process.lines.some((line) => line.includes('taken by instance intruder on host elsewhere'))).toBe(
      true,
    );
    await kv.delete(ACCOUNT); // the intruder is gone
  }, 60_000);

  it('in one process: a second instance waits while the first runs, and takes over when the first is closed', async () => {
    const first = await stack.startApp();
    await waitFor(() => leaseUp(first), 'the first holds the lease');
    const env = { ...stack.env, WEBHOOK_PORT: String(await freePort()), ACCOUNT_LEASE_MS: String(LEASE_MS) };
    const lost: string[] = [];
    const second = await startAccountSync(loadConfig(AccountSyncConfig, env), { failStop: (r) => lost.push(r) });
    try {
      const waiting = await health(second);
      expect(waiting.code).toBe(503);
      expect(waiting.body.checks['account-lease']?.detail).toContain(`(pid ${process.pid})`);
      await stack.stopApp();
      const closed = Date.now();
      await waitFor(() => leaseUp(second), 'the second holds the lease', LEASE_MS);
      expect(Date.now() - closed).toBeLessThan(LEASE_MS / 2);
      expect(lost).toEqual([]);
    } finally {
      await second.close();
    }
  }, 60_000);
});
