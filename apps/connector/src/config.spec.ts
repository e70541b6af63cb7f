import { describe, expect, it } from '@jest/globals';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig } from '#observability';
import { configProblems } from '#testing';
import { ConnectorConfig, venueOptionsFrom } from './config.js';
import { withDefaults } from './venue/venue-options.js';

const required = {
  VENUE_REST_URL: 'http://127.0.0.1:8080',
  VENUE_WS_URL: 'ws://127.0.0.1:8080/svc/ws/ws-client',
  VENUE_API_KEY: 'key',
  VENUE_API_SECRET: 'c2VjcmV0LXZhbHVl',
  VENUE_SESSION_ID: 'session-1',
};

describe('ConnectorConfig', () => {
  it('applies defaults and maps the venue options, optional tuning only when set', () => {
    const config = loadConfig(ConnectorConfig, { ...required, VENUE_SUBSCRIBE_TIMEOUT_MS: '250', HTTP_PORT: '0' });
    expect(config).toMatchObject({
      HTTP_PORT: 0,
      NATS_SUBJECT_PREFIX: 'gw.v1',
      ACCOUNT: 'default',
      DEFAULT_METRICS: true,
    });
    const options = venueOptionsFrom(config);
    expect(options).toMatchObject({
      restBaseUrl: required.VENUE_REST_URL,
      sessionId: 'session-1',
      antiReplay: 'tonce',
      reconnect: { initialMs: 250, maxMs: 30_000 },
      subscribeTimeoutMs: 250,
      account: 'default',
    });
    expect(options.restRequestsPerSecond).toBe(4); // the connector's share of the venue's 30 REST requests/s
    expect('orderSendTimeoutMs' in options).toBe(false);
    expect('nonceDir' in options).toBe(false);
    expect(withDefaults(options).orderIntervalMs).toBe(300); // §8 1 per 250 ms, and 50 ms for jitter
    expect(
      venueOptionsFrom(loadConfig(ConnectorConfig, { ...required, VENUE_ORDER_INTERVAL_MS: '400' })),
    ).toMatchObject({
      orderIntervalMs: 400,
    });
    const tooFast = configProblems(ConnectorConfig, { ...required, VENUE_ORDER_INTERVAL_MS: '200' }).join('\n');
    expect(tooFast).toContain('VENUE_ORDER_INTERVAL_MS');
    // the venue's own interval, counted from its answer to the previous order (spec-gaps K1)
    expect(withDefaults(options).orderPaceMs).toBe(250);
    expect(venueOptionsFrom(loadConfig(ConnectorConfig, { ...required, VENUE_ORDER_PACE_MS: '500' })).orderPaceMs).toBe(
      500,
    );
    expect(configProblems(ConnectorConfig, { ...required, VENUE_ORDER_PACE_MS: '249' }).join('\n')).toContain(
      'VENUE_ORDER_PACE_MS',
    );
  });

  it('lists every bad or missing variable by name, never the secret', () => {
    const problems = configProblems(ConnectorConfig, {
      VENUE_API_SECRET: 'do-not-print-me',
      VENUE_WS_URL: 'http://not-ws',
      ACCOUNT: 'a.b',
      NATS_SUBJECT_PREFIX: 'gw..v1',
      DEFAULT_METRICS: 'false',
    }).join('\n');
    for (const name of [
      'VENUE_REST_URL',
      'VENUE_WS_URL',
      'VENUE_API_KEY',
      'VENUE_SESSION_ID',
      'ACCOUNT',
      'NATS_SUBJECT_PREFIX',
    ]) {
      expect(problems).toContain(name);
    }
    expect(problems).not.toContain('do-not-print-me');
  });

  it('refuses at start-up a sessionId the venue would refuse on every connect, and nonce mode without its directory', () => {
    for (const sessionId of ['desk 1', 'a/b', 'tab\there']) {
      expect(() => loadConfig(ConnectorConfig, { ...required, VENUE_SESSION_ID: sessionId })).toThrow(
        /VENUE_SESSION_ID/,
      );
    }
    expect(loadConfig(ConnectorConfig, { ...required, VENUE_SESSION_ID: 'desk.1' }).VENUE_SESSION_ID).toBe('desk.1');
    expect(() => loadConfig(ConnectorConfig, { ...required, VENUE_ANTI_REPLAY: 'nonce' })).toThrow(/VENUE_NONCE_DIR/);
    // a directory that can be made (the nearest existing part writable): any user's temporary folder
    const nonceDir = join(tmpdir(), 'gw-nonce-config');
    expect(
      loadConfig(ConnectorConfig, { ...required, VENUE_ANTI_REPLAY: 'nonce', VENUE_NONCE_DIR: nonceDir })
        .VENUE_NONCE_DIR,
    ).toBe(nonceDir);
  });

  it('refuses at start-up an API secret the chosen signature encoding cannot use, without printing it', () => {
    const problems = configProblems(ConnectorConfig, { ...required, VENUE_API_SECRET: 'plain text secret!' }).join(
      '\n',
    );
    expect(problems).toContain('VENUE_API_SECRET');
    expect(problems).not.toContain('plain text secret!');
    const hex = { ...required, VENUE_API_SECRET: 'plain text secret!', VENUE_SIGNATURE_ENCODING: 'hex' };
    expect(loadConfig(ConnectorConfig, hex).VENUE_API_SECRET).toBe('plain text secret!');
  });

  it('reads DEFAULT_METRICS=false as false', () => {
    expect(loadConfig(ConnectorConfig, { ...required, DEFAULT_METRICS: 'false' }).DEFAULT_METRICS).toBe(false);
  });
});

