import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { mkdtemp, rm, truncate, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { limitsFileProblemsAt, loadLimitsFile } from './limits-file.js';
import { LimitsFileError, limitsConfigFrom, parseLimitSet, resolveLimits } from './limits.js';

const EXAMPLE = {
  global: { maxOpenExposure: { BTC: '25', USD: '2000000' } },
  strategies: {
    'mm-btc': {
      allowedInstruments: ['BTC.USD', 'BTC.EUR'],
      maxNotionalPerOrder: { USD: '100000', EUR: '90000' },
      maxNotionalPerMinute: { USD: '500000' },
      maxOrdersPerSecond: 4,
      maxOrdersPerMinute: 120,
      maxOpenExposure: { BTC: '5' },
      maxQuoteAgeMs: 2000,
    },
  },
  accountGroups: { 'a1b2c3d4-0000-4000-8000-000000000001': { maxNotionalPerMinute: { USD: '1000000' } } },
  defaults: { strategy: { maxNotionalPerOrder: { USD: '10000' } } },
  refuseUnlisted: false,
};

describe('the limits file (RISK_LIMITS_FILE)', () => {
  let dir: string;
  const write = async (name: string, content: string) => {
    const path = join(dir, name);
    await writeFile(path, content);
    return path;
  };

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'risk-limits-'));
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('loads the documented example, decimals exact', async () => {
    const config = loadLimitsFile(await write('ok.json', JSON.stringify(EXAMPLE)));
    const strategy = resolveLimits(config, 'strategy', 'mm-btc');
    expect(strategy.kind === 'limits' && strategy.limits?.maxNotionalPerOrder?.get('USD')?.toFixed()).toBe('100000');
    const unlisted = resolveLimits(config, 'strategy', 'other');
    expect(unlisted.kind === 'limits' && unlisted.limits?.maxNotionalPerOrder?.get('USD')?.toFixed()).toBe('10000');
    expect(limitsFileProblemsAt(join(dir, 'ok.json'))).toEqual([]);
  });

  it('amounts are kept in their plain form: written back as 1000 whether the file says 001000 or 1E+3', () => {
    const config = limitsConfigFrom({
      global: { maxNotionalPerOrder: { USD: '001000', EUR: '1E+3' } },
      strategies: { s: { maxOpenExposure: { BTC: '0.50' } } },
      defaults: { accountGroup: { maxNotionalPerMinute: { USD: '2e3' } } },
    });
    expect(config.file).toEqual({
      global: { maxNotionalPerOrder: { USD: '1000', EUR: '1000' } },
      strategies: { s: { maxOpenExposure: { BTC: '0.5' } } },
      defaults: { accountGroup: { maxNotionalPerMinute: { USD: '2000' } } },
    });
  });

  it('an amount longer than 64 characters written plainly is refused (1e100), not stored as a hundred digits', () => {
    expect(() => limitsConfigFrom({ global: { maxOpenExposure: { BTC: '1e100' } } })).toThrow(
      'global.maxOpenExposure.BTC must be at most 64 characters written plainly',
    );
    expect(parseLimitSet({ maxOpenExposure: { BTC: '1e63' } })).not.toBe('invalid');
  });

  it('no file: no limits beyond the quote checks and trading states', () => {
    const config = loadLimitsFile(undefined);
    expect(resolveLimits(config, 'strategy', 'any')).toEqual({ kind: 'limits', limits: undefined });
  });

  it('refuses a bad file naming every bad entry (never its values)', async () => {
    const bad = {
      strategies: {
        alpha: { maxNotionalPerOrder: { USD: '100,000' }, maxOrdersPerSecond: -1, maxOrderz: 3 },
        'bad.id': {},
        'mm 1': {},
      },
      accountGroups: { g1: { allowedInstruments: ['BTCUSD'], maxOpenExposure: { btc: '0.001' } } },
      defaults: { strategy: { maxOpenExposure: 5 } },
      extra: true,
    };
    const path = await write('bad.json', JSON.stringify(bad));
    expect(() => loadLimitsFile(path)).toThrow(LimitsFileError);
    const problems = limitsFileProblemsAt(path);
    expect(problems).toEqual(
      expect.arrayContaining([
        'RISK_LIMITS_FILE: extra is not a section (known: global, strategies, accountGroups, defaults, refuseUnlisted)',
        'RISK_LIMITS_FILE: strategies.alpha.maxNotionalPerOrder.USD must be a non-negative decimal string',
        'RISK_LIMITS_FILE: strategies.alpha.maxOrdersPerSecond must be an integer from 0 to 1000000',
        expect.stringContaining('RISK_LIMITS_FILE: strategies.alpha.maxOrderz is not a limit'),
        // as an order's strategyId: an entry spelt otherwise would limit no order
        "RISK_LIMITS_FILE: strategies.bad.id: a strategy id is 1-64 letters, digits, _ or - (as an order's)",
        "RISK_LIMITS_FILE: strategies.mm 1: a strategy id is 1-64 letters, digits, _ or - (as an order's)",
        'RISK_LIMITS_FILE: accountGroups.g1.allowedInstruments[0] must be an instrument BASE.QUOTE',
        // a lower-case key would never match the venue's currency: a limit that holds nothing back
        'RISK_LIMITS_FILE: accountGroups.g1.maxOpenExposure.btc: a currency is 1-16 upper-case letters or digits, as the venue writes it (USD, BTC)',
        'RISK_LIMITS_FILE: defaults.strategy.maxOpenExposure must be an object of currency → decimal string',
      ]),
    );
    expect(problems.join(' ')).not.toContain('100,000');
  });

  it('refuses a file that is missing or not JSON', async () => {
    expect(limitsFileProblemsAt(join(dir, 'absent.json'))).toEqual([
      'RISK_LIMITS_FILE: the file cannot be read (ENOENT)',
    ]);
    const path = await write('broken.json', '{ "global": ');
    expect(limitsFileProblemsAt(path)[0]).toMatch(/^RISK_LIMITS_FILE: the file is not JSON/);
    expect(() => loadLimitsFile(path)).toThrow(LimitsFileError);
  });

  // outside tester: RISK_LIMITS_FILE=/dev/zero read without end at start-up (the size was checked after the read);
  // a directory, a device or a pipe is refused before reading, so is a file above the bound
  it('refuses a path that is not a regular file, or too large, without reading it', async () => {
    expect(limitsFileProblemsAt('/dev/zero')).toEqual(['RISK_LIMITS_FILE: the file is not a regular file']);
    expect(limitsFileProblemsAt(dir)).toEqual(['RISK_LIMITS_FILE: the file is not a regular file']);
    const big = await write('big.json', '');
    await truncate(big, 16 * 1024 * 1024 + 1);
    expect(limitsFileProblemsAt(big)).toEqual([`RISK_LIMITS_FILE: the file is larger than ${16 * 1024 * 1024} bytes`]);
  });

  it('a limits file with an amount the gateway cannot parse ("100000.") is refused at start-up by name', async () => {
    const path = await write('dot.json', JSON.stringify({ global: { maxNotionalPerOrder: { USD: '100000.' } } }));
    expect(() => loadLimitsFile(path)).toThrow(LimitsFileError);
    expect(limitsFileProblemsAt(path).join('\n')).toContain('maxNotionalPerOrder.USD');
  });

  it('a stored limit set the gateway cannot parse is invalid (its scope refused), never a throw', () => {
    expect(parseLimitSet({ maxNotionalPerOrder: { USD: '100000.' } })).toBe('invalid');
    expect(parseLimitSet({ maxNotionalPerOrder: { USD: '1e2000' } })).toBe('invalid');
    expect(parseLimitSet({ maxNotionalPerOrder: { USD: '100000' } })).not.toBe('invalid');
  });
});
