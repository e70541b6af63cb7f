import { describe, expect, it } from '@jest/globals';
import { JsonLogger } from '#observability';
import { AppLifecycle, type LifecyclePart, type WriterGate } from './app-lifecycle.js';

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
});
