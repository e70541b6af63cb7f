import { describe, expect, it } from '@jest/globals';
import { JsonLogger, MetricsRegistry } from '#observability';
import { FakeClock } from '#testing';
import { BusMetrics } from './bus-metrics.js';
import { DeclaredTopology, isNoStreamAnswer } from './declared-topology.js';

interface Logged {
  level: string;
  msg: string;
}

function setup(options: { up?: () => boolean } = {}) {
  const clock = new FakeClock();
  const registry = new MetricsRegistry('t', { defaultMetrics: false });
  const logged: Logged[] = [];
  const logger = new JsonLogger('t', 'test', 'debug', {
    write: (line: string) => {
      const { level, msg } = JSON.parse(line) as Logged;
      logged.push({ level, msg });
    },
  });
  const topology = new DeclaredTopology(new BusMetrics(registry), logger, options.up ?? (() => true), {
    clock,
    random: () => 1,
    backoff: { initialMs: 100, maxMs: 400 },
    noStreamIntervalMs: 1_000,
  });
  const value = async (series: string): Promise<number | undefined> => {
    const line = (await registry.metrics()).split('\n').find((l) => l.startsWith(series));
    return line === undefined ? undefined : Number(line.slice(line.lastIndexOf(' ') + 1));
  };
  return { clock, topology, logged, value };
}

/** Lets the pass's awaited declarations run (they resolve in microtasks). */
const settle = () => new Promise((resolve) => setImmediate(resolve));

