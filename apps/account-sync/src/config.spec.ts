import { describe, expect, it } from '@jest/globals';
import { loadConfig } from '#observability';
import { configProblems } from '#testing';
import { AccountSyncConfig } from './config.js';

const required = {
  VENUE_REST_URL: 'http://127.0.0.1:8080',
  VENUE_API_KEY: 'key',
  VENUE_API_SECRET: 'c2VjcmV0LXZhbHVl',
};

const problemsOf = (env: Record<string, string>): string => configProblems(AccountSyncConfig, env).join('\n');

describe('AccountSyncConfig', () => {
  it('applies the defaults, with a REST budget of 20 requests/s (the gateway sum stays under 30)', () => {
    const config = loadConfig(AccountSyncConfig, required);
    expect(config).toMatchObject({
      HTTP_PORT: 3003,
      NATS_SUBJECT_PREFIX: 'gw.v1',
      ACCOUNT: 'default',
      VENUE_REST_REQUESTS_PER_SECOND: 20,
      VENUE_ANTI_REPLAY: 'tonce',
      SYNC_FAST_INTERVAL_MS: 15_000,
    });
  });

  it('lists every bad or missing variable by name, never the secret', () => {
    const problems = problemsOf({
      VENUE_API_SECRET: 'do-not-print-me',
      ACCOUNT: 'a.b',
      VENUE_REST_REQUESTS_PER_SECOND: '31',
      SYNC_FAST_INTERVAL_MS: 'soon',
      WEBHOOK_HOST: 'not_a_host!',
    });
    for (const name of [
      'VENUE_REST_URL',
      'VENUE_API_KEY',
      'VENUE_API_SECRET',
      'ACCOUNT',
      'VENUE_REST_REQUESTS_PER_SECOND',
      'SYNC_FAST_INTERVAL_MS',
      'WEBHOOK_HOST',
    ]) {
      expect(problems).toContain(name);
    }
    expect(problems).not.toContain('do-not-print-me');
  });

  it('paces the trade and transaction sweeps (5 pages a run) and triggered reads (one a second); bad values refused by name', () => {
    expect(loadConfig(AccountSyncConfig, required)).toMatchObject({
      SYNC_SWEEP_PAGES: 5,
      SYNC_TRIGGER_MIN_GAP_MS: 1_000,
    });
    for (const bad of ['0', '101', 'many'])
      expect(problemsOf({ ...required, SYNC_SWEEP_PAGES: bad })).toContain('SYNC_SWEEP_PAGES');
    for (const bad of ['-1', '60001', 'soon']) {
      expect(problemsOf({ ...required, SYNC_TRIGGER_MIN_GAP_MS: bad })).toContain('SYNC_TRIGGER_MIN_GAP_MS');
    }
  });

  it('watches a withdrawal REJECTED on a 401 for 7 days by default; 0 to 90 days, else refused by name', () => {
    expect(loadConfig(AccountSyncConfig, required).WITHDRAWAL_REJECTED_WATCH_MS).toBe(7 * 24 * 3_600_000);
    expect(loadConfig(AccountSyncConfig, { ...required, WITHDRAWAL_REJECTED_WATCH_MS: '0' })).toMatchObject({
      WITHDRAWAL_REJECTED_WATCH_MS: 0,
    });
    for (const bad of ['-1', String(91 * 24 * 3_600_000), 'a week']) {
      expect(problemsOf({ ...required, WITHDRAWAL_REJECTED_WATCH_MS: bad })).toContain('WITHDRAWAL_REJECTED_WATCH_MS');
    }
  });

  it('refuses rules across variables and nonce mode without its directory', () => {
    expect(problemsOf({ ...required, SYNC_FAST_INTERVAL_MS: '60000', SYNC_SLOW_INTERVAL_MS: '1000' })).toContain(
      'SYNC_FAST_INTERVAL_MS must not exceed SYNC_SLOW_INTERVAL_MS',
    );
    expect(problemsOf({ ...required, VENUE_ANTI_REPLAY: 'nonce' })).toContain('VENUE_NONCE_DIR');
    expect(
      problemsOf({ ...required, ACCOUNT_EVENT_RETENTION_MS: '60000', ACCOUNT_EVENT_DUPLICATE_WINDOW_MS: '120000' }),
    ).toContain('ACCOUNT_EVENT_RETENTION_MS');
  });

  it('names single-variable and cross-variable problems in one pass (security tester: a second start was needed)', () => {
    const problems = configProblems(AccountSyncConfig, {
      ...required,
      WEBHOOK_PORT: '43121',
      HTTP_PORT: '43121',
      TRANSACTION_RETENTION_MS: '5',
      SYNC_FAST_INTERVAL_MS: '100000',
      SYNC_SLOW_INTERVAL_MS: '1000',
      ACCOUNT: 'a.b',
      VENUE_REST_REQUESTS_PER_SECOND: '31',
    });
    expect(problems.slice(0, 2).sort()).toEqual([
      expect.stringMatching(/^ACCOUNT /),
      expect.stringMatching(/^VENUE_REST_REQUESTS_PER_SECOND /),
    ]);
    expect(problems.slice(2)).toEqual([
      expect.stringMatching(/^TRANSACTION_RETENTION_MS must be 0 \(kept\) or at least/),
      'WEBHOOK_PORT must differ from HTTP_PORT (/metrics is not exposed to the webhook sender)',
      'SYNC_FAST_INTERVAL_MS must not exceed SYNC_SLOW_INTERVAL_MS',
    ]);
  });

  it('refuses a transaction retention shorter than the duplicate window (transaction and withdrawal streams), keeps 0', () => {
    const problems = configProblems(AccountSyncConfig, { ...required, TRANSACTION_RETENTION_MS: '1' });
    expect(problems).toEqual([
      'TRANSACTION_RETENTION_MS must be 0 (kept) or at least ACCOUNT_EVENT_DUPLICATE_WINDOW_MS (JetStream refuses a duplicate window longer than the retention)',
    ]);
    expect(
      problemsOf({ ...required, TRANSACTION_RETENTION_MS: '120000', ACCOUNT_EVENT_DUPLICATE_WINDOW_MS: '120001' }),
    ).toContain('TRANSACTION_RETENTION_MS');
    for (const ok of [
      { TRANSACTION_RETENTION_MS: '0' },
      { TRANSACTION_RETENTION_MS: '86400000' },
      { TRANSACTION_RETENTION_MS: '60000', ACCOUNT_EVENT_DUPLICATE_WINDOW_MS: '60000' },
    ]) {
      expect(configProblems(AccountSyncConfig, { ...required, ...ok })).toEqual([]);
    }
  });
});
