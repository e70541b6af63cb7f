import { describe, expect, it } from '@jest/globals';
import { ConfigError, loadConfig } from '#observability';
import { DIALECT_AXES, dialectOf, SANDBOX_DIALECTS, tokenResponseBody } from './dialect.js';
import { SandboxEnv, sandboxOptionsFromEnv } from './env.js';

describe('sandbox dialects', () => {
  it('reference and alternate differ on every axis but tonceOrder (set on its own)', () => {
    const { reference, alternate } = SANDBOX_DIALECTS;
    const axes = Object.keys(DIALECT_AXES) as (keyof typeof DIALECT_AXES)[];
    expect(axes.filter((axis) => alternate[axis] === reference[axis])).toEqual(['tonceOrder']);
    // W13: the connector's suites meet the literal reading, "4 updates per second per connection", shared
    expect(alternate.priceCadence).toBe('per-connection');
  });

  it('takes a preset and overrides single axes', () => {
    expect(dialectOf('alternate', { orderReply: 'full' })).toMatchObject({
      orderReply: 'full',
      tokenResponse: 'data.token',
    });
    expect(dialectOf({ tokenResponse: 'string' })).toMatchObject({ tokenResponse: 'string', orderReply: 'full' });
  });

  it('shapes the token response', () => {
    const envelope = { expiresAt: '1', resultCode: 'OK' };
    expect(tokenResponseBody('token', 't', envelope)).toEqual({ token: 't', expiresAt: '1', resultCode: 'OK' });
    expect(tokenResponseBody('data.token', 't', envelope)).toEqual({
      resultCode: 'OK',
      data: { token: 't', expiresAt: '1' },
    });
    expect(tokenResponseBody('string', 't', envelope)).toBe('t');
  });

  it('is set from the environment (SANDBOX_DIALECT, then each axis), a bad value refused by name', () => {
    const options = sandboxOptionsFromEnv(
      loadConfig(SandboxEnv, { SANDBOX_DIALECT: 'alternate', SANDBOX_SUBSCRIPTIONS_ON_RECONNECT: 'dropped' }),
    );
    expect(options.dialect).toMatchObject({ tokenResponse: 'data.token', subscriptionsOnReconnect: 'dropped' });
    expect(
      sandboxOptionsFromEnv(
        loadConfig(SandboxEnv, { SANDBOX_CRYPTO_WITHDRAWAL_REPLY: 'no-content', SANDBOX_IPS_NOTICE_DATE: 'epoch-ms' }),
      ).dialect,
    ).toMatchObject({ cryptoWithdrawalReply: 'no-content', ipsNoticeDate: 'epoch-ms', tokenResponse: 'token' });
    expect(() => loadConfig(SandboxEnv, { SANDBOX_DIALECT: 'foreign' })).toThrow(ConfigError);
    expect(() => loadConfig(SandboxEnv, { SANDBOX_ORDER_REPLY: 'tiny' })).toThrow(
      /SANDBOX_ORDER_REPLY must be one of full, minimal/,
    );
  });
});
