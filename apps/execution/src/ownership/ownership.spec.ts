import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { BusConnection, BusKv, BusMetrics, type KvBucket } from '#bus';
import { HealthRegistry, JsonLogger, MetricsRegistry } from '#observability';
import { FakeClock, startNatsServer, type NatsServerHandle } from '#testing';
import { JournalConflictError, OrderJournal } from '../orders/order-journal.js';
import type { OrderRecord } from '../orders/order-record.js';
import { InstanceRegistry } from './instance-registry.js';

const silent = new JsonLogger('exec-test', 'test', 'error', { write: () => undefined });

function record(orderId: string, owner: string): OrderRecord {
  return {
    v: 1,
    orderId,
    clientRequestId: `c-${orderId}`,
    idempotencyKey: 'k',
    payloadHash: 'h',
    strategyId: 's',
    accountGroup: 'g',
    side: 'BUY',
    quoteId: 'q',
    quote: { quoteExpiresAt: 0 },
    state: 'SENT',
    acceptedAt: 0,
    updatedAt: 0,
    owner,
    eventSeq: 2,
  };
}

describe('order ownership on a real JetStream KV', () => {
  let server: NatsServerHandle;
  let connection: BusConnection;
  let journalBucket: KvBucket;
  let instances: KvBucket;

  beforeAll(async () => {
    server = await startNatsServer();
    const registry = new MetricsRegistry('exec-test', { defaultMetrics: false });
    connection = await BusConnection.open(
      { servers: server.url, name: 'exec-test' },
      new BusMetrics(registry),
      new HealthRegistry(500),
      silent,
    );
    const kv = new BusKv(connection);
    journalBucket = await kv.bucket('TEST_JOURNAL');
    instances = await kv.bucket('TEST_INSTANCES');
  });
  afterAll(async () => {
    await connection?.close();
    await server?.stop();
  });

  it('two instances racing to take one order: exactly one wins; the old owner is fenced', async () => {
    const journal = new OrderJournal(journalBucket);
    await journal.createOrder(record('o1', 'dead'));
    const read = await journal.read('o1');
    if (read === undefined) throw new Error('not stored');
    const results = await Promise.allSettled([
      journal.update({ ...read.record, owner: 'b' }, read.revision),
      journal.update({ ...read.record, owner: 'c' }, read.revision),
    ]);
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
    const loser = results.find((r) => r.status === 'rejected');
    expect(loser?.status === 'rejected' && loser.reason).toBeInstanceOf(JournalConflictError);
    // the dead owner comes back with the revision it knew: refused
    await expect(journal.update({ ...read.record, state: 'PENDING' }, read.revision)).rejects.toBeInstanceOf(
      JournalConflictError,
    );
    expect(await journal.openOrderIds()).toContain('o1');
    await journal.close('o1');
    expect(await journal.openOrderIds()).not.toContain('o1');
  });

  it("a sweep's read of the open orders costs the open orders, not the orders finished before (t1 F4)", async () => {
    const bucket = await new BusKv(connection).bucket('TEST_JOURNAL_SWEEP');
    const journal = new OrderJournal(bucket);
    // what the sweep's read of `open.>` is delivered: the last message of each open.* subject, markers included
    const delivered = async (): Promise<number> => {
      const info = await connection.jsm.streams.info('KV_TEST_JOURNAL_SWEEP', {
        subjects_filter: '$KV.TEST_JOURNAL_SWEEP.open.>',
      });
      return Object.keys(info.state.subjects ?? {}).length;
    };
    for (let i = 0; i < 30; i += 1) await journal.createOrder(record(`f${i}`, 'a'));
    for (let i = 0; i < 28; i += 1) await journal.close(`f${i}`);
    expect((await journal.openOrderIds()).sort()).toEqual(['f28', 'f29']);
    expect(await delivered()).toBe(2);
    expect(await journal.isOpen('f0')).toBe(false);
    // marks left by an earlier life (removed with a marker, or a close that stopped half-way) go at start-up
    await bucket.remove('open.old');
    expect(await delivered()).toBe(3);
    expect(await journal.forgetClosedMarks()).toBe(1);
    expect(await delivered()).toBe(2);
    expect((await journal.openOrderIds()).sort()).toEqual(['f28', 'f29']);
  });

  it('a key claim is given back only by the order it names (an intent that could not be recorded)', async () => {
    const journal = new OrderJournal(journalBucket);
    const entry = { orderId: 'o-refused', clientRequestId: 'c', payloadHash: 'h' };
    expect(await journal.claimKey('s', 'k-1', entry)).toBe('created');
    await journal.releaseKey('s', 'k-1', 'another-order');
    expect(await journal.keyEntry('s', 'k-1')).toEqual(entry);
    await journal.releaseKey('s', 'k-1', 'o-refused');
    expect(await journal.keyEntry('s', 'k-1')).toBeUndefined();
    expect(await journal.claimKey('s', 'k-1', { ...entry, orderId: 'o-retry' })).toBe('created');
  });

  it('a key held by an abandoned order passes to a new one only at the revision read (compare-and-set)', async () => {
    const journal = new OrderJournal(journalBucket);
    const entry = { orderId: 'o-abandoned', clientRequestId: 'c', payloadHash: 'h', acceptedAt: 1, quoteId: 'q' };
    expect(await journal.claimKey('s', 'k-2', entry)).toBe('created');
    const held = await journal.keyClaim('s', 'k-2');
    if (held === undefined) throw new Error('no claim');
    expect(held.entry).toEqual(entry);
    const next = { ...entry, orderId: 'o-new' };
    expect(await journal.claimKey('s', 'k-2', next, held.revision)).toBe('created');
    // a second taker that read the same revision loses
    expect(await journal.claimKey('s', 'k-2', { ...entry, orderId: 'o-other' }, held.revision)).toBe('exists');
    expect(await journal.keyEntry('s', 'k-2')).toEqual(next);
  });

  it('an intent discarded leaves no open mark, record or ref; an open mark tells when it was written', async () => {
    const journal = new OrderJournal(journalBucket);
    await journal.createOrder({ ...record('o-discard', 'me'), acceptedAt: 1_234, clientRequestId: 'gw-discard' });
    expect(await journal.openedAt('o-discard')).toBe(1_234);
    await journal.discardIntent('o-discard', 'gw-discard');
    expect(await journal.openedAt('o-discard')).toBeUndefined();
    expect(await journal.read('o-discard')).toBeUndefined();
    expect(await journalBucket.get('ref.gw-discard')).toBeUndefined();
  });

  it('an instance is alive while its heartbeat moves, dead once it stops moving for the lease or is removed', async () => {
    const clock = new FakeClock(Date.now());
    const a = new InstanceRegistry(instances, 'a', 3_000, clock);
    const b = new InstanceRegistry(instances, 'b', 3_000, clock);
    await a.start();
    expect(await b.isAlive('a')).toBe(true);
    clock.advance(1_000); // a beats (every lease / 3)
    await new Promise((resolve) => setTimeout(resolve, 50));
    clock.advance(2_500);
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(await b.isAlive('a')).toBe(true);
    await a.stop(false); // dies without a clean stop: the beat no longer moves
    expect(await b.isAlive('a')).toBe(true);
    clock.advance(3_001);
    expect(await b.isAlive('a')).toBe(false);
    expect(await b.isAlive('never-seen')).toBe(false);
    const c = new InstanceRegistry(instances, 'c', 3_000, clock);
    await c.start();
    expect(await b.isAlive('c')).toBe(true);
    await c.stop(true); // a clean stop removes the beat: its orders are taken at once
    expect(await b.isAlive('c')).toBe(false);
  });
});
