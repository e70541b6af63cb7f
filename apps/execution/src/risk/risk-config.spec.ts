import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig } from '#observability';
import { configProblems } from '#testing';
import { ExecutionConfig } from '../config.js';

const BASE = {
  VENUE_REST_URL: 'http://127.0.0.1:1',
  VENUE_API_KEY: 'key',
  VENUE_API_SECRET: Buffer.from('secret').toString('base64'),
};

const problemsOf = (env: Record<string, string>): string[] => configProblems(ExecutionConfig, { ...BASE, ...env });

describe('the execution config: pre-trade risk settings', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'risk-config-'));
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('defaults: no limits file, kill switch off', () => {
    const config = loadConfig(ExecutionConfig, BASE);
    expect(config.RISK_LIMITS_FILE).toBeUndefined();
    expect(config.TRADING_KILL_SWITCH).toBe(false);
  });

  it('takes a valid limits file and the kill switch', async () => {
    const path = join(dir, 'ok.json');
    await writeFile(path, JSON.stringify({ strategies: { alpha: { maxOrdersPerSecond: 2 } } }));
    const config = loadConfig(ExecutionConfig, { ...BASE, RISK_LIMITS_FILE: path, TRADING_KILL_SWITCH: 'true' });
    expect(config.RISK_LIMITS_FILE).toBe(path);
    expect(config.TRADING_KILL_SWITCH).toBe(true);
  });

  it('refuses a bad limits file at start-up, naming the bad entry', async () => {
    const path = join(dir, 'bad.json');
    await writeFile(path, JSON.stringify({ strategies: { alpha: { maxNotionalPerOrder: { USD: 'lots' } } } }));
    expect(problemsOf({ RISK_LIMITS_FILE: path })).toEqual([
      'RISK_LIMITS_FILE: strategies.alpha.maxNotionalPerOrder.USD must be a non-negative decimal string',
    ]);
    expect(problemsOf({ RISK_LIMITS_FILE: join(dir, 'absent.json') })).toEqual([
      'RISK_LIMITS_FILE: the file cannot be read (ENOENT)',
    ]);
  });

  it('refuses a kill switch that is not a boolean', () => {
    expect(problemsOf({ TRADING_KILL_SWITCH: 'yes' }).join(' ')).toContain('TRADING_KILL_SWITCH');
  });
});
