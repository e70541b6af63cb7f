import { describe, expect, it } from '@jest/globals';
import { loadConfig } from '#observability';
import { configProblems } from '#testing';
import { AccountSyncConfig } from '../config.js';

const required = {
  VENUE_REST_URL: 'http://127.0.0.1:8080',
  VENUE_API_KEY: 'key',
  VENUE_API_SECRET: 'c2VjcmV0LXZhbHVl',
};

const problemsOf = (env: Record<string, string>): string =>
  configProblems(AccountSyncConfig, { ...required, ...env }).join('\n');

describe('webhook and withdrawal settings', () => {
  it('defaults: the receiver on its own port and path, withdrawals polled every 5 s', () => {
    expect(loadConfig(AccountSyncConfig, required)).toMatchObject({
      WEBHOOK_PORT: 3013,
      WEBHOOK_PATH: '/webhooks/venue',
      WEBHOOK_MAX_BODY_BYTES: 65_536,
      WEBHOOK_IPS_REFRESH_MS: 300_000,
      WEBHOOK_ANSWER_DEADLINE_MS: 8_000,
      TRANSACTION_RETENTION_MS: 0,
      WITHDRAWAL_POLL_MS: 5_000,
      WITHDRAWAL_UNKNOWN_SETTLE_MS: 120_000,
    });
  });

  it('refuses a path that is not one, proxies that are not CIDRs and a poll too fast, by name, never the value', () => {
    const problems = problemsOf({
      WEBHOOK_PATH: 'hooks',
      WEBHOOK_TRUSTED_PROXIES: '10.0.0.0/8, not-a-cidr',
      WITHDRAWAL_POLL_MS: '5',
    });
    expect(problems).toMatch(/WEBHOOK_PATH must be a URL path/);
    expect(problems).toMatch(/WEBHOOK_TRUSTED_PROXIES must be a comma-separated list of CIDR blocks/);
    expect(problems).toMatch(/WITHDRAWAL_POLL_MS must be/);
    expect(problems).not.toContain('not-a-cidr');
  });

  it('refuses the receiver on the port of /metrics (cross-check)', () => {
    expect(problemsOf({ HTTP_PORT: '4000', WEBHOOK_PORT: '4000' })).toMatch(/WEBHOOK_PORT must differ from HTTP_PORT/);
  });

  it("refuses an answer deadline at or over the venue's 10 s (§6.1: a timeout is retried only 3 times)", () => {
    expect(problemsOf({ WEBHOOK_ANSWER_DEADLINE_MS: '10000' })).toMatch(/WEBHOOK_ANSWER_DEADLINE_MS must be/);
    expect(problemsOf({ WEBHOOK_ANSWER_DEADLINE_MS: '9500' })).toBe('');
  });

  it('accepts a list of trusted proxies', () => {
    expect(problemsOf({ WEBHOOK_TRUSTED_PROXIES: '10.0.0.0/8,192.168.1.7' })).toBe('');
  });
});
