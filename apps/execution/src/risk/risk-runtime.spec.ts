import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { connect, type NatsConnection } from '@nats-io/transport-node';
import { jetstream, jetstreamManager } from '@nats-io/jetstream';
import { BusConnection, BusMetrics } from '#bus';
import { RiskBucketName, riskSubjects, RiskStreamName, Subjects, type RiskAuditRecord } from '#contracts';
import { HealthRegistry, JsonLogger, MetricsRegistry } from '#observability';
import { eventually, startNatsServer, waitFor, type NatsServerHandle } from '#testing';
import { systemClock } from '#actors';
import { limitsConfigFrom } from './limits.js';
import { RiskEngine } from './risk-engine.js';
import { RiskMetrics } from './risk-metrics.js';
import { riskRuntimeOn, type RiskModuleOptions, type RiskRuntime } from './risk-runtime.js';
import { order } from './testing/risk-fixtures.js';
import { stateOf } from './trading-states.js';

const silent = new JsonLogger('risk-test', 'test', 'error', { write: () => undefined });
const ACCOUNT = 'acct1';
const subjects = riskSubjects(new Subjects('gw.v1', ACCOUNT));

interface Instance {
  engine: RiskEngine;
  runtime: RiskRuntime;
  metrics: MetricsRegistry;
  close(): Promise<void>;
}

async function startInstance(
  url: string,
  options: Partial<RiskModuleOptions> = {},
  limitsFile: unknown = {},
): Promise<Instance> {
  const metrics = new MetricsRegistry('t', { defaultMetrics: false });
  const busMetrics = new BusMetrics(metrics);
  const connection = await BusConnection.open(
    { servers: url, name: 'risk-test' },
    busMetrics,
    new HealthRegistry(),
    silent,
  );
  const riskMetrics = new RiskMetrics(metrics);
  const engine = new RiskEngine(limitsConfigFrom(limitsFile), { clock: systemClock, metrics: riskMetrics });
  const runtime = riskRuntimeOn(
    connection,
    busMetrics,
    { subjectPrefix: 'gw.v1', account: ACCOUNT, killSwitch: false, ...options },
    { engine, logger: silent, metrics: riskMetrics },
  );
  await runtime.start();
  return {
    engine,
    runtime,
    metrics,
    close: async () => {
      await runtime.stop();
      await connection.close();
    },
  };
}

/** An order on a quote issued just now (the runtime's clock is the system clock). */
function liveOrder(overrides: Parameters<typeof order>[0] = {}) {
  const now = Date.now();
  return order(overrides, { venueTimestamp: now, quoteExpiresAt: now + 600_000 });
}

async function code(instance: Instance, overrides: Parameters<typeof order>[0] = {}): Promise<string> {
  const decision = await instance.engine.admit(liveOrder(overrides), Date.now());
  return decision.ok ? 'OK' : decision.code;
}