describe('DeclaredTopology', () => {
  it('lists the streams and consumers kept, each once, in the order first declared', () => {
    const { topology } = setup();
    const declare = () => Promise.resolve();
    topology.keep({ kind: 'stream', name: 'A', declare });
    topology.keep({ kind: 'bucket', name: 'K', declare });
    topology.keep({ kind: 'stream', name: 'B', declare });
    topology.keep({ kind: 'consumer', stream: 'A', name: 'worker', declare });
    topology.keep({ kind: 'stream', name: 'A', declare });
    expect(topology.streams).toEqual(['A', 'B']);
    expect(topology.consumers).toEqual([{ stream: 'A', consumer: 'worker' }]);
    topology.forget({ kind: 'consumer', stream: 'A', name: 'worker' });
    expect(topology.consumers).toEqual([]);
  });

  it('declares everything again in order after a reconnect, counted and logged once', async () => {
    const { topology, logged, value } = setup();
    const order: string[] = [];
    for (const name of ['S', 'K', 'C'])
      topology.keep({ kind: 'stream', name, declare: async () => void order.push(name) });
    topology.redeclare('reconnect');
    await topology.settled();
    expect(order).toEqual(['S', 'K', 'C']);
    expect(await value('bus_topology_redeclarations_total{trigger="reconnect",result="ok"')).toBe(1);
    expect(await value('bus_topology_missing')).toBe(0);
    expect(logged.filter((l) => l.msg.includes('topology'))).toEqual([
      { level: 'info', msg: 'NATS topology declared again' },
    ]);
  });

  it('retries what failed with backoff (first retry at once) until it holds; one warning, one line when whole', async () => {
    const { clock, topology, logged, value } = setup();
    let streamCalls = 0;
    let consumerCalls = 0;
    topology.keep({ kind: 'stream', name: 'S', declare: async () => void (streamCalls += 1) });
    topology.keep({
      kind: 'consumer',
      stream: 'OTHER',
      name: 'C',
      declare: async () => {
        consumerCalls += 1;
        if (consumerCalls < 4) throw new Error('stream not found');
      },
    });
    topology.redeclare('reconnect');
    await settle();
    expect(consumerCalls).toBe(2); // the first retry is immediate
    expect(await value('bus_topology_missing')).toBe(1);
    clock.advance(99);
    await settle();
    expect(consumerCalls).toBe(2);
    clock.advance(1); // 100 ms (random 1 × initial)
    await settle();
    expect(consumerCalls).toBe(3);
    clock.advance(200); // then 200 ms
    await topology.settled();
    expect(consumerCalls).toBe(4);
    expect(streamCalls).toBe(1); // only what failed is declared again
    expect(await value('bus_topology_redeclarations_total{trigger="reconnect",result="failed"')).toBe(3);
    expect(await value('bus_topology_redeclarations_total{trigger="reconnect",result="ok"')).toBe(1);
    expect(await value('bus_topology_missing')).toBe(0);
    expect(logged.filter((l) => l.msg.includes('topology'))).toEqual([
      { level: 'warn', msg: 'could not declare the NATS topology again; retrying with backoff' },
      { level: 'info', msg: 'NATS topology declared again' },
    ]);
  });

  it('gives up while disconnected (the next reconnect starts again) and stops for good when stopped', async () => {
    let up = true;
    const { clock, topology } = setup({ up: () => up });
    let calls = 0;
    topology.keep({
      kind: 'stream',
      name: 'S',
      declare: async () => {
        calls += 1;
        throw new Error('timeout');
      },
    });
    topology.redeclare('reconnect');
    await settle();
    up = false;
    clock.advance(1_000);
    await topology.settled();
    const before = calls;
    clock.advance(10_000);
    await settle();
    expect(calls).toBe(before);
    up = true;
    topology.stop();
    topology.redeclare('reconnect');
    await topology.settled();
    expect(calls).toBe(before);
  });

  it('runs one more pass for a reconnect during a pass, and at most one pass per interval for "no stream"', async () => {
    const { clock, topology, value } = setup();
    let release: () => void = () => undefined;
    let calls = 0;
    topology.keep({
      kind: 'stream',
      name: 'S',
      declare: () => {
        calls += 1;
        return calls === 1 ? new Promise<void>((resolve) => (release = resolve)) : Promise.resolve();
      },
    });
    topology.redeclare('no_stream');
    topology.redeclare('no_stream'); // absorbed by the running pass
    topology.redeclare('reconnect'); // runs again after it
    release();
    await topology.settled();
    expect(calls).toBe(2);
    topology.redeclare('no_stream'); // within the interval of the first
    await topology.settled();
    expect(calls).toBe(2);
    clock.advance(1_000);
    topology.redeclare('no_stream');
    await topology.settled();
    expect(calls).toBe(3);
    expect(await value('bus_topology_redeclarations_total{trigger="no_stream",result="ok"')).toBe(2);
    expect(await value('bus_topology_redeclarations_total{trigger="reconnect",result="ok"')).toBe(1);
  });

  it('a stream or bucket found with another creation time was lost: counted by stream, logged, told for an hour', async () => {
    const { clock, topology, logged, value } = setup();
    let prices = { stream: 'PRICES', created: 't1', storage: 'file' as const };
    const marks = { stream: 'KV_MARKS', created: 't1', storage: 'file' as const };
    topology.keep({ kind: 'stream', name: 'PRICES', identity: prices, declare: async () => prices });
    topology.keep({ kind: 'bucket', name: 'MARKS', identity: marks, declare: async () => marks });
    topology.keep({ kind: 'consumer', stream: 'PRICES', name: 'worker', declare: async () => undefined });
    expect(await value('bus_streams_lost_total{stream="PRICES"')).toBe(0); // there before its first loss
    expect(await value('bus_streams_lost_total{stream="KV_MARKS"')).toBe(0);
    topology.redeclare('reconnect'); // found as they were (a restart on the same store)
    await topology.settled();
    expect(await value('bus_streams_lost_total{stream="PRICES"')).toBe(0);
    expect(topology.storeLoss).toBeUndefined();

    prices = { stream: 'PRICES', created: 't2', storage: 'file' as const }; // an empty store: created again
    topology.redeclare('reconnect');
    await topology.settled();
    expect(await value('bus_streams_lost_total{stream="PRICES"')).toBe(1);
    expect(await value('bus_streams_lost_total{stream="KV_MARKS"')).toBe(0);
    expect(topology.storeLoss).toEqual({ at: clock.now(), streams: ['PRICES'] });
    expect(logged).toContainEqual({
      level: 'error',
      msg: 'a stream this process had used was declared afresh: NATS lost it and everything it held',
    });
    topology.redeclare('check'); // the new one, found again: nothing more
    await topology.settled();
    expect(await value('bus_streams_lost_total{stream="PRICES"')).toBe(1);

    clock.advance(3_600_000 - 1);
    expect(topology.storeLoss?.streams).toEqual(['PRICES']);
    clock.advance(1);
    expect(topology.storeLoss).toBeUndefined();
  });

  it('a bucket opened again by the app (before any pass) with a new stream is a loss too', async () => {
    const { topology, value } = setup();
    const declare = async () => undefined;
    topology.keep({
      kind: 'bucket',
      name: 'RISK',
      identity: { stream: 'KV_RISK', created: 't1', storage: 'file' as const },
      declare,
    });
    topology.keep({
      kind: 'bucket',
      name: 'RISK',
      identity: { stream: 'KV_RISK', created: 't1', storage: 'file' as const },
      declare,
    });
    expect(await value('bus_streams_lost_total{stream="KV_RISK"')).toBe(0);
    topology.keep({
      kind: 'bucket',
      name: 'RISK',
      identity: { stream: 'KV_RISK', created: 't2', storage: 'file' as const },
      declare,
    });
    expect(await value('bus_streams_lost_total{stream="KV_RISK"')).toBe(1);
  });

  it('a memory stream declared afresh is only logged: it goes with its server by design', async () => {
    const { topology, logged, value } = setup();
    let found = { stream: 'LAST_PRICES', created: 't1', storage: 'memory' as const };
    topology.keep({ kind: 'stream', name: 'LAST_PRICES', identity: found, declare: async () => found });
    found = { ...found, created: 't2' };
    topology.redeclare('reconnect');
    await topology.settled();
    expect(await value('bus_streams_lost_total')).toBeUndefined();
    expect(topology.storeLoss).toBeUndefined();
    expect(logged).toContainEqual({
      level: 'info',
      msg: 'a memory stream was declared afresh (its messages went with the server)',
    });
  });

  it('a capturing stream now another one: the one that captured before was lost', async () => {
    const { topology, value } = setup();
    let found = { stream: 'THEIRS', created: 't1', storage: 'file' as const };
    topology.keep({ kind: 'stream', name: 'MINE', identity: found, declare: async () => found });
    found = { stream: 'MINE', created: 't2', storage: 'file' as const };
    topology.redeclare('reconnect');
    await topology.settled();
    expect(await value('bus_streams_lost_total{stream="THEIRS"')).toBe(1);
    expect(topology.storeLoss?.streams).toEqual(['THEIRS']);
  });

  it('knows a "no stream" answer by the error the client gives for a 503', () => {
    const answer = Object.assign(new Error('jetstream is not enabled'), { name: 'JetStreamNotEnabled' });
    expect(isNoStreamAnswer(answer)).toBe(true);
    expect(isNoStreamAnswer(new Error('timeout'))).toBe(false);
    expect(isNoStreamAnswer('JetStreamNotEnabled')).toBe(false);
  });
});
