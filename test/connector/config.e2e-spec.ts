/**
 * Issue 7, symptom 9, as an operator meets it: the built connector started with nonsense settings refuses to
 * start before creating anything — one plain stderr line per bad variable, naming it and its rule, never
 * its value, then where the settings are documented — and exits 78 (EX_CONFIG).
 */
import { describe, expect, it } from '@jest/globals';
import { AppProcess } from '../kit/app-process.js';

describe('connector start-up with a bad configuration', () => {
  it('prints one plain line per bad variable, no secret, no JSON, then exits 78 without starting', async () => {
    const app = AppProcess.start('connector', {
      NATS_URL: 'nats://127.0.0.1:1',
      ACCOUNT: 'acct1',
      HTTP_PORT: '0x10',
      LOG_LEVEL: 'verbose',
      STATUS_INTERVAL_MS: '3000000000',
      VENUE_REST_URL: 'not a url',
      VENUE_WS_URL: 'ws://127.0.0.1:8080/svc/ws/ws-client#fragment',
      VENUE_API_KEY: 'key',
      VENUE_API_SECRET: 'this is the secret!',
      VENUE_SESSION_ID: 'session-1',
      VENUE_RECONNECT_INITIAL_MS: '5000',
      VENUE_RECONNECT_MAX_MS: '1000',
    });
    const exit = await app.exited;
    expect(exit.code).toBe(78);
    const output = app.lines.join('\n');
    for (const name of [
      'HTTP_PORT',
      'LOG_LEVEL',
      'STATUS_INTERVAL_MS',
      'VENUE_REST_URL',
      'VENUE_WS_URL',
      'VENUE_API_SECRET',
    ]) {
      expect(app.lines.filter((line) => line.startsWith(`connector: configuration: ${name} `))).toHaveLength(1);
    }
    // a rule across two valid variables is named in the same start, not after the rest is fixed (security tester)
    expect(app.lines).toContain(
      'connector: configuration: VENUE_RECONNECT_INITIAL_MS must not exceed VENUE_RECONNECT_MAX_MS',
    );
    expect(app.lines.at(-1)).toBe(
      'connector: see docs/connector.md#configuration for every setting; nothing was started',
    );
    expect(output).not.toContain('this is the secret!');
    expect(output).not.toContain('{"'); // plain lines, not an escaped JSON log record
  });

  it('reports a rule across variables when every variable is valid on its own', async () => {
    const app = AppProcess.start('connector', {
      VENUE_REST_URL: 'http://127.0.0.1:8080',
      VENUE_WS_URL: 'ws://127.0.0.1:8080/svc/ws/ws-client',
      VENUE_API_KEY: 'key',
      VENUE_API_SECRET: 'c2VjcmV0LXZhbHVl',
      VENUE_SESSION_ID: 'session-1',
      ORDER_RETENTION_MS: '60000',
      ORDER_OUTCOME_DUPLICATE_WINDOW_MS: '3600000',
    });
    expect((await app.exited).code).toBe(78);
    expect(app.lines[0]).toMatch(
      /^connector: configuration: ORDER_RETENTION_MS must be at least ORDER_OUTCOME_DUPLICATE_WINDOW_MS/,
    );
  });

  it('the sandbox venue refuses a bad setting the same way (exit 78)', async () => {
    const app = AppProcess.start('sandbox-venue', { SANDBOX_PORT: '99999' });
    expect((await app.exited).code).toBe(78);
    expect(app.lines[0]).toMatch(/^sandbox-venue: configuration: SANDBOX_PORT /);
    expect(app.lines.at(-1)).toBe(
      'sandbox-venue: see apps/sandbox-venue/README.md for every setting; nothing was started',
    );
  });
});
