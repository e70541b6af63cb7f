/**
 * The examples run as a strategy author runs them (`node dist/examples/...`) against the stack `npm start`
 * starts: the SDK price follower and order placer, and the same with only a plain NATS client.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { removeDataDir, startLauncher, type RunningLauncher } from '../stack/launcher.js';

const run = promisify(execFile);

describe('examples against the stack', () => {
  let stack: RunningLauncher;

  beforeAll(async () => {
    stack = await startLauncher();
  }, 90_000); // the launcher alone may take up to 60 s to come up on a busy machine
  afterAll(async () => {
    await stack?.interrupt();
    await removeDataDir(stack?.dataDir ?? '');
  });

  async function example(path: string, env: Record<string, string> = {}): Promise<string[]> {
    const { stdout } = await run(process.execPath, [join(process.cwd(), 'dist/examples', path)], {
      env: { PATH: process.env['PATH'] ?? '', NATS_URL: stack.natsUrl, MAX_UPDATES: '5', THRESHOLD_BPS: '0.5', ...env },
      encoding: 'utf8',
      timeout: 30_000,
    });
    return stdout.trim().split('\n');
  }

  const PRICE_LINE = /^price \S+ mid \d+\.\d{4} move -?\d+\.\d{2} bps → (BUY|SELL|HOLD)( \(last value\))?$/;

  it('the SDK price follower follows five tradable prices and signals on moves', async () => {
    const lines = await example('sdk/price-follower.js');
    expect(lines[0]).toBe('following BTC.USD 1 BTC T in group 9a000000-0000-4000-8000-000000000001');
    const prices = lines.filter((l) => l.startsWith('price '));
    expect(prices).toHaveLength(5);
    for (const line of prices) expect(line).toMatch(PRICE_LINE);
    expect(lines.at(-1)).toBe('done');
  });

  it('the plain-NATS price follower (no project code) does the same over the raw contract', async () => {
    const lines = await example('plain-nats/price-follower.js', {
      INSTRUMENT: 'ETH.USD',
      QUANTITY: '10',
      CURRENCY: 'ETH',
    });
    expect(lines[0]).toBe('following gw.v1.price.9a000000-0000-4000-8000-000000000001.ETH.USD.T.ETH.10');
    const prices = lines.filter((l) => l.startsWith('price '));
    expect(prices).toHaveLength(5);
    for (const line of prices) expect(line).toMatch(PRICE_LINE);
    expect(lines.at(-1)).toBe('done');
  });

  it('a wrong account is a clear error with the next step, exit 1', async () => {
    const failed = await example('sdk/price-follower.js', { ACCOUNT: 'nobody' }).catch(
      (e: { code: number; stderr: string }) => e,
    );
    expect(failed).toMatchObject({ code: 1 });
    expect((failed as { stderr: string }).stderr).toMatch(/no connector serves account "nobody"[\s\S]*next:/);
  });

  it('the plain-NATS examples tell a request nobody serves (nats.js 3: RequestError.isNoResponders()), exit 1', async () => {
    for (const path of ['plain-nats/price-follower.js', 'plain-nats/order-placer.js']) {
      const failed = await example(path, { ACCOUNT: 'nobody' }).catch((e: { code: number; stderr: string }) => e);
      expect(failed).toMatchObject({ code: 1 });
      expect((failed as { stderr: string }).stderr).toContain(
        'nobody serves gw.v1.nobody.account-groups.get (no responders: nothing was received)',
      );
    }
  });

  const ORDER_LINE = /^order \S+ (BUY|SELL) on quote \S+$/;
  const OUTCOME_LINE = /^outcome SUCCESS 0\.01 BTC at \d+(\.\d+)?$/;

  function checkOrders(lines: string[]): void {
    expect(lines.filter((l) => ORDER_LINE.test(l))).toHaveLength(2);
    expect(lines.filter((l) => OUTCOME_LINE.test(l))).toHaveLength(2);
    expect(lines.filter((l) => /^ {2}\d+ SUCCESS$/.test(l))).toHaveLength(2); // the final event of each
    expect(lines.at(-1)).toBe('done');
  }

  it('the SDK order placer places a BUY and a SELL and shows each outcome; a rerun never places them twice', async () => {
    const env = { RUN_ID: `sdk-${process.pid}` };
    const lines = await example('sdk/order-placer.js', env);
    checkOrders(lines);
    const again = await example('sdk/order-placer.js', env);
    expect(again.filter((l) => l.endsWith('(already placed)'))).toHaveLength(2);
    expect(again.filter((l) => l.startsWith('order ')).map((l) => l.split(' ')[1])).toEqual(
      lines.filter((l) => l.startsWith('order ')).map((l) => l.split(' ')[1]),
    );
  });

  it('the plain-NATS order placer (no project code) does the same over the raw contract', async () => {
    checkOrders(await example('plain-nats/order-placer.js'));
  });
});
