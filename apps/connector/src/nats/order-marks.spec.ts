import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { BusConnection, BusKv, BusMetrics, type KvBucket } from '#bus';
import { HealthRegistry, JsonLogger, MetricsRegistry } from '#observability';
import { startNatsServer, type NatsServerHandle } from '#testing';
import { OrderMarks } from './order-marks.js';

const silent = new JsonLogger('marks-test', 'test', 'error', { write: () => undefined });

describe('OrderMarks (JetStream KV)', () => {
  let server: NatsServerHandle;
  let connection: BusConnection;
  let bucket: KvBucket;
  let marks: OrderMarks;

  beforeAll(async () => {
    server = await startNatsServer();
    const metrics = new BusMetrics(new MetricsRegistry('t', { defaultMetrics: false }));
    connection = await BusConnection.open({ servers: server.url, name: 't' }, metrics, new HealthRegistry(), silent);
    bucket = await new BusKv(connection).bucket('T_MARKS', { storage: 'file' });
    marks = new OrderMarks(bucket);
  });
  afterAll(async () => {
    await connection.close();
    await server.stop();
  });

  it('marks an id once, for any characters a clientRequestId may hold', async () => {
    expect(await marks.mark('ord:1@x', { status: 'SENDING', quoteId: 'q', side: 'BUY' })).toBe('created');
    expect(await marks.mark('ord:1@x', { status: 'SENDING' })).toBe('exists');
    expect(await marks.get('ord:1@x')).toMatchObject({ clientRequestId: 'ord:1@x', status: 'SENDING', side: 'BUY' });
  });

  it('moves forward only: SENT after an outcome and anything after a final status are ignored', async () => {
    await marks.mark('ord-2', { status: 'SENDING' });
    await marks.record('ord-2', 'PENDING');
    await marks.record('ord-2', 'SENT');
    expect((await marks.get('ord-2'))?.status).toBe('PENDING');
    await marks.record('ord-2', 'SUCCESS');
    await marks.record('ord-2', 'UNKNOWN');
    expect((await marks.get('ord-2'))?.status).toBe('SUCCESS');
  });

  it('lists only unresolved orders, and cleans an open entry a crash left behind', async () => {
    await marks.mark('ord-3', { status: 'SENDING' });
    await marks.record('ord-3', 'SENT');
    // a crash between the final update and removing the open entry
    await marks.mark('ord-4', { status: 'SENDING' });
    await marks.record('ord-4', 'FAILED');
    await bucket.put(`open.${Buffer.from('ord-4').toString('base64url')}`, {});
    const open = (await marks.unresolved()).map((m) => m.clientRequestId).sort();
    expect(open).toEqual(['ord-3', 'ord:1@x']);
    expect(await bucket.keys(`open.${Buffer.from('ord-4').toString('base64url')}`)).toEqual([]);
  });

  it('records an outcome of an order it never marked', async () => {
    await marks.record('ord-5', 'INDETERMINATE');
    expect((await marks.get('ord-5'))?.status).toBe('INDETERMINATE');
    expect((await marks.unresolved()).map((m) => m.clientRequestId)).toContain('ord-5');
  });

  // A write's answer lost (a timeout on a reply the server had already acted on): the cases below.
  /** The bucket with one injected fault: the next call of `method` is carried out, then its answer is lost. */
  function losingNextAnswer(method: 'createIfAbsent' | 'put'): KvBucket {
    let armed = true;
    const faulty = Object.create(bucket) as KvBucket;
    const real = bucket[method].bind(bucket) as (key: string, value: unknown) => Promise<unknown>;
    Object.assign(faulty, {
      [method]: async (key: string, value: unknown) => {
        const result = await real(key, value);
        if (!armed) return result;
        armed = false;
        throw new Error('TIMEOUT');
      },
    });
    return faulty;
  }

  it('a mark created by a call whose answer was lost is sent by the next call (the redelivery), once', async () => {
    const marks = new OrderMarks(losingNextAnswer('createIfAbsent'));
    await expect(marks.mark('lost-1', { status: 'SENDING', quoteId: 'q', side: 'BUY' })).rejects.toThrow('TIMEOUT');
    expect(await marks.get('lost-1')).toMatchObject({ status: 'SENDING' });
    expect(await marks.mark('lost-1', { status: 'SENDING', quoteId: 'q', side: 'BUY' })).toBe('created');
    expect((await marks.unresolved()).map((m) => m.clientRequestId)).toContain('lost-1');
    expect(await marks.mark('lost-1', { status: 'SENDING' })).toBe('exists');
  });

  it('so is a mark whose open entry could not be written', async () => {
    const marks = new OrderMarks(losingNextAnswer('put'));
    await expect(marks.mark('lost-2', { status: 'SENDING' })).rejects.toThrow('TIMEOUT');
    expect(await marks.mark('lost-2', { status: 'SENDING' })).toBe('created');
    expect((await marks.unresolved()).map((m) => m.clientRequestId)).toContain('lost-2');
  });

  it('another process cannot know whether it left: for it the mark exists', async () => {
    const first = new OrderMarks(losingNextAnswer('createIfAbsent'));
    await expect(first.mark('lost-3', { status: 'SENDING' })).rejects.toThrow('TIMEOUT');
    expect(await new OrderMarks(bucket).mark('lost-3', { status: 'SENDING' })).toBe('exists');
    // and it is listed for reconciliation at every later start (outside tester: its open entry was never written)
    expect((await new OrderMarks(bucket).unresolved()).map((m) => m.clientRequestId)).toContain('lost-3');
  });

  it('a failed call for an id this process already sent never makes it sendable again', async () => {
    const marks = new OrderMarks(losingNextAnswer('createIfAbsent'));
    const clean = new OrderMarks(bucket);
    expect(await clean.mark('lost-4', { status: 'SENDING' })).toBe('created'); // sent; SENT never recorded
    // the same process's repeated command: its create is refused at the server, and then its answer lost
    await expect(marks.mark('lost-4', { status: 'SENDING' })).rejects.toThrow('TIMEOUT');
    expect(await marks.mark('lost-4', { status: 'SENDING' })).toBe('exists');
  });
});
