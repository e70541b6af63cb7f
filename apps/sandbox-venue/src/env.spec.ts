import { describe, expect, it } from '@jest/globals';
import { ConfigError, loadConfig } from '#observability';
import { DEFAULT_SANDBOX_CONFIG } from './config.js';
import { SandboxEnv, sandboxOptionsFromEnv, validateSandboxConfig } from './env.js';

describe('sandbox configuration', () => {
  it('defaults: port 8080, base64 signatures, 30 requests/s, no webhook target', () => {
    const options = sandboxOptionsFromEnv(loadConfig(SandboxEnv, {}));
    expect(options).toMatchObject({
      port: 8080,
      signatureEncoding: 'base64',
      restRateLimitPerSecond: 30,
      webhookUrl: undefined,
    });
  });

  it('reads the variables', () => {
    const options = sandboxOptionsFromEnv(
      loadConfig(SandboxEnv, {
        SANDBOX_PORT: '9090',
        VENUE_SIGNATURE_ENCODING: 'hex',
        SANDBOX_WEBHOOK_URL: 'http://127.0.0.1:3000/hook',
        SANDBOX_WEBHOOK_BACKOFF_SCALE: '0.01',
      }),
    );
    expect(options).toMatchObject({
      port: 9090,
      signatureEncoding: 'hex',
      webhookUrl: 'http://127.0.0.1:3000/hook',
      webhookBackoffScale: 0.01,
    });
  });

  it('lists every bad variable at once', () => {
    let error: unknown;
    try {
      loadConfig(SandboxEnv, { SANDBOX_PORT: 'x', VENUE_SIGNATURE_ENCODING: 'b64', SANDBOX_WEBHOOK_URL: 'not a url' });
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(ConfigError);
    const text = (error as ConfigError).problems.join('\n');
    expect(text).toContain('SANDBOX_PORT');
    expect(text).toContain('VENUE_SIGNATURE_ENCODING');
    expect(text).toContain('SANDBOX_WEBHOOK_URL');
  });

  it('an empty or non-address host, a port not in digits and a bad trading setting are refused by name (outside tester)', () => {
    const problems = (env: Record<string, string>): string[] => {
      try {
        loadConfig(SandboxEnv, env);
        return [];
      } catch (error) {
        return (error as ConfigError).problems;
      }
    };
    expect(problems({ SANDBOX_HOST: '' })).toEqual(['SANDBOX_HOST must be an IP address or a host name']);
    expect(problems({ SANDBOX_HOST: 'not_a_host!' })).toHaveLength(1);
    for (const host of ['127.0.0.1', '::1', 'localhost', 'gw-1.internal', '0.0.0.0']) {
      expect(problems({ SANDBOX_HOST: host })).toEqual([]);
    }
    for (const port of ['', '1e3', 'abc', '0x10'])
      expect(problems({ SANDBOX_PORT: port })).toEqual([
        'SANDBOX_PORT must be a decimal integer (digits only) from 0 to 65535',
      ]);
    const trading = problems({ SANDBOX_PRICE_INTERVAL_MS: 'abc', SANDBOX_EXECUTION_DELAY_MS: '-5' });
    expect(trading).toEqual([
      expect.stringMatching(/^SANDBOX_PRICE_INTERVAL_MS must be a decimal integer/),
      expect.stringMatching(/^SANDBOX_EXECUTION_DELAY_MS must be a decimal integer/),
    ]);
    expect(trading.join(' ')).not.toContain('abc');
  });

  // outside tester: a scale of 1e30 (or 0x10) was taken, and its retry delays overflowed Node's timer (fired at
  // once, a retry flood instead of a slower schedule); an empty credentials file started the venue, then failed
  it('a backoff scale not a bounded decimal, an empty credentials file path are refused by name', () => {
    const problems = (env: Record<string, string>): string[] => {
      try {
        loadConfig(SandboxEnv, env);
        return [];
      } catch (error) {
        return (error as ConfigError).problems;
      }
    };
    for (const scale of ['', '0', '-1', '1e30', '0x10', 'abc', '1000.5', 'Infinity', ' 1'])
      expect(problems({ SANDBOX_WEBHOOK_BACKOFF_SCALE: scale })).toEqual([
        'SANDBOX_WEBHOOK_BACKOFF_SCALE must be a decimal number above 0 and at most 1000 (e.g. 0.01)',
      ]);
    for (const scale of ['0.002', '1', '1000', '2.5'])
      expect(problems({ SANDBOX_WEBHOOK_BACKOFF_SCALE: scale })).toEqual([]);
    expect(problems({ SANDBOX_CREDENTIALS_FILE: '' })).toEqual(['SANDBOX_CREDENTIALS_FILE must be a file path']);
    expect(() => validateSandboxConfig({ ...DEFAULT_SANDBOX_CONFIG, webhookBackoffScale: 1e30 })).toThrow(ConfigError);
  });

  it('validates a config built in code with the same rules', () => {
    expect(() => validateSandboxConfig({ ...DEFAULT_SANDBOX_CONFIG, port: 0 })).not.toThrow();
    expect(() => validateSandboxConfig({ ...DEFAULT_SANDBOX_CONFIG, restRateLimitPerSecond: 0 })).toThrow(ConfigError);
  });
});