describe('ConnectorConfig refuses what outside testing got through (issue 7, symptom 9)', () => {
  const problemsOf = (env: Record<string, string>): string[] =>
    configProblems(ConnectorConfig, { ...required, ...env });

  it.each([
    ['STATUS_INTERVAL_MS', '3000000000', /STATUS_INTERVAL_MS must be from 100 to 3600000/],
    ['VENUE_WS_URL', 'ws://127.0.0.1:8080/svc/ws/ws-client#frag', /VENUE_WS_URL must be a URL .*no #fragment/],
    ['VENUE_REST_URL', 'not a url', /VENUE_REST_URL must be a URL starting http:\/\/ or https:\/\//],
    ['VENUE_REST_URL', 'ftp://host/x', /VENUE_REST_URL must be a URL/],
    ['LOG_LEVEL', 'verbose', /LOG_LEVEL must be one of error, warn, info, debug/],
    ['LOG_LEVEL', 'ERROR', /LOG_LEVEL must be one of/],
    ['HTTP_PORT', '0x10', /HTTP_PORT must be a decimal integer/],
    ['HTTP_PORT', '', /HTTP_PORT must be a decimal integer/],
    ['HTTP_PORT', '65536', /HTTP_PORT must be from 0 to 65535/],
    ['HTTP_HOST', 'not_a_host!', /HTTP_HOST must be an IP address or a host name/],
    ['HTTP_HOST', '', /HTTP_HOST must be an IP address or a host name/],
    ['PRICE_STALE_AFTER_MS', '1e3', /PRICE_STALE_AFTER_MS must be a decimal integer/],
    ['NATS_URL', 'nats://a:4222,http://b:4222', /NATS_URL must be a comma-separated list of URLs/],
    ['DEFAULT_METRICS', 'yes', /DEFAULT_METRICS must be true, false, 1 or 0/],
    ['VENUE_TOKEN_PATH', 'data..token', /VENUE_TOKEN_PATH must be a dot-separated field path/],
  ])('%s=%j is refused by name and rule', (name, value, rule) => {
    const problems = problemsOf({ [name]: value });
    expect(problems).toHaveLength(1);
    expect(problems[0]).toMatch(rule);
    if (value.length > 3) expect(problems[0]).not.toContain(value);
  });

  it('checks rules across variables once each one is valid', () => {
    expect(problemsOf({ ORDER_RETENTION_MS: '60000', ORDER_OUTCOME_DUPLICATE_WINDOW_MS: '120000' })).toEqual([
      expect.stringMatching(/ORDER_RETENTION_MS must be at least ORDER_OUTCOME_DUPLICATE_WINDOW_MS/),
    ]);
    expect(problemsOf({ VENUE_RECONNECT_INITIAL_MS: '5000', VENUE_RECONNECT_MAX_MS: '1000' })).toEqual([
      'VENUE_RECONNECT_INITIAL_MS must not exceed VENUE_RECONNECT_MAX_MS',
    ]);
    expect(problemsOf({ VENUE_ORDER_INTERVAL_MS: '500', VENUE_ORDER_INTERVAL_MAX_MS: '400' })).toEqual([
      'VENUE_ORDER_INTERVAL_MS must not exceed VENUE_ORDER_INTERVAL_MAX_MS',
    ]);
  });

  it('names single-variable and cross-variable problems in one pass', () => {
    expect(problemsOf({ VENUE_RECONNECT_INITIAL_MS: '5000', VENUE_RECONNECT_MAX_MS: '1000', ACCOUNT: 'a.b' })).toEqual([
      expect.stringMatching(/^ACCOUNT /),
      'VENUE_RECONNECT_INITIAL_MS must not exceed VENUE_RECONNECT_MAX_MS',
    ]);
  });

  it('accepts the explicit forms: port 0, a NATS server list, a token path', () => {
    const config = loadConfig(ConnectorConfig, {
      ...required,
      HTTP_PORT: '0',
      NATS_URL: 'nats://a:4222, tls://b:4222',
      VENUE_TOKEN_PATH: 'data.token',
      LOG_LEVEL: 'debug',
    });
    expect(config).toMatchObject({ HTTP_PORT: 0, LOG_LEVEL: 'debug' });
    expect(venueOptionsFrom(config).tokenPath).toBe('data.token');
  });
});
