import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Logger, Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import type { INestApplication } from '@nestjs/common';
import { Counter } from 'prom-client';
import { IsIn, IsInt, IsString, Max, Min, MinLength } from 'class-validator';
import { Type } from 'class-transformer';
import { freePort } from '#testing';
import {
  ConfigError,
  type CrossChecked,
  type CrossRule,
  HealthRegistry,
  JsonLogger,
  loadConfig,
  MetricsRegistry,
  ObservabilityModule,
  MAX_LOG_ITEMS,
  redact,
} from './index.js';

describe('redact', () => {
  it('replaces secret-named properties at any depth and keeps the rest', () => {
    const input = {
      apiKey: 'k',
      apiSecret: 's',
      nested: { token: 't', headers: { 'Rest-Sign': 'x' } },
      list: [{ password: 'p' }],
    };
    expect(redact(input)).toEqual({
      apiKey: 'k',
      apiSecret: '[redacted]',
      nested: { token: '[redacted]', headers: { 'Rest-Sign': '[redacted]' } },
      list: [{ password: '[redacted]' }],
    });
  });

  it('hides only secret names: a field named signal, design or tokenPath-like config stays readable', () => {
    expect(redact({ signal: 'SIGTERM', design: 'x', sign: 's', restSignature: 'y', accessToken: 't' })).toEqual({
      signal: 'SIGTERM',
      design: 'x',
      sign: '[redacted]',
      restSignature: '[redacted]',
      accessToken: '[redacted]',
    });
  });

  it('survives cycles', () => {
    const a: Record<string, unknown> = { name: 'a' };
    a['self'] = a;
    expect(redact(a)).toEqual({ name: 'a', self: '[circular]' });
  });
});

describe('JsonLogger', () => {
  it('writes one JSON object per line without secrets', () => {
    const lines: string[] = [];
    const logger = new JsonLogger('test-app', 'ctx', 'debug', { write: (line) => lines.push(line) });
    logger.info('token fetched', { token: 'abc', latencyMs: 3 });
    logger.child('other').warn('hmm');
    const first = JSON.parse(lines[0] ?? '') as Record<string, unknown>;
    expect(first).toMatchObject({
      level: 'info',
      app: 'test-app',
      context: 'ctx',
      msg: 'token fetched',
      token: '[redacted]',
      latencyMs: 3,
    });
    expect(lines[0]).not.toContain('abc');
    expect(JSON.parse(lines[1] ?? '')).toMatchObject({ level: 'warn', context: 'other' });
  });

  it('bounds every field: a 100 KB venue error code is cut, long lists and deep objects are summarised', () => {
    const lines: string[] = [];
    const logger = new JsonLogger('a', 'c', 'debug', { write: (line) => lines.push(line) });
    logger.warn(`venue error ${'m'.repeat(10_000)}`, {
      code: 'C'.repeat(100_000),
      list: Array.from({ length: 1_000 }, (_, i) => i),
      deep: { a: { b: { c: { d: { e: { f: { g: 'bottom' } } } } } } },
    });
    const line = lines[0] ?? '';
    expect(line.length).toBeLessThan(8_000);
    const record = JSON.parse(line) as { msg: string; code: string; list: unknown[]; deep: unknown };
    expect(record.code).toMatch(/^C{1024}…\(98976 more characters\)$/);
    expect(record.msg.length).toBeLessThan(1_100);
    expect(record.list).toHaveLength(MAX_LOG_ITEMS + 1);
    expect(record.list[MAX_LOG_ITEMS]).toBe('…(950 more items)');
    expect(JSON.stringify(record.deep)).toContain('[too deep]');
  });

  it('takes what Nest passes: an Error as the message (its ExceptionHandler), a context string as the last argument', () => {
    const lines: string[] = [];
    const logger = new JsonLogger('a', 'c', 'debug', { write: (line) => lines.push(line) });
    Logger.overrideLogger(logger);
    try {
      const aborted = new Error('start-up abandoned while waiting for NATS');
      // What NestFactory.create does with a module's start failure when abortOnError is false.
      expect(() => new Logger('ExceptionHandler').error(aborted)).not.toThrow();
      new Logger('Ctx').warn('careful');
      new Logger('Ctx').error('failed', 'the stack');
      logger.info({ odd: 1 });
    } finally {
      Logger.overrideLogger(false);
    }
    const [error, warn, failed, odd] = lines.map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(error).toMatchObject({
      level: 'error',
      msg: 'start-up abandoned while waiting for NATS',
      errorName: 'Error',
      nestContext: 'ExceptionHandler',
    });
    expect(String(error?.['stack'])).toContain('start-up abandoned');
    expect(warn).toMatchObject({ level: 'warn', msg: 'careful', nestContext: 'Ctx' });
    expect(Object.keys(warn ?? {})).not.toContain('0');
    expect(failed).toMatchObject({ msg: 'failed', stack: 'the stack', nestContext: 'Ctx' });
    expect(odd).toMatchObject({ msg: '{"odd":1}' });
  });

  it('drops lines below its level', () => {
    const lines: string[] = [];
    new JsonLogger('a', 'c', 'warn', { write: (line) => lines.push(line) }).info('quiet');
    expect(lines).toHaveLength(0);
  });
});

