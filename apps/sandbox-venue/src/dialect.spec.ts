import { describe, expect, it } from '@jest/globals';
import { ConfigError, loadConfig } from '#observability';
import { dialectOf, SANDBOX_DIALECTS, tokenResponseBody } from './dialect.js';
import { SandboxEnv, sandboxOptionsFromEnv } from './env.js';

describe('sandbox dialects', () => {
  it('reference and alternate differ on every axis', () => {
    const { reference, alternate } = SANDBOX_DIALECTS;
    for (const axis of ['tokenResponse', 'orderReply', 'unsubscribeReplies', 'subscriptionsOnReconnect'] as const) {
      expect(alternate[axis]).not.toBe(reference[axis]);
    }
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
    expect(() => loadConfig(SandboxEnv, { SANDBOX_DIALECT: 'foreign' })).toThrow(ConfigError);
    expect(() => loadConfig(SandboxEnv, { SANDBOX_ORDER_REPLY: 'tiny' })).toThrow(
      /SANDBOX_ORDER_REPLY must be one of full, minimal/,
    );
  });
});
