import { describe, expect, it } from '@jest/globals';
import { loadConfig } from '#observability';
import { configProblems } from '#testing';
import { ExecutionConfig } from './config.js';

const required = {
  VENUE_REST_URL: 'http://127.0.0.1:8080',
  VENUE_API_KEY: 'key',
  VENUE_API_SECRET: 'c2VjcmV0LXZhbHVl',
};

const problemsOf = (env: Record<string, string>): string => configProblems(ExecutionConfig, env).join('\n');

describe('ExecutionConfig', () => {
  it('applies the defaults: REST share 4/s, tonce, a 3 s lease', () => {
    const config = loadConfig(ExecutionConfig, required);
    expect(config).toMatchObject({
      HTTP_PORT: 3002,
      ACCOUNT: 'default',
      VENUE_REST_REQUESTS_PER_SECOND: 4,
      VENUE_ANTI_REPLAY: 'tonce',
      INSTANCE_LEASE_MS: 3_000,
      QUOTE_LIFE_MS: 600_000,
    });
    expect(config.INSTANCE_ID).toBeUndefined();
    expect(config.FAULT_CRASH_AT).toBeUndefined();
  });

  it('lists every bad or missing variable by name, never the secret', () => {
    const problems = problemsOf({
      VENUE_API_SECRET: 'do-not-print-me',
      VENUE_REST_URL: 'not a url',
      INSTANCE_ID: 'has space',
      VENUE_REST_REQUESTS_PER_SECOND: '31',
      VENUE_ANTI_REPLAY: 'nonce',
      FAULT_CRASH_AT: 'sometimes',
      QUOTE_WAIT_MS: '0x10',
    });
    for (const name of [
      'VENUE_REST_URL',
      'VENUE_API_KEY',
      'VENUE_API_SECRET',
      'INSTANCE_ID',
      'VENUE_REST_REQUESTS_PER_SECOND',
      'VENUE_ANTI_REPLAY',
      'FAULT_CRASH_AT',
      'QUOTE_WAIT_MS',
    ]) {
      expect(problems).toContain(name);
    }
    expect(problems).not.toContain('do-not-print-me');
  });

  it('checks rules across variables', () => {
    const problems = problemsOf({
      ...required,
      ORDER_RETENTION_MS: '60000',
      ORDER_EVENT_DUPLICATE_WINDOW_MS: '120000',
      RECONCILE_INITIAL_MS: '5000',
      RECONCILE_MAX_MS: '1000',
      OWNERSHIP_SWEEP_MS: '5000',
      INSTANCE_LEASE_MS: '1000',
    });
    expect(problems).toContain('ORDER_RETENTION_MS must be at least ORDER_EVENT_DUPLICATE_WINDOW_MS');
    expect(problems).toContain('RECONCILE_INITIAL_MS must not exceed RECONCILE_MAX_MS');
    expect(problems).toContain('OWNERSHIP_SWEEP_MS must not exceed INSTANCE_LEASE_MS');
  });

  it('names single-variable, cross-variable and file problems in one pass (security tester: three starts were needed)', () => {
    const problems = configProblems(ExecutionConfig, {
      ...required,
      ORDER_RETENTION_MS: '1',
      INSTANCE_LEASE_MS: 'abc',
      QUOTE_LIFE_MS: '-5',
      RISK_LIMITS_FILE: '/nonexistent/limits.json',
      RECONCILE_INITIAL_MS: '600000',
      RECONCILE_MAX_MS: '10',
    });
    expect(problems).toEqual([
      expect.stringMatching(/^ORDER_RETENTION_MS /),
      expect.stringMatching(/^INSTANCE_LEASE_MS /),
      expect.stringMatching(/^QUOTE_LIFE_MS /),
      'RECONCILE_INITIAL_MS must not exceed RECONCILE_MAX_MS',
      'RISK_LIMITS_FILE: the file cannot be read (ENOENT)',
    ]);
  });
});
