import { describe, expect, it } from '@jest/globals';
import { ExecutionSubjects, Subjects, type OrderEvent } from '#contracts';
import { JsonLogger, MetricsRegistry } from '#observability';
import { FakeClock } from '#testing';
import type { DurableConsumerOptions, DurableMessage } from '#bus';
import { Counter } from 'prom-client';
import type { UndoneFill } from '../risk/risk-gate.js';
import type { OrderRecord } from './order-record.js';
import { UndoneFills } from './undone-fills.js';

const T0 = 1_800_000_000_000;
const subjects = new Subjects('gw.v1', 'acct1');

function record(fields: Partial<OrderRecord> = {}): OrderRecord {
  return {
    v: 1,
    orderId: 'o1',
    clientRequestId: 'xabc1',
    idempotencyKey: 'k1',
    payloadHash: 'h',
    strategyId: 'alpha',
    accountGroup: 'g1',
    side: 'BUY',
    instrument: 'BTC.USD',
    quoteId: 'q1',
    quote: { quoteExpiresAt: T0 + 600_000, price: '50000', quantity: '0.5', quoteAmount: '25000' },
    state: 'SUCCESS',
    status: 'SUCCESS',
    fill: {
      price: '50000',
      baseCurrency: 'BTC',
      quoteCurrency: 'USD',
      baseAmount: '0.5',
      quoteAmount: '25000',
      source: 'outcome',
    },
    acceptedAt: T0,
    updatedAt: T0,
    owner: 'exec-a',
    eventSeq: 4,
    ...fields,
  };
}

/** The follower wired to in-memory stand-ins of the journal, positions, risk and bus; `deliver` hands it a change. */
function follower(initial: OrderRecord, open = false) {
  let stored = { record: initial, revision: 1 };
  let isOpen = open;
  const calls = {
    positions: [] as string[],
    risk: [] as UndoneFill[],
    events: [] as Array<{ event: OrderEvent; msgId: string }>,
  };
  let handle: DurableConsumerOptions['handle'] | undefined;
  let failPublish = false;
  const registry = new MetricsRegistry('t', { defaultMetrics: false });
  const results = new Counter({
    name: 'undone_results',
    help: 'h',
    labelNames: ['result'],
    registers: [registry],
  });
  const fills = new UndoneFills({
    consumers: {
      consumeDurable: (options: DurableConsumerOptions) => {
        handle = options.handle;
        return Promise.resolve({ stop: () => Promise.resolve() });
      },
    } as never,
    publisher: {
      publishDurableTo: (_topic: unknown, event: OrderEvent, options: { msgId: string }) => {
        if (failPublish) return Promise.reject(new Error('no JetStream answer'));
        calls.events.push({ event, msgId: options.msgId });
        return Promise.resolve({ duplicate: false });
      },
    } as never,
    streams: {
      lastMessage: () => {
        const last = calls.events.at(-1);
        return Promise.resolve(last && { subject: 's', seq: calls.events.length, value: last.event });
      },
    } as never,
    eventStream: 'GW_EXEC_ORDER_EVENTS_acct1',
    journal: {
      orderIdOf: (ref: string) => Promise.resolve(ref === initial.clientRequestId ? initial.orderId : undefined),
      read: () => Promise.resolve(stored),
      isOpen: () => Promise.resolve(isOpen),
      update: (next: OrderRecord, revision: number) => {
        if (revision !== stored.revision) return Promise.reject(new Error('conflict'));
        stored = { record: next, revision: revision + 1 };
        return Promise.resolve(stored.revision);
      },
    } as never,
    positions: {
      undo: (strategyId: string, orderId: string) => {
        calls.positions.push(`${strategyId}/${orderId}`);
        return Promise.resolve('applied');
      },
    } as never,
    risk: {
      undo: (event: UndoneFill) => {
        calls.risk.push(event);
        return Promise.resolve();
      },
    } as never,
    subjects,
    execSubjects: new ExecutionSubjects(subjects),
    clock: new FakeClock(T0 + 5_000),
    results,
    logger: new JsonLogger('t', 'test', 'error', { write: () => undefined }),
    ackWaitMs: 30_000,
  });
  fills.start();
  const deliver = async (change: unknown, deliveryCount = 1) => {
    const settled: string[] = [];
    const message: DurableMessage = {
      subject: 'gw.v1.acct1.acct.trade.state-changed.t1',
      data: Buffer.from(typeof change === 'string' ? change : JSON.stringify(change)),
      deliveryCount,
      ack: () => Promise.resolve(void settled.push('ack')),
      term: () => void settled.push('term'),
      nak: (delayMs: number) => void settled.push(`nak ${delayMs}`),
      working: () => undefined,
    };
    await new Promise((resolve) => setImmediate(resolve)); // attached
    await handle?.(message);
    return settled;
  };
  const count = async (result: string) =>
    (await results.get()).values.find((v) => v.labels['result'] === result)?.value ?? 0;
  return {
    deliver,
    calls,
    stored: () => stored.record,
    count,
    settle: () => void (isOpen = false),
    failPublish: (fail: boolean) => void (failPublish = fail),
  };
}