describe('pre-trade risk control over NATS (two instances, a plain NATS client)', () => {
  let server: NatsServerHandle;
  let client: NatsConnection;
  let a: Instance;
  let b: Instance;

  async function ask<T>(subject: string, body: unknown): Promise<T> {
    const reply = await client.request(subject, JSON.stringify(body), { timeout: 5_000 });
    return reply.json<T>();
  }

  async function auditRecords(): Promise<RiskAuditRecord[]> {
    const jsm = await jetstreamManager(client);
    const info = await jsm.streams.info(RiskStreamName.audit(ACCOUNT));
    const records: RiskAuditRecord[] = [];
    for (let seq = info.state.first_seq; seq <= info.state.last_seq; seq += 1) {
      const message = await jsm.streams.getMessage(RiskStreamName.audit(ACCOUNT), { seq });
      if (message) records.push(message.json<RiskAuditRecord>());
    }
    return records;
  }

  /** One strategy's limits set over NATS, once both instances apply them. */
  async function strategyLimit(id: string, limits: object): Promise<void> {
    await ask(subjects.limitsSet, { scope: 'strategy', id, limits, by: 'carol', reason: 'one limit for the account' });
    for (const instance of [a, b]) {
      await eventually(async () => (instance.engine.state.limits.overrides.has(`strategy:${id}`) ? true : undefined), {
        what: `both instances have the limits of ${id}`,
      });
    }
  }

  beforeAll(async () => {
    server = await startNatsServer();
    client = await connect({ servers: server.url });
    a = await startInstance(server.url, { instance: 'a' });
    b = await startInstance(server.url, { instance: 'b' });
  });
  afterAll(async () => {
    await a?.close();
    await b?.close();
    await client?.close();
    await server?.stop();
  });

  it('takes orders once the trading states are read', async () => {
    expect(await code(a)).toBe('OK');
    expect(await code(b)).toBe('OK');
  });

  it('a scope never set is ACTIVE at revision 0 with no by, reason or at (not empty strings; outside tester t3 F11)', async () => {
    const state = await ask<{ global: Record<string, unknown> }>(subjects.stateGet, {});
    expect(state.global).toEqual({ scope: 'global', state: 'ACTIVE', revision: 0 });
  });

  it('the kill switch halts every instance for the next order, and a resume is audited too', async () => {
    const halted = await ask<{ ok: boolean; entry: { state: string; revision: number } }>(subjects.kill, {
      by: 'alice',
      reason: 'venue incident',
    });
    expect(halted).toMatchObject({
      ok: true,
      entry: { scope: 'global', state: 'HALTED', by: 'alice', reason: 'venue incident' },
    });
    await eventually(async () => ((await code(a)) === 'TRADING_HALTED' ? true : undefined), { what: 'a halted' });
    await eventually(async () => ((await code(b)) === 'TRADING_HALTED' ? true : undefined), { what: 'b halted' });
    const state = await ask<{ ok: boolean; global: { state: string } }>(subjects.stateGet, {});
    expect(state).toMatchObject({ ok: true, readable: true, global: { state: 'HALTED', by: 'alice' } });

    const resumed = await ask(subjects.stateSet, {
      scope: 'global',
      state: 'ACTIVE',
      by: 'bob',
      reason: 'incident over',
      expectedRevision: halted.entry.revision,
    });
    expect(resumed).toMatchObject({ ok: true, entry: { state: 'ACTIVE' } });
    await eventually(async () => ((await code(a)) === 'OK' ? true : undefined), { what: 'a active' });
    await eventually(async () => ((await code(b)) === 'OK' ? true : undefined), { what: 'b active' });

    const records = await auditRecords();
    expect(records.map((r) => [r.kind, r.scope, r.before, r.after, r.by, r.reason, r.via])).toEqual(
      expect.arrayContaining([
        ['state', 'global', 'ACTIVE', 'HALTED', 'alice', 'venue incident', subjects.kill],
        ['state', 'global', 'HALTED', 'ACTIVE', 'bob', 'incident over', subjects.stateSet],
      ]),
    );
    expect(records.every((r) => /^\d{4}-\d\d-\d\dT/.test(r.at))).toBe(true);
  });

  it('compare-and-set: a change made against an old revision is refused and changes nothing', async () => {
    const reply = await ask(subjects.stateSet, {
      scope: 'strategy',
      id: 'alpha',
      state: 'HALTED',
      by: 'alice',
      reason: 'stale view',
      expectedRevision: 9_999,
    });
    expect(reply).toMatchObject({ ok: false, error: { code: 'RISK_CONTROL_CONFLICT' } });
    expect(await code(a)).toBe('OK');
    // revisions are one counter for the store, compared per scope: a scope never set is changed at 0, though other
    // scopes moved the counter; its next change is compared with its own revision, not the store's latest
    const first = await ask<{ ok: boolean; entry: { revision: number } }>(subjects.stateSet, {
      scope: 'accountGroup',
      id: '9a000000-0000-4000-8000-0000000000c1',
      state: 'REDUCING',
      by: 'alice',
      reason: 'per scope',
      expectedRevision: 0,
    });
    expect(first).toMatchObject({ ok: true });
    expect(first.entry.revision).toBeGreaterThan(1);
    await ask(subjects.stateSet, {
      scope: 'accountGroup',
      id: '9a000000-0000-4000-8000-0000000000c2',
      state: 'REDUCING',
      by: 'alice',
      reason: 'another scope moves the counter',
    });
    const again = await ask(subjects.stateSet, {
      scope: 'accountGroup',
      id: '9a000000-0000-4000-8000-0000000000c1',
      state: 'ACTIVE',
      by: 'alice',
      reason: 'per scope',
      expectedRevision: first.entry.revision,
    });
    expect(again).toMatchObject({ ok: true, entry: { state: 'ACTIVE' } });
  });

  it('refuses a bad control request naming each bad field', async () => {
    const reply = await ask<{ ok: false; error: { code: string; message: string } }>(subjects.stateSet, {
      scope: 'global',
      id: 'x',
      state: 'PAUSED',
    });
    expect(reply.error.code).toBe('INVALID_REQUEST');
    for (const field of ['by', 'reason', 'state', 'id must be absent']) expect(reply.error.message).toContain(field);
  });

  it('REDUCING for one strategy takes only orders that reduce its position, at every instance', async () => {
    await ask(subjects.stateSet, { scope: 'strategy', id: 'red', state: 'REDUCING', by: 'alice', reason: 'wind down' });
    await eventually(
      async () => ((await code(b, { strategyId: 'red' })) === 'TRADING_REDUCING_ONLY' ? true : undefined),
      {
        what: 'b sees REDUCING',
      },
    );
    expect(await code(a, { strategyId: 'red' })).toBe('TRADING_REDUCING_ONLY');
    expect(await code(a, { strategyId: 'other' })).toBe('OK');
    const state = await ask<{ strategies: unknown[] }>(subjects.stateGet, {});
    expect(state.strategies).toEqual([expect.objectContaining({ scope: 'strategy', id: 'red', state: 'REDUCING' })]);
  });

  it('an account-group id is stored in its one spelling: a halt set for an upper-case UUID is shown and kept lower case', async () => {
    const upper = '9A000000-0000-4000-8000-0000000000CC';
    const reply = await ask<{ ok: boolean; entry: { id: string } }>(subjects.stateSet, {
      scope: 'accountGroup',
      id: upper,
      state: 'HALTED',
      by: 'alice',
      reason: 'case',
    });
    expect(reply).toMatchObject({ ok: true, entry: { id: upper.toLowerCase() } });
    // no connector answers here: the change is applied, and the answer says the group was not checked
    expect(reply).toMatchObject({ warnings: [expect.stringMatching(/^accountGroup not checked/)] });
    await eventually(
      async () => ((await code(b, { accountGroup: upper.toLowerCase() })) === 'TRADING_HALTED' ? true : undefined),
      { what: 'b sees the halt' },
    );
    await ask(subjects.stateSet, { scope: 'accountGroup', id: upper, state: 'ACTIVE', by: 'alice', reason: 'done' });
  });

  it('limits changed at run time apply at every instance for the next order, and can be removed', async () => {
    const changed = await ask(subjects.limitsSet, {
      scope: 'strategy',
      id: 'lim',
      limits: { maxNotionalPerOrder: { USD: '1000' } },
      by: 'carol',
      reason: 'tighten',
    });
    expect(changed).toMatchObject({
      ok: true,
      scope: 'strategy',
      id: 'lim',
      limits: { maxNotionalPerOrder: { USD: '1000' } },
    });
    await eventually(async () => ((await code(a, { strategyId: 'lim' })) !== 'OK' ? true : undefined), {
      what: 'a limited',
    });
    await eventually(async () => ((await code(b, { strategyId: 'lim' })) !== 'OK' ? true : undefined), {
      what: 'b limited',
    });
    expect(await code(b, { strategyId: 'lim' })).toBe('RISK_NOTIONAL_EXCEEDS_MAX_PER_ORDER');

    const read = await ask(subjects.limitsGet, { scope: 'strategy', id: 'lim' });
    expect(read).toMatchObject({
      ok: true,
      overrides: [expect.objectContaining({ scope: 'strategy', id: 'lim', by: 'carol', reason: 'tighten' })],
      effective: { maxNotionalPerOrder: { USD: '1000' } },
    });

    await ask(subjects.limitsSet, {
      scope: 'strategy',
      id: 'lim',
      limits: null,
      by: 'carol',
      reason: 'back to the file',
    });
    await eventually(async () => ((await code(a, { strategyId: 'lim' })) === 'OK' ? true : undefined), {
      what: 'a unlimited',
    });
    await eventually(async () => ((await code(b, { strategyId: 'lim' })) === 'OK' ? true : undefined), {
      what: 'b unlimited',
    });
    const records = await auditRecords();
    expect(records.filter((r) => r.kind === 'limits').map((r) => [r.before, r.after])).toEqual([
      [null, { maxNotionalPerOrder: { USD: '1000' } }],
      [{ maxNotionalPerOrder: { USD: '1000' } }, null],
    ]);
  });

  it('amounts are kept in their plain form (outside tester: 001000 and 1E+3 were stored and echoed as written)', async () => {
    const limits = { maxNotionalPerOrder: { USD: '001000', EUR: '1E+3' }, maxOpenExposure: { BTC: '2.50' } };
    const plain = { maxNotionalPerOrder: { USD: '1000', EUR: '1000' }, maxOpenExposure: { BTC: '2.5' } };
    const changed = await ask(subjects.limitsSet, { scope: 'strategy', id: 'plain', limits, by: 'carol', reason: 'r' });
    expect(changed).toMatchObject({ ok: true, limits: plain });
    const read = await ask<{ overrides: { id?: string; limits: unknown }[] }>(subjects.limitsGet, {
      scope: 'strategy',
      id: 'plain',
    });
    expect(read).toMatchObject({ effective: plain });
    expect(read.overrides.find((o) => o.id === 'plain')?.limits).toEqual(plain);
    const records = await auditRecords();
    expect(records.filter((r) => r.kind === 'limits').at(-1)?.after).toEqual(plain);
    await ask(subjects.limitsSet, { scope: 'strategy', id: 'plain', limits: null, by: 'carol', reason: 'done' });
  });

  it('refuses limits that do not validate, naming the bad entry', async () => {
    const reply = await ask<{ ok: false; error: { code: string; message: string } }>(subjects.limitsSet, {
      scope: 'accountGroup',
      id: 'g1',
      limits: { maxNotionalPerOrder: { USD: '-5' }, maxOrdersPerSecond: 1.5 },
      by: 'carol',
      reason: 'typo',
    });
    expect(reply.error.code).toBe('INVALID_REQUEST');
    expect(reply.error.message).toContain('limits.maxNotionalPerOrder.USD');
    expect(reply.error.message).toContain('limits.maxOrdersPerSecond');
  });

  it('the instances count each other’s orders: exposure and quote size hold for the account, not per instance', async () => {
    await strategyLimit('shared', { maxOpenExposure: { BTC: '1.5' } });
    const first = liveOrder({ strategyId: 'shared' });
    expect(await a.engine.admit(first, Date.now())).toEqual({ ok: true });
    // probing b before it heard of the order would count the probe itself: wait for the order in b's book
    await eventually(async () => (b.engine.state.book.open.has(first.orderId) ? true : undefined), {
      what: 'b counts the order a admitted',
    });
    expect(await code(b, { strategyId: 'shared' })).toBe('RISK_EXPOSURE_EXCEEDS_MAX_OPEN');
    const sameQuote = { ...liveOrder({ strategyId: 'other' }), quote: first.quote };
    expect(await b.engine.admit(sameQuote, Date.now())).toMatchObject({ ok: false, code: 'QUOTE_SIZE_EXHAUSTED' });
    // b took the order over and learnt it did not execute: a's book frees the headroom too
    b.engine.record({ kind: 'not-executed', orderId: first.orderId });
    await eventually(async () => (a.engine.state.book.open.has(first.orderId) ? undefined : true), {
      what: 'a hears what b learnt',
    });
    expect(await code(a, { strategyId: 'shared' })).toBe('OK');
  });

  it('a burst at both instances at once: the account’s limit holds to the unit (admissions in sequence)', async () => {
    await strategyLimit('burst', { maxOpenExposure: { BTC: '10' } });
    // 40 orders of 1 BTC, 20 at each instance, all asked before any is decided
    const decisions = await Promise.all(
      Array.from({ length: 40 }, (_, i) => code(i % 2 === 0 ? a : b, { strategyId: 'burst' })),
    );
    expect(decisions.filter((d) => d === 'OK')).toHaveLength(10);
    expect(new Set(decisions.filter((d) => d !== 'OK'))).toEqual(new Set(['RISK_EXPOSURE_EXCEEDS_MAX_OPEN']));
    // each instance's book counts all ten, whoever admitted them
    for (const instance of [a, b]) {
      await eventually(
        async () =>
          [...instance.engine.state.book.open.values()].filter((o) => o.strategyId === 'burst').length === 10
            ? true
            : undefined,
        { what: 'every instance counts the ten admitted' },
      );
    }
    const unsequenced = async (instance: Instance) =>
      (await instance.metrics.metrics()).includes('execution_risk_admissions_unsequenced_total{app="t"} 0');
    expect(await unsequenced(a)).toBe(true);
    expect(await unsequenced(b)).toBe(true);
  });

  it('an admission the stream refused is never counted; one it stored is, by every instance (outside tester: phantoms)', async () => {
    const js = jetstream(client);
    const admitted = (orderId: string) => ({
      v: 1,
      instance: 'ghost',
      kind: 'admitted',
      admittedAt: Date.now(),
      order: { ...liveOrder({ strategyId: 'ghosted' }), orderId },
    });
    // an instance overtaken: its publication expected a sequence the subject is past, so the stream refused it
    const refused = await js
      .publish(subjects.admissions, JSON.stringify(admitted('ghost-refused')), { expect: { lastSubjectSequence: 1 } })
      .catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(Error);
    const info = await (
      await jetstreamManager(client)
    ).streams.getMessage(RiskStreamName.book(ACCOUNT), {
      last_by_subj: subjects.admissions,
    });
    await js.publish(subjects.admissions, JSON.stringify(admitted('ghost-stored')), {
      expect: { lastSubjectSequence: info?.seq ?? 0 },
    });
    for (const instance of [a, b]) {
      await eventually(async () => (instance.engine.state.book.open.has('ghost-stored') ? true : undefined), {
        what: 'the stored admission counted',
      });
      expect(instance.engine.state.book.open.has('ghost-refused')).toBe(false);
    }
  });

  it('the admission stream gone: an order is admitted by its instance alone, counted as unsequenced', async () => {
    const jsm = await jetstreamManager(client);
    await jsm.streams.delete(RiskStreamName.book(ACCOUNT));
    expect(await code(a, { strategyId: 'streamless' })).toBe('OK');
    expect(await a.metrics.metrics()).toContain('execution_risk_admissions_unsequenced_total{app="t"} 1');
    // the stream is declared again (the bus's topology): admissions are in sequence again
    await eventually(async () => ((await code(b, { strategyId: 'streamless' })) === 'OK' ? true : undefined), {
      what: 'an order admitted again',
    });
    await eventually(
      async () => ((await jsm.streams.info(RiskStreamName.book(ACCOUNT)).catch(() => undefined)) ? true : undefined),
      { what: 'the stream declared again' },
    );
  });

  it('positions from fills are durable: a new instance counts the fills of before, each once', async () => {
    const filled = liveOrder({ strategyId: 'durable' });
    expect(await a.engine.admit(filled, Date.now())).toEqual({ ok: true });
    const fill = {
      kind: 'filled',
      orderId: filled.orderId,
      baseAmount: '0.75',
      quoteAmount: '37500.5',
      price: '50000',
    } as const;
    a.engine.record(fill);
    a.engine.record(fill);
    await eventually(async () => (b.engine.state.book.open.has(filled.orderId) ? undefined : true), {
      what: 'b hears it',
    });
    b.engine.record(fill); // an order taken over and its fill learnt again: stored once all the same
    const loaded = await eventually(
      async () => {
        const probe = await startInstance(server.url, { instance: 'probe' });
        const positions = probe.engine.state.book.positions.get('strategy:durable');
        await probe.close();
        return positions?.get('BTC')?.toFixed() === '0.75' ? positions : undefined;
      },
      { what: 'a new instance reads the stored fill once' },
    );
    expect(loaded.get('USD')?.toFixed()).toBe('-37500.5');
  });

  it('a restarted instance counts the last minute’s orders (its own and the others’) in its rolling windows', async () => {
    const file = { strategies: { windowed: { maxOrdersPerMinute: 3, maxNotionalPerMinute: { USD: '100000' } } } };
    const first = await startInstance(server.url, { instance: 'first' }, file);
    const traded = liveOrder({ strategyId: 'windowed' });
    const failed = liveOrder({ strategyId: 'windowed' });
    expect(await first.engine.admit(traded, Date.now())).toEqual({ ok: true });
    expect(await first.engine.admit(failed, Date.now())).toEqual({ ok: true });
    first.engine.record({ kind: 'not-executed', orderId: failed.orderId });
    expect(await a.engine.admit(liveOrder({ strategyId: 'windowed' }), Date.now())).toEqual({ ok: true });
    await first.close();
    // the restarted instance: three orders in the last minute, 100000 USD traded (the failed one's 50000 freed)
    const restarted = await startInstance(server.url, { instance: 'first' }, file);
    try {
      expect(restarted.engine.state.book.open.size).toBe(0); // the journal, not this stream, says what is open
      expect(await code(restarted, { strategyId: 'windowed' })).toBe('RISK_ORDER_RATE_EXCEEDS_MAX_PER_MINUTE');
      expect(restarted.engine.state.book.notionalWithinMinute('strategy:windowed', 'USD').toFixed()).toBe('100000');
      expect(restarted.engine.state.book.quoteUsed(traded.quote.quoteId).toFixed()).toBe('1');
      expect(restarted.engine.state.book.quoteUsed(failed.quote.quoteId).toFixed()).toBe('0');
    } finally {
      await restarted.close();
    }
  });

  it('the kill switch in configuration halts trading at start, audited as configuration', async () => {
    const c = await startInstance(server.url, { killSwitch: true, instance: 'c' });
    try {
      expect(await code(c)).toBe('TRADING_HALTED');
      await eventually(async () => ((await code(a)) === 'TRADING_HALTED' ? true : undefined), { what: 'a halted' });
      const records = await auditRecords();
      expect(records.at(-1)).toMatchObject({
        kind: 'state',
        after: 'HALTED',
        via: 'config',
        by: 'configuration',
        instance: 'c',
      });
      expect(await c.metrics.getSingleMetricAsString('execution_risk_trading_state')).toContain(
        'execution_risk_trading_state{scope="global",state="HALTED",app="t"} 1',
      );
    } finally {
      await c.close();
      await ask(subjects.stateSet, { scope: 'global', state: 'ACTIVE', by: 'bob', reason: 'test over' });
    }
  });
});

