import { describe, expect, it } from '@jest/globals';
import { ConfigError, loadConfig } from './config.js';
import { ServiceEnv } from './service-env.js';

class ProbeConfig extends ServiceEnv {
  override HTTP_PORT: number = 3999;
}

describe('ServiceEnv', () => {
  it('gives a subclass the shared defaults and its own HTTP_PORT default', () => {
    expect(loadConfig(ProbeConfig, {})).toMatchObject({
      HTTP_PORT: 3999,
      HTTP_HOST: '0.0.0.0',
      LOG_LEVEL: 'info',
      DEFAULT_METRICS: true,
    });
    expect(loadConfig(ProbeConfig, { HTTP_PORT: '0', DEFAULT_METRICS: 'false' })).toMatchObject({
      HTTP_PORT: 0,
      DEFAULT_METRICS: false,
    });
  });

  it('keeps the inherited rules, naming each variable', () => {
    let problems: string[] = [];
    try {
      loadConfig(ProbeConfig, { HTTP_PORT: '0x10', HTTP_HOST: '', LOG_LEVEL: 'LOUD', DEFAULT_METRICS: 'maybe' });
    } catch (error) {
      problems = (error as ConfigError).problems;
    }
    for (const name of ['HTTP_PORT', 'HTTP_HOST', 'LOG_LEVEL', 'DEFAULT_METRICS']) {
      expect(problems.some((problem) => problem.startsWith(`${name} `))).toBe(true);
    }
  });
});