const cancelled = (clientRef = 'xabc1', state = 'CANCELLED') => ({
  v: 1,
  resource: 'trade',
  key: 't1',
  change: 'state-changed',
  version: 2,
  seenAt: T0 + 4_000,
  value: { uuid: 't1', clientRef, state },
});

describe('UndoneFills: the fill of an order whose trade the venue undid is taken back', () => {
  it('a SUCCESS order: position, risk, record and one event; delivered again, nothing more is counted', async () => {
    const f = follower(record());
    expect(await f.deliver(cancelled())).toEqual(['ack']);
    expect(f.calls.positions).toEqual(['alpha/o1']);
    expect(f.calls.risk).toEqual([
      {
        kind: 'undone',
        orderId: 'o1',
        baseAmount: '0.5',
        quoteAmount: '25000',
        order: { strategyId: 'alpha', accountGroup: 'g1', side: 'BUY', instrument: 'BTC.USD' },
      },
    ]);
    expect(f.stored()).toMatchObject({
      state: 'SUCCESS',
      eventSeq: 5,
      undone: { state: 'CANCELLED', tradeUuid: 't1', at: T0 + 4_000 },
    });
    expect(f.calls.events).toHaveLength(1);
    expect(f.calls.events[0]).toMatchObject({
      msgId: 'o1:undone',
      event: { seq: 5, order: { final: true, undone: { state: 'CANCELLED' } } },
    });
    expect(await f.count('taken-back')).toBe(1);
    // delivered again (a crash before the ack, a consumer created again): nothing is taken back or told twice
    expect(await f.deliver(cancelled(), 2)).toEqual(['ack']);
    expect(f.stored().eventSeq).toBe(5);
    expect(f.calls.positions).toEqual(['alpha/o1']);
    expect(f.calls.risk).toHaveLength(1);
    expect(f.calls.events.map((e) => e.msgId)).toEqual(['o1:undone']);
    expect(await f.count('taken-back')).toBe(1);
  });

  it('a crash between the mark and its event: the change delivered again publishes the event, takes nothing back again', async () => {
    const f = follower(record());
    f.failPublish(true);
    await expect(f.deliver(cancelled())).rejects.toThrow('no JetStream answer'); // the consumer naks it
    expect(f.stored().undone).toBeDefined();
    f.failPublish(false);
    expect(await f.deliver(cancelled(), 2)).toEqual(['ack']);
    expect(f.calls.positions).toEqual(['alpha/o1']);
    expect(f.calls.risk).toHaveLength(1);
    expect(f.calls.events.map((e) => [e.msgId, e.event.seq])).toEqual([['o1:undone', 5]]);
  });

  it('an order not settled yet (or settled but still open) is asked about again later, with a growing delay', async () => {
    const unknown = follower(record({ state: 'UNKNOWN', status: 'UNKNOWN' }));
    expect(await unknown.deliver(cancelled())).toEqual(['nak 1000']);
    expect(await unknown.deliver(cancelled(), 4)).toEqual(['nak 8000']);
    expect(await unknown.deliver(cancelled(), 40)).toEqual(['nak 60000']);
    expect(unknown.calls.positions).toEqual([]);
    const open = follower(record(), true);
    expect(await open.deliver(cancelled())).toEqual(['nak 1000']);
    open.settle();
    expect(await open.deliver(cancelled(), 2)).toEqual(['ack']);
    expect(open.calls.positions).toEqual(['alpha/o1']);
  });

  it('a FAILED order, a trade of no order of the journal, an unreadable change: acknowledged, counted, nothing taken back', async () => {
    const failed = follower(record({ state: 'FAILED', status: 'FAILED', fill: undefined }));
    expect(await failed.deliver(cancelled())).toEqual(['ack']);
    expect(await failed.count('not-filled')).toBe(1);
    const f = follower(record());
    expect(await f.deliver(cancelled('xsomeoneelse'))).toEqual(['ack']);
    expect(await f.count('not-ours')).toBe(1);
    expect(await f.deliver('{not json')).toEqual(['ack']);
    expect(await f.count('unreadable')).toBe(1);
    expect(await f.deliver(cancelled('xabc1', 'SETTLED'))).toEqual(['ack']); // settled: nothing to do, not counted
    expect([...f.calls.positions, ...failed.calls.positions]).toEqual([]);
    expect(f.calls.risk).toEqual([]);
  });
});