describe('HealthRegistry', () => {
  it('reports down when a check throws or does not answer in time', async () => {
    const health = new HealthRegistry(20);
    health.register('ok', () => ({ up: true }));
    health.register('throws', () => {
      throw new Error('boom');
    });
    health.register('hangs', () => new Promise(() => undefined));
    const report = await health.report();
    expect(report.status).toBe('down');
    expect(report.checks).toEqual({
      ok: { up: true },
      throws: { up: false, detail: 'boom' },
      hangs: { up: false, detail: 'no answer within 20 ms' },
    });
  });
});

class CrossSample implements CrossChecked {
  @Type(() => Number) @IsInt() @Min(1) @Max(65535) PORT: number = 8080;
  @Type(() => Number) @IsInt() @Min(1) @Max(65535) ADMIN_PORT: number = 8081;
  @Type(() => Number) @IsInt() @Min(0) MIN_MS: number = 1;
  @Type(() => Number) @IsInt() @Min(0) MAX_MS: number = 2;
  @IsString() @MinLength(1) NAME = 'x';

  crossChecks(): CrossRule<this>[] {
    return [
      (c) => (c.PORT === c.ADMIN_PORT ? 'ADMIN_PORT must differ from PORT' : undefined),
      (c) => (c.MIN_MS > c.MAX_MS ? ['MIN_MS must not exceed MAX_MS'] : []),
      (c) => (c.NAME.length > 3 ? 'NAME is long' : undefined),
    ];
  }
}

class SampleConfig {
  @Type(() => Number) @IsInt() @Min(1) @Max(65535) PORT: number = 8080;
  @IsString() @MinLength(1) NATS_URL = '';
  @IsIn(['base64', 'hex']) ENCODING: string = 'base64';
}

describe('loadConfig', () => {
  it('converts and validates, keeping defaults', () => {
    const config = loadConfig(SampleConfig, { PORT: '9000', NATS_URL: 'nats://x' });
    expect(config).toMatchObject({ PORT: 9000, NATS_URL: 'nats://x', ENCODING: 'base64' });
  });

  it('lists every bad variable by name, without values', () => {
    let caught: unknown;
    try {
      loadConfig(SampleConfig, { PORT: '70000', NATS_URL: '', ENCODING: 'rot13-secretvalue' });
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(ConfigError);
    const problems = (caught as ConfigError).problems.join('\n');
    expect(problems).toMatch(/PORT/);
    expect(problems).toMatch(/NATS_URL/);
    expect(problems).toMatch(/ENCODING/);
    expect(problems).not.toContain('rot13-secretvalue');
  });

  it('runs every cross-variable rule whose variables are valid in the same pass (security tester: a second start was needed)', () => {
    const problems = (env: Record<string, string>): string[] => {
      try {
        loadConfig(CrossSample, env);
        return [];
      } catch (error) {
        return (error as ConfigError).problems;
      }
    };
    // one single-variable problem (NAME) and two cross-variable ones: all at once
    expect(problems({ NAME: '', PORT: '9000', ADMIN_PORT: '9000', MIN_MS: '5', MAX_MS: '1' })).toEqual([
      expect.stringMatching(/^NAME /),
      'ADMIN_PORT must differ from PORT',
      'MIN_MS must not exceed MAX_MS',
    ]);
    // a rule reading a variable that is itself bad is not run: its variable is already named
    const skipped = problems({ PORT: 'x', ADMIN_PORT: 'x', MIN_MS: '-1', MAX_MS: '0', NAME: 'long name' });
    expect(new Set(skipped.map((problem) => problem.split(' ')[0]))).toEqual(
      new Set(['PORT', 'ADMIN_PORT', 'MIN_MS', 'NAME']),
    );
    expect(skipped.at(-1)).toBe('NAME is long');
  });
});

describe('ObservabilityModule over HTTP', () => {
  let app: INestApplication;
  let base: string;
  let healthy = true;

  beforeAll(async () => {
    @Module({ imports: [ObservabilityModule.forRoot({ app: 'probe', defaultMetrics: false })] })
    class ProbeModule {}
    app = await NestFactory.create(ProbeModule, { logger: false });
    const registry = app.get(MetricsRegistry);
    new Counter({ name: 'probe_events_total', help: 'probe', registers: [registry] }).inc(2);
    app.get(HealthRegistry).register('dependency', () => ({ up: healthy }));
    const port = await freePort();
    await app.listen(port, '127.0.0.1');
    base = `http://127.0.0.1:${port}`;
  });
  afterAll(async () => {
    await app.close();
  });

  it('serves Prometheus text with the app label', async () => {
    const res = await fetch(`${base}/metrics`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toContain('text/plain');
    expect(await res.text()).toContain('probe_events_total{app="probe"} 2');
  });

  it('answers /health 200 when up and 503 when a dependency is down', async () => {
    healthy = true;
    const up = await fetch(`${base}/health`);
    expect(up.status).toBe(200);
    expect(await up.json()).toEqual({ status: 'ok', checks: { dependency: { up: true } } });
    healthy = false;
    const down = await fetch(`${base}/health`);
    expect(down.status).toBe(503);
    expect(await down.json()).toMatchObject({ status: 'down' });
  });
});
