import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { BusConnection, BusKv, BusMetrics, type KvBucket } from '#bus';
import { HealthRegistry, JsonLogger, MetricsRegistry } from '#observability';
import { eventually, startNatsServer, type NatsServerHandle } from '#testing';
import { systemClock } from '#actors';
import { limitsConfigFrom } from './limits.js';
import { RiskEngine } from './risk-engine.js';
import { keyOf, RiskStore } from './risk-store.js';
import { order } from './testing/risk-fixtures.js';

const silent = new JsonLogger('risk-store-test', 'test', 'error', { write: () => undefined });

/** A real bucket with injected faults: JetStream that stops answering, or a watch that delivers nothing. */
function faulty(real: KvBucket, faults: { silent: boolean; watchDeaf: boolean }): KvBucket {
  return new Proxy(real, {
    get(target, property, receiver) {
      const value: unknown = Reflect.get(target, property, receiver);
      if (faults.silent && (property === 'get' || property === 'watch' || property === 'keys')) {
        return async () => {
          throw new Error('JetStream does not answer (injected)');
        };
      }
      if (faults.watchDeaf && property === 'watch') {
        return async (filter: string) => {
          const { initial, watch } = await target.watch(filter, () => undefined);
          return { initial, watch };
        };
      }
      return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value;
    },
  });
}

describe('the trading-state store fails closed when JetStream does not answer (NATS still connected)', () => {
  let server: NatsServerHandle;
  let connection: BusConnection;

  beforeAll(async () => {
    server = await startNatsServer();
    const metrics = new BusMetrics(new MetricsRegistry('t', { defaultMetrics: false }));
    connection = await BusConnection.open({ servers: server.url, name: 't' }, metrics, new HealthRegistry(), silent);
  });
  afterAll(async () => {
    await connection.close();
    await server.stop();
  });

  async function started(name: string, faults: { silent: boolean; watchDeaf: boolean }) {
    const real = await new BusKv(connection).bucket(name, { storage: 'file', history: 10 });
    const engine = new RiskEngine(limitsConfigFrom({}), { clock: systemClock });
    const store = new RiskStore(
      async () => faulty(real, faults),
      engine,
      { connection, clock: systemClock, logger: silent, restore: async () => ({ restored: 0, kept: 0 }) },
      { checkIntervalMs: 20, probeIntervalMs: 50, reloadIntervalMs: 50 },
    );
    await store.start();
    const code = async () => {
      const now = Date.now();
      const decision = await engine.admit(order({}, { venueTimestamp: now, quoteExpiresAt: now + 600_000 }), now);
      return decision.ok ? 'OK' : decision.code;
    };
    return { real, store, code };
  }

  it('refuses every order while the store does not answer, and takes them again once it does', async () => {
    const faults = { silent: false, watchDeaf: false };
    const { store, code } = await started('T_RISK_SILENT', faults);
    try {
      expect(await code()).toBe('OK');
      faults.silent = true;
      await eventually(async () => ((await code()) === 'TRADING_STATE_UNAVAILABLE' ? true : undefined), {
        what: 'refused while JetStream is silent',
      });
      faults.silent = false;
      await eventually(async () => ((await code()) === 'OK' ? true : undefined), { what: 'orders taken again' });
    } finally {
      await store.stop();
    }
  });

  it('a global halt the watch did not deliver is read directly and applied', async () => {
    const { real, store, code } = await started('T_RISK_DEAF', { silent: false, watchDeaf: true });
    try {
      expect(await code()).toBe('OK');
      await real.put(keyOf('state', 'global'), {
        scope: 'global',
        state: 'HALTED',
        by: 'other-instance',
        reason: 'missed delivery',
        at: new Date().toISOString(),
      });
      await eventually(async () => ((await code()) === 'TRADING_HALTED' ? true : undefined), {
        what: 'the halt read directly',
      });
    } finally {
      await store.stop();
    }
  });
});
