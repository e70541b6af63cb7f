/**
 * Restarts are routine: an operator's `kill -TERM <pid>` of an app, again and again (a rolling restart, a chaos
 * drill). Each stop exits 0, the launcher starts the app again after its first pause (1 s) every time the app came
 * back and served in between — a crash loop is an app that never gets healthy, not one stopped on purpose — and
 * orders flow after each restart. (hC F1: the pause doubled to 8 s by the fourth SIGTERM within a minute.)
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { GatewayClient } from '#client';
import { eventually } from '#testing';
import { removeDataDir, startLauncher, type RunningLauncher } from './launcher.js';

const GROUP = '9a000000-0000-4000-8000-000000000001';

/** The app's pid in `stack.children.json`; undefined while the launcher rewrites it (read half-written). */
async function pidOf(dataDir: string, name: string): Promise<number | undefined> {
  try {
    const children = JSON.parse(await readFile(join(dataDir, 'stack.children.json'), 'utf8')) as {
      name: string;
      pid: number;
    }[];
    return children.find((child) => child.name === name)?.pid;
  } catch {
    return undefined;
  }
}

async function healthy(port: number): Promise<true | undefined> {
  try {
    return (await fetch(`http://127.0.0.1:${port}/health`)).status === 200 ? true : undefined;
  } catch {
    return undefined; // not listening yet
  }
}

describe('the launcher on a rolling restart', () => {
  let stack: RunningLauncher | undefined;

  beforeAll(async () => {
    stack = await startLauncher();
  }, 90_000);

  afterAll(async () => {
    await stack?.interrupt();
    if (stack !== undefined) await removeDataDir(stack.dataDir);
  }, 60_000); // the launcher stops five components in turn (each may take seconds to finish what it holds)

  it('SIGTERM to the connector four times: exit 0 each time, started again after 1 s each time, orders flow after each', async () => {
    const running = stack as RunningLauncher;
    const client = await GatewayClient.connect({ servers: running.natsUrl, account: 'default' });
    try {
      for (let round = 1; round <= 4; round++) {
        const pid = await eventually(() => pidOf(running.dataDir, 'connector'), { what: 'the connector pid' });
        process.kill(pid, 'SIGTERM');
        const restarted = await eventually(
          async () => {
            const now = await pidOf(running.dataDir, 'connector');
            return now !== undefined && now !== pid && (await healthy(running.ports.connector)) ? now : undefined;
          },
          { what: `the connector started again (round ${round})`, timeoutMs: 60_000 },
        );
        expect(restarted).not.toBe(pid);
        const order = await client.placeOrder({
          idempotencyKey: `rolling-${round}`,
          strategyId: 'rolling-restart',
          accountGroup: GROUP,
          side: 'BUY',
          instrument: 'BTC.USD',
          quantity: '0.01',
          currency: 'BTC',
          tenor: 'T',
        });
        expect(order.state).toBe('SUCCESS');
      }
    } finally {
      await client.close();
    }
    const restarts = running.process.lines.filter((line) => line.startsWith('stack: connector '));
    expect(restarts).toEqual(
      Array.from(
        { length: 4 },
        () => 'stack: connector stopped (code 0) without the launcher asking; starting it again in 1 s',
      ),
    );
  }, 240_000);

  it('SIGTERM to account-sync again before its restart served (/health not 200 yet): still 1 s — a clean stop is no crash loop', async () => {
    const running = stack as RunningLauncher;
    const first = await eventually(() => pidOf(running.dataDir, 'account-sync'), { what: 'the account-sync pid' });
    process.kill(first, 'SIGTERM');
    const second = await eventually(
      async () => {
        const now = await pidOf(running.dataDir, 'account-sync');
        return now !== undefined && now !== first ? now : undefined;
      },
      { what: 'account-sync started again', timeoutMs: 60_000 },
    );
    process.kill(second, 'SIGTERM');
    await eventually(
      async () => {
        const now = await pidOf(running.dataDir, 'account-sync');
        return now !== undefined && now !== second && (await healthy(running.ports.accountSync)) ? now : undefined;
      },
      { what: 'account-sync started a third time and healthy', timeoutMs: 60_000 },
    );
    // the second SIGTERM may come before the new process takes signals (still loading its modules): it ends by it
    const restarts = running.process.lines.filter((line) => line.startsWith('stack: account-sync '));
    expect({ restarts, lines: running.process.lines }).toMatchObject({ restarts: { length: 2 } });
    for (const line of restarts) {
      expect(line).toMatch(
        /^stack: account-sync stopped \((code 0|SIGTERM)\) without the launcher asking; starting it again in 1 s$/,
      );
    }
  }, 120_000);
});