describe('fail closed: while the trading states cannot be read, every order is refused', () => {
  it('refuses orders while NATS is down and takes them again once the store is read afresh', async () => {
    let server = await startNatsServer();
    const { port, storeDir } = server;
    const instance = await startInstance(server.url);
    try {
      expect(await code(instance)).toBe('OK');
      await server.kill();
      await eventually(async () => ((await code(instance)) === 'TRADING_STATE_UNAVAILABLE' ? true : undefined), {
        what: 'refused while NATS is down',
      });
      expect(await instance.metrics.getSingleMetricAsString('execution_risk_state_store_readable')).toContain('} 0');
      server = await startNatsServer({ port, storeDir });
      await waitFor(async () => (await code(instance)) === 'OK', 'orders taken again after NATS is back', 20_000);
    } finally {
      await instance.close();
      await server.stop();
    }
  });

  it('gets the bucket back from a NATS that lost its store, and takes orders again', async () => {
    let server = await startNatsServer();
    const { port } = server;
    const instance = await startInstance(server.url);
    try {
      await server.stop();
      await eventually(async () => ((await code(instance)) === 'TRADING_STATE_UNAVAILABLE' ? true : undefined), {
        what: 'refused while NATS is down',
      });
      server = await startNatsServer({ port });
      await waitFor(async () => (await code(instance)) === 'OK', 'orders taken again on a fresh NATS', 20_000);
    } finally {
      await instance.close();
      await server.stop();
    }
  });
});

