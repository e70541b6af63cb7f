import { afterAll, afterEach, beforeAll, describe, expect, it } from '@jest/globals';
import { spawnSync } from 'node:child_process';
import { hostname } from 'node:os';
import { BusConnection, BusKv, BusMetrics, type KvBucket } from '#bus';
import { HealthRegistry, JsonLogger, MetricsRegistry } from '#observability';
import { eventually, startNatsServer, type NatsServerHandle } from '#testing';
import { AccountLease } from './account-lease.js';
import type { LeaseHolder } from './lease-decision.js';
import { newLeaseSelf } from './lease-identity.js';

const silent = new JsonLogger('lease-test', 'test', 'error', { write: () => undefined });
const LEASE_MS = 1_000;

describe('AccountLease (JetStream KV)', () => {
  let server: NatsServerHandle;
  let connection: BusConnection;
  let bucket: KvBucket;
  const leases: AccountLease[] = [];
  let keys = 0;

  const lease = (
    key: string,
    store: Pick<KvBucket, 'get' | 'compareAndSet'> = bucket,
    self = newLeaseSelf(),
    leaseMs = LEASE_MS,
  ) => {
    const made = new AccountLease(store, { key, leaseMs, self, logger: silent });
    leases.push(made);
    return made;
  };
  const holderOf = async (key: string) => (await bucket.get<LeaseHolder>(key))?.value;
  const nextKey = () => `acct${(keys += 1)}`;
  const elsewhere = (fields: Partial<LeaseHolder> = {}): LeaseHolder => ({
    instanceId: 'other-instance',
    host: 'another-host',
    pid: 1234,
    renewedAt: new Date().toISOString(),
    ...fields,
  });

  beforeAll(async () => {
    server = await startNatsServer();
    const metrics = new BusMetrics(new MetricsRegistry('t', { defaultMetrics: false }));
    connection = await BusConnection.open({ servers: server.url, name: 't' }, metrics, new HealthRegistry(), silent);
    bucket = await new BusKv(connection).bucket('T_LEASES', { storage: 'file' });
  });
  afterEach(() => {
    for (const made of leases.splice(0)) made.stop();
  });
  afterAll(async () => {
    await connection.close();
    await server.stop();
  });

  it('takes a free lease and names itself; a second live instance waits; a release hands it over at once', async () => {
    const key = nextKey();
    const first = lease(key);
    expect(await first.begin()).toBe('held');
    expect(await holderOf(key)).toMatchObject({ host: hostname(), pid: process.pid });
    const secondSelf = newLeaseSelf();
    const second = lease(key, bucket, secondSelf);
    expect(await second.begin()).toBe('standby');
    expect(second.status).toMatchObject({ kind: 'standby', seen: { holder: { pid: process.pid } } });
    // renewals move the revision: the standby never finds it lapsed while the holder runs
    await new Promise((resolve) => setTimeout(resolve, 2 * LEASE_MS));
    expect(second.status.kind).toBe('standby');
    expect(first.status.kind).toBe('holding');
    const released = Date.now();
    await first.release();
    // released — or already taken by the standby, whose retry may fall between the release and this read
    const afterRelease = await holderOf(key);
    if (afterRelease?.released !== true) expect(afterRelease).toMatchObject({ instanceId: secondSelf.instanceId });
    expect(await second.whenHeld()).toBe(true);
    expect(Date.now() - released).toBeLessThan(LEASE_MS); // one retry period (250 ms here), not the lease time
    expect(second.status.kind).toBe('holding');
  });

  it('takes over a lease of another host once its revision has not moved for the lease time', async () => {
    const key = nextKey();
    await bucket.put(key, elsewhere());
    const standby = lease(key);
    const began = Date.now();
    expect(await standby.begin()).toBe('standby');
    expect(await standby.whenHeld()).toBe(true);
    expect(Date.now() - began).toBeGreaterThanOrEqual(LEASE_MS);
  });

  it('takes at once a lease whose holder on this host has exited (a restart after kill -9)', async () => {
    const key = nextKey();
    const ended = spawnSync(process.execPath, ['-e', '0']).pid;
    await bucket.put(key, elsewhere({ host: hostname(), pid: ended }));
    expect(await lease(key).begin()).toBe('held');
  });

  it('in one process: takes at once the lease of an instance of this process that stopped without releasing', async () => {
    const key = nextKey();
    const crashed = lease(key);
    expect(await crashed.begin()).toBe('held');
    crashed.stop(); // no release: as an instance that died in this process
    expect(await lease(key).begin()).toBe('held');
  });

  it('reports the lease lost when another instance took it', async () => {
    const key = nextKey();
    const holder = lease(key);
    const lost: string[] = [];
    holder.onLost((reason) => lost.push(reason));
    await holder.begin();
    await bucket.put(key, elsewhere());
    const reason = await eventually(() => lost[0], { what: 'lease lost', timeoutMs: 3 * LEASE_MS });
    expect(reason).toMatch(/taken by instance other-instance on host another-host \(pid 1234\)/);
    expect(holder.status.kind).toBe('lost');
    expect((await holderOf(key))?.instanceId).toBe('other-instance'); // and it does not write it back
  });

  it('reports the lease lost when it cannot renew it in time (before a standby could take it)', async () => {
    const key = nextKey();
    let failing = false;
    const faulty: Pick<KvBucket, 'get' | 'compareAndSet'> = {
      get: (k) => bucket.get(k),
      compareAndSet: (k, v, r) => (failing ? Promise.reject(new Error('timeout')) : bucket.compareAndSet(k, v, r)),
    };
    const holder = lease(key, faulty);
    const lost: string[] = [];
    holder.onLost((reason) => lost.push(reason));
    await holder.begin();
    failing = true;
    const since = Date.now();
    const reason = await eventually(() => lost[0], { what: 'lease lost', timeoutMs: 3 * LEASE_MS });
    expect(reason).toMatch(/not renewed for more than 750 ms/);
    expect(Date.now() - since).toBeLessThan(LEASE_MS);
  });

  it('a renewal left unanswered (sent to a server that went away) does not hold up the next ones', async () => {
    const key = nextKey();
    let hangNext = false;
    const hanging: Pick<KvBucket, 'get' | 'compareAndSet'> = {
      get: (k) => bucket.get(k),
      compareAndSet: (k, v, r) => {
        if (!hangNext) return bucket.compareAndSet(k, v, r);
        hangNext = false;
        return new Promise<never>(() => undefined);
      },
    };
    const holder = lease(key, hanging);
    const lost: string[] = [];
    holder.onLost((reason) => lost.push(reason));
    await holder.begin();
    hangNext = true;
    const revision = (await bucket.get(key))?.revision ?? 0;
    await eventually(async () => ((await bucket.get(key))?.revision ?? 0) > revision + 3, {
      what: 'renewed after the unanswered one',
    });
    expect(lost).toEqual([]);
    expect(holder.status.kind).toBe('holding');
  });

  it('writes the lease again when it is gone from the store (NATS lost its store) and keeps holding', async () => {
    const key = nextKey();
    const holder = lease(key);
    await holder.begin();
    await bucket.remove(key);
    await eventually(async () => (await holderOf(key)) !== undefined, { what: 'lease written again' });
    expect(holder.status.kind).toBe('holding');
  });

  it('rides out an outage shorter than the fence: renewals failing are tried again every second, not a period later', async () => {
    // lease 8 s: renewed every 2 s, fenced 6 s after the last good renewal; the store fails for 4.5 s from 0.3 s
    const key = nextKey();
    let failing = false;
    const faulty: Pick<KvBucket, 'get' | 'compareAndSet'> = {
      get: (k) => bucket.get(k),
      compareAndSet: (k, v, r) => (failing ? Promise.reject(new Error('timeout')) : bucket.compareAndSet(k, v, r)),
    };
    const holder = lease(key, faulty, newLeaseSelf(), 8_000);
    const lost: string[] = [];
    holder.onLost((reason) => lost.push(reason));
    await holder.begin();
    await new Promise((resolve) => setTimeout(resolve, 300));
    failing = true; // attempts due at 2 s and 3 s fail, and at 4 s (the old cadence: the next at 6 s, fenced)
    await new Promise((resolve) => setTimeout(resolve, 4_500));
    failing = false;
    const revision = (await bucket.get(key))?.revision ?? 0;
    await eventually(async () => ((await bucket.get(key))?.revision ?? 0) > revision, {
      what: 'renewed once the store answers again',
      timeoutMs: 3_000,
    });
    await new Promise((resolve) => setTimeout(resolve, 2_000)); // past where the old cadence fenced (6 s)
    expect(lost).toEqual([]);
    expect(holder.status.kind).toBe('holding');
  });
});
