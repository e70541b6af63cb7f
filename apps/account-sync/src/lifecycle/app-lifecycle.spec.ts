import { describe, expect, it } from '@jest/globals';
import { JsonLogger } from '#observability';
import { AppLifecycle, type LifecyclePart } from './app-lifecycle.js';

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

  it('stops what started when a later part fails to start, and rethrows', async () => {
    const log: string[] = [];
    const lifecycle = new AppLifecycle(logger);
    lifecycle.register('store', part('ledger', log));
    lifecycle.register('intake', part('sync', log, true));
    await expect(lifecycle.start()).rejects.toThrow('sync cannot start');
    expect(log).toEqual(['start ledger', 'stop ledger']);
  });
});