describe('NATS lost the store: what an instance knew is written back before it takes an order again', () => {
  const bucketStream = `KV_${RiskBucketName.control(ACCOUNT)}`;

  function controlOf(instance: Instance) {
    const { control } = instance.runtime;
    if (control === undefined) throw new Error('risk control not started');
    return control;
  }

  const globalOf = (instance: Instance) => stateOf(instance.engine.state.states, 'global');
  function overridesOf(instance: Instance) {
    const answer = controlOf(instance).limits({});
    if (!answer.ok) throw new Error(answer.error.message);
    return answer.overrides;
  }

  /** Every admission answer of the instances until stopped (an OK among them is an order taken under the halt). */
  function watchCodes(instances: Instance[]): { stop(): Promise<string[]> } {
    const seen: string[] = [];
    let running = true;
    const loop = (async () => {
      while (running) {
        for (const instance of instances) seen.push(await code(instance));
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    })();
    return {
      stop: async () => {
        running = false;
        await loop;
        return seen;
      },
    };
  }

  async function auditOf(url: string): Promise<RiskAuditRecord[]> {
    const client = await connect({ servers: url });
    try {
      const jsm = await jetstreamManager(client);
      const stream = RiskStreamName.audit(ACCOUNT);
      const info = await jsm.streams.info(stream);
      const records: RiskAuditRecord[] = [];
      for (let seq = info.state.first_seq; seq <= info.state.last_seq && info.state.messages > 0; seq += 1) {
        const message = await jsm.streams.getMessage(stream, { seq });
        if (message) records.push(message.json<RiskAuditRecord>());
      }
      return records;
    } finally {
      await client.close();
    }
  }

  const lostCount = async (instance: Instance) =>
    (await instance.metrics.getSingleMetricAsString('bus_streams_lost_total'))
      .split('\n')
      .find((line) => line.includes(`stream="${bucketStream}"`))
      ?.replace(/^.* /, '');

  it('a global HALT, a REDUCING strategy and a limit override survive an empty-store restart, at both instances', async () => {
    let server = await startNatsServer();
    const { port } = server;
    const a = await startInstance(server.url, { instance: 'a' }, {});
    const b = await startInstance(server.url, { instance: 'b' }, {});
    try {
      const control = controlOf(a);
      await control.setState({ scope: 'global', state: 'HALTED', by: 'alice', reason: 'drill' }, 'test');
      await control.setState(
        { scope: 'strategy', id: 'slow', state: 'REDUCING', by: 'alice', reason: 'wind down' },
        'test',
      );
      await control.setLimits(
        {
          scope: 'strategy',
          id: 'capped',
          limits: { maxNotionalPerOrder: { USD: '10.25' } },
          by: 'carol',
          reason: 'cap',
        },
        'test',
      );
      await waitFor(async () => (await code(b)) === 'TRADING_HALTED', 'b halted too');
      const codes = watchCodes([a, b]);

      await server.stop(); // its store removed with it
      server = await startNatsServer({ port }); // a new, empty store on the same port
      for (const instance of [a, b]) {
        // until the loss is noticed (at the reconnect, or by the periodic read) it still reads what it knew
        await waitFor(
          async () =>
            instance.engine.state.states.readable &&
            globalOf(instance).by === 'gateway' &&
            (await code(instance)) === 'TRADING_HALTED',
          'halted as restored, the store read again',
          20_000,
        );
      }
      const seen = await codes.stop();
      expect(seen).not.toContain('OK'); // not one order taken between the loss and the restore
      // halted throughout, or unreadable while the store was away (how long that lasts is the machine's)
      expect(seen.filter((c) => c !== 'TRADING_HALTED' && c !== 'TRADING_STATE_UNAVAILABLE')).toEqual([]);
      expect(seen).toContain('TRADING_HALTED');

      for (const instance of [a, b]) {
        expect(globalOf(instance)).toMatchObject({ state: 'HALTED', by: 'gateway' });
        expect(globalOf(instance).reason).toMatch(
          /^restored after the NATS store was lost; set by alice at .*: drill$/,
        );
        expect(stateOf(instance.engine.state.states, 'strategy', 'slow')).toMatchObject({
          state: 'REDUCING',
          by: 'gateway',
        });
        expect(overridesOf(instance)).toEqual([
          expect.objectContaining({ id: 'capped', limits: { maxNotionalPerOrder: { USD: '10.25' } }, by: 'gateway' }),
        ]);
        expect(await lostCount(instance)).toBe('1');
      }
      // written back once, by whichever instance noticed first; the other found it there and kept it
      const restored = (await auditOf(server.url)).filter((r) => r.via === 'store-loss');
      expect(restored.map((r) => [r.kind, r.scope, r.scopeId, r.before, r.after, r.by])).toEqual([
        ['state', 'global', undefined, null, 'HALTED', 'gateway'],
        ['state', 'strategy', 'slow', null, 'REDUCING', 'gateway'],
        ['limits', 'strategy', 'capped', null, { maxNotionalPerOrder: { USD: '10.25' } }, 'gateway'],
      ]);
    } finally {
      await a.close();
      await b.close();
      await server.stop();
    }
  });

  it('a bucket deleted and created afresh while connected (no outage seen) is noticed by the periodic read', async () => {
    const server = await startNatsServer();
    const instance = await startInstance(server.url, { instance: 'alone' });
    const client = await connect({ servers: server.url });
    try {
      await controlOf(instance).setState({ scope: 'global', state: 'HALTED', by: 'alice', reason: 'drill' }, 'test');
      const codes = watchCodes([instance]);
      await (await jetstreamManager(client)).streams.delete(bucketStream); // as lost with its server's store
      await waitFor(
        () => globalOf(instance).by === 'gateway' && instance.engine.state.states.readable,
        'the halt written back',
        20_000,
      );
      expect(await codes.stop()).not.toContain('OK');
      expect(await code(instance)).toBe('TRADING_HALTED');
    } finally {
      await client.close();
      await instance.close();
      await server.stop();
    }
  });

  it('never overwrites what was written after the loss: an operator who lifted the halt is kept', async () => {
    const server = await startNatsServer();
    const instance = await startInstance(server.url, { instance: 'late' });
    try {
      const control = controlOf(instance);
      await control.setState({ scope: 'global', state: 'HALTED', by: 'alice', reason: 'drill' }, 'test');
      const known = globalOf(instance);
      await control.setState({ scope: 'global', state: 'ACTIVE', by: 'bob', reason: 'drill over' }, 'test');
      // as an instance noticing the loss late, after another restored and an operator lifted the halt
      expect(await control.restoreAfterLoss({ states: [known], overrides: [] })).toEqual({ restored: 0, kept: 1 });
      expect(globalOf(instance)).toMatchObject({ state: 'ACTIVE', by: 'bob' });
      expect(await code(instance)).toBe('OK');
    } finally {
      await instance.close();
      await server.stop();
    }
  });

  it('a process that knew nothing meets an empty store as a first start: ACTIVE, nothing written', async () => {
    const server = await startNatsServer();
    const instance = await startInstance(server.url, { instance: 'fresh' });
    try {
      expect(await code(instance)).toBe('OK');
      expect((await auditOf(server.url)).filter((r) => r.via === 'store-loss')).toEqual([]);
    } finally {
      await instance.close();
      await server.stop();
    }
  });
});
