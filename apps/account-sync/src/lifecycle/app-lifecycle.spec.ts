import { describe, expect, it } from '@jest/globals';
import { TimeoutError } from '@nats-io/transport-node';
import { JsonLogger, StartupProgress } from '#observability';
import { retryableStart } from '../bootstrap.js';
import { AppLifecycle, StartedUnderLeaseError, type LifecyclePart, type WriterGate } from './app-lifecycle.js';

function part(name: string, log: string[], failStart = false): LifecyclePart {
  return {
    name,
    start: () => {
      if (failStart) return Promise.reject(new Error(`${name} cannot start`));
      log.push(`start ${name}`);
      return Promise.resolve();
    },
    stop: () => {
      log.push(`stop ${name}`);
      return Promise.resolve();
    },
  };
}

const logger = new JsonLogger('test', 'lifecycle', 'error', { write: () => undefined });

describe('AppLifecycle', () => {
  it('starts stores before intakes and stops intakes before stores', async () => {
    const log: string[] = [];
    const lifecycle = new AppLifecycle(logger);
    lifecycle.register('intake', part('webhooks', log));
    lifecycle.register('store', part('ledger', log));
    lifecycle.register('intake', part('sync', log));
    lifecycle.register('store', part('state', log));
    await lifecycle.start();
    await lifecycle.stop();
    expect(log).toEqual([
      'start ledger',
      'start state',
      'start webhooks',
      'start sync',
      'stop sync',
      'stop webhooks',
      'stop state',
      'stop ledger',
    ]);
  });

  it('the stop is bounded: a part still waiting (a venue that does not answer) is left, the rest stop, the lease is released', async () => {
    const log: string[] = [];
    const gate: WriterGate = {
      begin: () => Promise.resolve('held'),
      whenHeld: () => Promise.resolve(true),
      release: () => Promise.resolve(void log.push('release')),
    };
    const lifecycle = new AppLifecycle(logger, gate, () => undefined, 200);
    lifecycle.register('store', part('ledger', log));
    lifecycle.register('intake', {
      name: 'withdrawals',
      start: () => Promise.resolve(),
      stop: () => new Promise<void>(() => undefined), // a submit in flight to a venue that hangs
    });
    await lifecycle.start();
    const since = Date.now();
    await lifecycle.stop();
    expect(Date.now() - since).toBeGreaterThanOrEqual(150);
    expect(log).toEqual(['start ledger', 'stop ledger', 'release']);
  });

  it('stops what started when a later part fails to start, and rethrows', async () => {
    const log: string[] = [];
    const lifecycle = new AppLifecycle(logger);
    lifecycle.register('store', part('ledger', log));
    lifecycle.register('intake', part('sync', log, true));
    await expect(lifecycle.start()).rejects.toThrow('sync cannot start');
    expect(log).toEqual(['start ledger', 'stop ledger']);
  });

  it('a standby starts nothing until the lease is held; the lease is released after the stores stopped', async () => {
    const log: string[] = [];
    let take: (held: boolean) => void = () => undefined;
    const taken = new Promise<boolean>((resolve) => (take = resolve));
    const gate: WriterGate = {
      begin: () => Promise.resolve('standby'),
      whenHeld: () => taken,
      release: () => {
        log.push('release');
        return Promise.resolve();
      },
    };
    const lifecycle = new AppLifecycle(logger, gate);
    lifecycle.register('store', part('ledger', log));
    lifecycle.register('intake', part('sync', log));
    await lifecycle.start();
    expect(log).toEqual([]);
    take(true);
    await new Promise((resolve) => setImmediate(resolve));
    expect(log).toEqual(['start ledger', 'start sync']);
    await lifecycle.stop();
    expect(log).toEqual(['start ledger', 'start sync', 'stop sync', 'stop ledger', 'release']);
  });

  it('a standby stopped before it held the lease starts nothing and stops waiting', async () => {
    const log: string[] = [];
    const gate: WriterGate = {
      begin: () => Promise.resolve('standby'),
      whenHeld: () => new Promise<boolean>(() => undefined),
      release: () => Promise.resolve(void log.push('release')),
    };
    const lifecycle = new AppLifecycle(logger, gate);
    lifecycle.register('store', part('ledger', log));
    await lifecycle.start();
    await lifecycle.stop();
    expect(log).toEqual(['release']);
  });

  it('releases the lease when a part fails to start (the next instance takes it at once)', async () => {
    const log: string[] = [];
    const gate: WriterGate = {
      begin: () => Promise.resolve('held'),
      whenHeld: () => Promise.resolve(true),
      release: () => Promise.resolve(void log.push('release')),
    };
    const lifecycle = new AppLifecycle(logger, gate);
    lifecycle.register('store', part('ledger', log, true));
    await expect(lifecycle.start()).rejects.toThrow('ledger cannot start');
    expect(log).toEqual(['release']);
  });

  it('a start-up NATS cut off while holding the lease is never retried in-process (a fresh process: exit 75)', async () => {
    const lifecycle = new AppLifecycle(logger);
    const natsGone: LifecyclePart = {
      name: 'ledger',
      start: () => Promise.reject(new Error('ledger unavailable', { cause: new TimeoutError() })),
      stop: () => Promise.resolve(),
    };
    lifecycle.register('store', natsGone);
    const failure = await lifecycle.start().catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(StartedUnderLeaseError);
    expect(retryableStart(failure)).toBe(false);
    // cut off before the lease (the bus or the lease bucket not answering): tried again in-process
    expect(retryableStart(new Error('lease bucket', { cause: new TimeoutError() }))).toBe(true);
    expect(retryableStart(new Error('a bug'))).toBe(false);
  });

  it('tells /health the step it is in: the lease, then each part by name', async () => {
    const steps: string[] = [];
    const startup = new StartupProgress();
    const seen = (name: string): LifecyclePart => ({
      name,
      start: () => Promise.resolve(void steps.push(startup.step)),
      stop: () => Promise.resolve(),
    });
    const gate: WriterGate = {
      begin: () => Promise.resolve(void steps.push(startup.step)).then(() => 'held' as const),
      whenHeld: () => Promise.resolve(true),
      release: () => Promise.resolve(),
    };
    const lifecycle = new AppLifecycle(logger, gate, undefined, 5_000, startup);
    lifecycle.register('store', seen('transaction ledger'));
    lifecycle.register('intake', seen('webhook receiver'));
    await lifecycle.start();
    expect(steps).toEqual(['taking the account lease', 'starting transaction ledger', 'starting webhook receiver']);
  });
});
