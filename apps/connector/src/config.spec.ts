import { describe, expect, it } from '@jest/globals';
import { ConfigError, loadConfig } from '#observability';
import { ConnectorConfig, venueOptionsFrom } from './config.js';

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
    expect('orderSendTimeoutMs' in options).toBe(false);
    expect('nonceDir' in options).toBe(false);
  });

  it('lists every bad or missing variable by name, never the secret', () => {
    let caught: unknown;
    try {
      loadConfig(ConnectorConfig, {
        VENUE_API_SECRET: 'do-not-print-me',
        VENUE_WS_URL: 'http://not-ws',
        ACCOUNT: 'a.b',
        NATS_SUBJECT_PREFIX: 'gw..v1',
        DEFAULT_METRICS: 'false',
      });
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(ConfigError);
    const problems = (caught as ConfigError).problems.join('\n');
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
    expect(
      loadConfig(ConnectorConfig, { ...required, VENUE_ANTI_REPLAY: 'nonce', VENUE_NONCE_DIR: '/var/lib/gw' })
        .VENUE_NONCE_DIR,
    ).toBe('/var/lib/gw');
  });

  it('refuses at start-up an API secret the chosen signature encoding cannot use, without printing it', () => {
    let caught: unknown;
    try {
      loadConfig(ConnectorConfig, { ...required, VENUE_API_SECRET: 'plain text secret!' });
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(ConfigError);
    const problems = (caught as ConfigError).problems.join('\n');
    expect(problems).toContain('VENUE_API_SECRET');
    expect(problems).not.toContain('plain text secret!');
    const hex = { ...required, VENUE_API_SECRET: 'plain text secret!', VENUE_SIGNATURE_ENCODING: 'hex' };
    expect(loadConfig(ConnectorConfig, hex).VENUE_API_SECRET).toBe('plain text secret!');
  });

  it('reads DEFAULT_METRICS=false as false', () => {
    expect(loadConfig(ConnectorConfig, { ...required, DEFAULT_METRICS: 'false' }).DEFAULT_METRICS).toBe(false);
  });
});
