import { afterAll, beforeAll, describe, expect, it, jest } from '@jest/globals';
import { HealthRegistry, JsonLogger, MetricsRegistry } from '#observability';
import { eventually, startNatsServer, type NatsServerHandle } from '#testing';
import { BusConnection } from './bus-connection.js';
import { BusKv, type KvBucket, type KvChange } from './bus-kv.js';
import { BusMetrics } from './bus-metrics.js';

const silent = new JsonLogger('kv-test', 'test', 'error', { write: () => undefined });

describe('KvBucket compare-and-set and watch (real nats-server)', () => {
  let server: NatsServerHandle;
  let connection: BusConnection;
  let bucket: KvBucket;

  beforeAll(async () => {
    server = await startNatsServer();
    const metrics = new BusMetrics(new MetricsRegistry('t', { defaultMetrics: false }));
    connection = await BusConnection.open({ servers: server.url, name: 't' }, metrics, new HealthRegistry(), silent);
    bucket = await new BusKv(connection).bucket('T_KV_CAS', { storage: 'file', history: 5 });
  });
  afterAll(async () => {
    await connection.close();
    await server.stop();
  });

  it('compareAndSet writes only at the expected revision (0: no value yet)', async () => {
    const first = await bucket.compareAndSet('a', { n: 1 }, 0);
    expect(typeof first).toBe('number');
    expect(await bucket.compareAndSet('a', { n: 2 }, 0)).toBe('conflict');
    const second = await bucket.compareAndSet('a', { n: 2 }, first as number);
    expect(await bucket.compareAndSet('a', { n: 3 }, first as number)).toBe('conflict');
    expect(await bucket.get('a')).toEqual({ value: { n: 2 }, revision: second, storedAt: expect.any(Number) });
    await bucket.remove('a');
    expect(typeof (await bucket.compareAndSet('a', { n: 4 }, 0))).toBe('number');
  });

  it('removeAt removes only at the expected revision: a value written since stays', async () => {
    const first = await bucket.put('r', { n: 1 });
    const second = await bucket.put('r', { n: 2 });
    expect(await bucket.removeAt('r', first)).toBe('conflict');
    expect((await bucket.get('r'))?.value).toEqual({ n: 2 });
    expect(await bucket.removeAt('r', second)).toBe('removed');
    expect(await bucket.get('r')).toBeUndefined();
  });

  it('watch gives the current values, then every later change in order, deletes included', async () => {
    await bucket.put('w.x', { v: 'x1' });
    await bucket.put('w.y', { v: 'y1' });
    const seen: KvChange<unknown>[] = [];
    const { initial, watch } = await bucket.watch<unknown>('w.>', (change) => seen.push(change));
    try {
      expect(initial.map((c) => [c.key, c.value])).toEqual([
        ['w.x', { v: 'x1' }],
        ['w.y', { v: 'y1' }],
      ]);
      await bucket.put('w.x', { v: 'x2' });
      await bucket.remove('w.y');
      await bucket.put('other', 1);
      await eventually(() => (seen.length >= 2 ? true : undefined), { what: 'two changes' });
      expect(seen.map((c) => [c.key, c.value])).toEqual([
        ['w.x', { v: 'x2' }],
        ['w.y', undefined],
      ]);
      expect(seen[0]?.revision).toBeLessThan(seen[1]?.revision ?? 0);
    } finally {
      watch.stop();
    }
    await watch.ended;
  });

  it('leaves no consumer on the bucket after reads: keys, values, and a watch once stopped', async () => {
    const stream = 'KV_T_KV_CAS';
    const consumers = async () => (await connection.jsm.consumers.list(stream).next()).map((c) => c.name);
    await bucket.put('open.1', true);
    await bucket.put('open.2', true);
    await bucket.remove('open.2');
    for (let pass = 0; pass < 5; pass += 1) {
      expect(await bucket.keys('open.>')).toEqual(['open.1']);
      expect(await bucket.keys('none.>')).toEqual([]); // nothing matches: a read with nothing to fetch
      expect((await bucket.values<unknown>()).get('open.1')).toBe(true);
    }
    const { watch } = await bucket.watch<unknown>('open.>', () => undefined);
    expect(await consumers()).toHaveLength(1); // the running watch's own
    watch.stop();
    await watch.ended;
    await eventually(async () => ((await consumers()).length === 0 ? true : undefined), { what: 'no consumer left' });
  });

  it('purges the markers of removed keys (they piled up one per key ever removed), never a value written after', async () => {
    const marked = await new BusKv(connection).bucket('T_KV_MARKERS', { storage: 'file' });
    const messages = async () => (await connection.jsm.streams.info('KV_T_KV_MARKERS')).state.messages;
    for (let i = 0; i < 20; i += 1) await marked.put(`tag-${i}`, { subscriptionId: `S${i}` });
    for (let i = 0; i < 15; i += 1) await marked.remove(`tag-${i}`);
    await marked.put('tag-0', { subscriptionId: 'again' }); // written again after its marker
    expect(await messages()).toBe(20); // 5 values, 14 markers, the key written again
    expect(await marked.purgeRemovedMarkers(60_000)).toBe(0); // none that old
    expect(await marked.purgeRemovedMarkers()).toBe(14);
    expect(await messages()).toBe(6);
    expect((await marked.keys()).sort()).toEqual(['tag-0', 'tag-15', 'tag-16', 'tag-17', 'tag-18', 'tag-19']);
    expect((await marked.get('tag-0'))?.value).toEqual({ subscriptionId: 'again' });
    expect(await marked.purgeRemovedMarkers()).toBe(0);
  });

  it('with no age asked, a marker written this very millisecond goes too (the process clock may read a little behind the server)', async () => {
    const marked = await new BusKv(connection).bucket('T_KV_MARKERS_NOW', { storage: 'file' });
    await marked.put('open.x', { n: 1 });
    await marked.remove('open.x');
    const now = Date.now();
    const behind = jest.spyOn(Date, 'now').mockReturnValue(now - 5);
    try {
      expect(await marked.purgeRemovedMarkers(0, 'open.>')).toBe(1);
      expect(await marked.purgeRemovedMarkers(60_000)).toBe(0);
    } finally {
      behind.mockRestore();
    }
  });
});
