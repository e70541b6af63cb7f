/**
 * Pre-trade risk through the whole app: each limit, REDUCING, HALTED and the kill switch (over NATS and in
 * configuration) refuse the order at once with its code and values, and nothing reaches the venue. The algo
 * and the operator are plain NATS clients; the execution app runs from `dist/` against the sandbox.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  riskSubjects,
  type PlaceOrderReply,
  type RiskAuditRecord,
  type RiskLimitsChangeAnswer,
  RiskStreamName,
  type TradingStateChangeAnswer,
} from '#contracts';
import { eventually } from '#testing';
import { AppProcess } from '../kit/app-process.js';
import { liveQuotes, metricSum, metricValue } from '../connector/connector-stack.js';
import {
  accepted,
  ACCOUNT,
  finalEvents,
  place,
  startExecutionStack,
  subjects,
  type ExecutionInstance,
  type ExecutionStack,
} from './execution-stack.js';

const risk = riskSubjects(subjects);

const LIMITS = {
  strategies: {
    notional: { maxNotionalPerOrder: { USD: '1' } },
    allow: { allowedInstruments: ['ETH.USD'] },
    rate: { maxOrdersPerMinute: 1 },
    restarted: { maxOrdersPerMinute: 1 },
    perminute: { maxNotionalPerMinute: { USD: '0.01' } },
    exposure: { maxOpenExposure: { BTC: '0.7' } },
    shared: { maxOpenExposure: { BTC: '0.7' } },
  },
};

describe('execution: pre-trade risk through the app', () => {
  let stack: ExecutionStack;
  let instance: ExecutionInstance;
  let group: string;
  let dir: string;
  let keys = 0;

  const venueOrders = async () => metricSum(stack.venue.restBaseUrl, 'sandbox_orders_total');
  const quotes = async (count: number) => liveQuotes(stack.algo, stack.venue, 'risk-e2e', count);
  const order = (strategyId: string, quoteId: string, extra: Record<string, unknown> = {}) =>
    place(stack.algo, {
      idempotencyKey: `risk-${(keys += 1)}`,
      strategyId,
      accountGroup: group,
      side: 'BUY',
      quoteId,
      ...extra,
    });
  const control = async <T>(subject: string, body: unknown): Promise<T> =>
    (await stack.algo.request(subject, JSON.stringify(body), { timeout: 10_000 })).json<T>();
  /** Waits for an accepted order's final outcome (so the venue's order count is still while a refusal is checked). */
  const settled = async (strategyId: string, orderId: string) => {
    const events = await finalEvents(stack.js, strategyId, orderId);
    expect(events.filter((e) => e.order.final)).toHaveLength(1);
  };
  /** The refusal of an order, and that nothing more reached the venue. */
  const refused = async (reply: Promise<PlaceOrderReply>) => {
    const before = await venueOrders();
    const answer = await reply;
    expect(await venueOrders()).toBe(before);
    if (answer.ok) throw new Error(`order accepted: ${answer.orderId}`);
    return answer.error;
  };

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'risk-e2e-'));
    const limitsFile = join(dir, 'limits.json');
    await writeFile(limitsFile, JSON.stringify(LIMITS));
    stack = await startExecutionStack({ executionEnv: { RISK_LIMITS_FILE: limitsFile } });
    group = stack.venue.seed.defaultGroupUuid;
    instance = await stack.startInstance('exec-risk');
  });
  afterAll(async () => {
    await stack?.stop();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('maximum notional per order, from the limits file', async () => {
    const [quoteId] = await quotes(1);
    expect(await refused(order('notional', quoteId as string))).toMatchObject({
      code: 'RISK_NOTIONAL_EXCEEDS_MAX_PER_ORDER',
      values: {
        limit: '1',
        currency: 'USD',
        scope: 'strategy',
        scopeId: 'notional',
        notional: expect.stringMatching(/^\d/),
      },
    });
  });

  it('instrument allow-list', async () => {
    const [quoteId] = await quotes(1);
    expect(await refused(order('allow', quoteId as string))).toMatchObject({
      code: 'RISK_INSTRUMENT_NOT_ALLOWED',
      values: { instrument: 'BTC.USD', scope: 'strategy', scopeId: 'allow' },
    });
  });

  it('maximum order rate', async () => {
    const [first, second] = await quotes(2);
    await settled('rate', accepted(await order('rate', first as string)).orderId);
    expect(await refused(order('rate', second as string))).toMatchObject({
      code: 'RISK_ORDER_RATE_EXCEEDS_MAX_PER_MINUTE',
      values: { orders: '1', limit: '1' },
    });
  });

  it('the order rate holds across a restart: the restarted app counts the last minute’s orders (SIGTERM, then kill -9)', async () => {
    const [first] = await quotes(1);
    await settled('restarted', accepted(await order('restarted', first as string)).orderId);
    expect(await instance.close()).toMatchObject({ code: 0 }); // SIGTERM
    instance = await stack.startInstance('exec-risk');
    const [second] = await quotes(1); // issued after the restart: a quote the new process has seen
    expect(await refused(order('restarted', second as string))).toMatchObject({
      code: 'RISK_ORDER_RATE_EXCEEDS_MAX_PER_MINUTE',
      values: { orders: '1', limit: '1' },
    });
    await instance.kill(); // no orderly stop at all
    instance = await stack.startInstance('exec-risk');
    const [third] = await quotes(1);
    expect(await refused(order('restarted', third as string))).toMatchObject({
      code: 'RISK_ORDER_RATE_EXCEEDS_MAX_PER_MINUTE',
    });
  });

  it('maximum notional per rolling minute', async () => {
    const [quoteId] = await quotes(1);
    expect(await refused(order('perminute', quoteId as string))).toMatchObject({
      code: 'RISK_NOTIONAL_EXCEEDS_MAX_PER_MINUTE',
      values: { lastMinute: '0', limit: '0.01', currency: 'USD' },
    });
  });

  it('maximum open exposure per currency, the first order’s fill counted', async () => {
    const [first, second] = await quotes(2);
    await settled('exposure', accepted(await order('exposure', first as string)).orderId);
    expect(await refused(order('exposure', second as string))).toMatchObject({
      code: 'RISK_EXPOSURE_EXCEEDS_MAX_OPEN',
      values: { currency: 'BTC', exposure: '0.5', exposureAfter: '1', limit: '0.7' },
    });
  });

  it('two instances hold one exposure limit for the account: each refuses once the other has admitted', async () => {
    const second = await stack.startInstance('exec-risk-2');
    try {
      const [first, next] = await quotes(2);
      await settled('shared', accepted(await order('shared', first as string)).orderId);
      // requests are shared by the queue group: ask until both instances have refused (the quote is never used)
      const refusedAt = async (url: string) =>
        (await metricValue(url, 'execution_risk_refusals_total', { code: 'RISK_EXPOSURE_EXCEEDS_MAX_OPEN' })) ?? 0;
      const before = await refusedAt(instance.httpUrl);
      await eventually(
        async () => {
          expect(await refused(order('shared', next as string))).toMatchObject({
            code: 'RISK_EXPOSURE_EXCEEDS_MAX_OPEN',
          });
          const both = (await refusedAt(instance.httpUrl)) > before && (await refusedAt(second.httpUrl)) > 0;
          return both ? true : undefined;
        },
        { what: 'both instances refused', intervalMs: 1 },
      );
    } finally {
      await second.close();
    }
  });

  it('remaining quoted size: a second order on one quote is refused before the venue sees it', async () => {
    const [quoteId] = await quotes(1);
    await settled('size', accepted(await order('size', quoteId as string)).orderId);
    expect(await refused(order('size', quoteId as string))).toMatchObject({
      code: 'QUOTE_SIZE_EXHAUSTED',
      values: { quoteId, quoted: '0.5', used: '0.5' },
    });
  });

  it('a quote the gateway has not seen is refused', async () => {
    expect(await refused(order('alpha', 'never-issued-quote'))).toMatchObject({ code: 'QUOTE_UNKNOWN' });
  });

  it('REDUCING over NATS: an order that would open a position is refused', async () => {
    const changed = await control(risk.stateSet, {
      scope: 'strategy',
      id: 'wind-down',
      state: 'REDUCING',
      by: 'e2e',
      reason: 'end of day',
    });
    expect(changed).toMatchObject({ ok: true, entry: { state: 'REDUCING' } });
    const [quoteId] = await quotes(1);
    expect(await refused(order('wind-down', quoteId as string))).toMatchObject({
      code: 'TRADING_REDUCING_ONLY',
      values: { scope: 'strategy', scopeId: 'wind-down', currency: 'BTC', position: '0', positionAfter: '0.5' },
    });
  });

  it('HALTED for an account group, then ACTIVE again', async () => {
    const halted = await control<TradingStateChangeAnswer>(risk.stateSet, {
      scope: 'accountGroup',
      id: group,
      state: 'HALTED',
      by: 'e2e',
      reason: 'group review',
    });
    // the venue lists the group (asked of the connector): nothing to warn about
    expect(halted).toMatchObject({ ok: true, entry: { scope: 'accountGroup', id: group, state: 'HALTED' } });
    expect(halted.ok && halted.warnings).toBeFalsy();
    const [first, second] = await quotes(2);
    expect(await refused(order('alpha', first as string))).toMatchObject({
      code: 'TRADING_HALTED',
      values: { scope: 'accountGroup', scopeId: group, reason: 'group review' },
    });
    // by quote request: the halt is said before any quote is sought (none could be had for this stream)
    const byRequest = place(stack.algo, {
      idempotencyKey: `risk-${(keys += 1)}`,
      strategyId: 'alpha',
      accountGroup: group,
      side: 'BUY',
      instrument: 'BTC.USD',
      quantity: '0.5',
      currency: 'BTC',
      tenor: 'NOPE',
    });
    expect(await refused(byRequest)).toMatchObject({ code: 'TRADING_HALTED', values: { scope: 'accountGroup' } });
    await control(risk.stateSet, {
      scope: 'accountGroup',
      id: group,
      state: 'ACTIVE',
      by: 'e2e',
      reason: 'review done',
    });
    accepted(await order('alpha', second as string));
  });

  it('a halt or limits for an account group the venue does not list is applied, with a warning', async () => {
    const unlisted = '9a000000-0000-4000-8000-00000000dead';
    const halted = await control<TradingStateChangeAnswer>(risk.stateSet, {
      scope: 'accountGroup',
      id: unlisted.toUpperCase(),
      state: 'HALTED',
      by: 'e2e',
      reason: 'typo?',
    });
    expect(halted).toMatchObject({
      ok: true,
      entry: { id: unlisted, state: 'HALTED' },
      warnings: [expect.stringMatching(/^accountGroup is not one of the \d+ account groups the venue lists/)],
    });
    const limits = await control<RiskLimitsChangeAnswer>(risk.limitsSet, {
      scope: 'accountGroup',
      id: unlisted,
      limits: { maxOrdersPerMinute: 5 },
      by: 'e2e',
      reason: 'typo?',
    });
    expect(limits).toMatchObject({ ok: true, warnings: [expect.stringContaining('applies to no order')] });
    expect(
      await metricValue(instance.httpUrl, 'execution_risk_control_warnings_total', {
        reason: 'unlisted-account-group',
      }),
    ).toBe(2);
    await control(risk.stateSet, { scope: 'accountGroup', id: unlisted, state: 'ACTIVE', by: 'e2e', reason: 'undo' });
    await control(risk.limitsSet, { scope: 'accountGroup', id: unlisted, limits: null, by: 'e2e', reason: 'undo' });
  });

  it('a strategy halt names an id no order, position or limits use (mistyped, wrongly cased): applied, with a warning', async () => {
    const warned = () =>
      metricValue(instance.httpUrl, 'execution_risk_control_warnings_total', { reason: 'unknown-strategy' });
    const before = (await warned()) ?? 0;
    const typo = await control<TradingStateChangeAnswer>(risk.stateSet, {
      scope: 'strategy',
      id: 'ALPHA',
      state: 'HALTED',
      by: 'e2e',
      reason: 'typo?',
    });
    expect(typo).toMatchObject({
      ok: true,
      entry: { id: 'ALPHA', state: 'HALTED' },
      warnings: [expect.stringContaining('strategy ids are case-sensitive')],
    });
    expect(await warned()).toBe(before + 1);
    // a strategy of the limits file: nothing to warn about
    const known = await control<TradingStateChangeAnswer>(risk.stateSet, {
      scope: 'strategy',
      id: 'notional',
      state: 'HALTED',
      by: 'e2e',
      reason: 'known',
    });
    expect(known.ok && known.warnings).toBeFalsy();
    // an id no order could carry is refused, control characters included
    for (const id of ['\u001b[31mX', 'has space', 'a'.repeat(65)]) {
      expect(
        await control(risk.stateSet, { scope: 'strategy', id, state: 'HALTED', by: 'e2e', reason: 'bad id' }),
      ).toMatchObject({ ok: false, error: { code: 'INVALID_REQUEST' } });
    }
    for (const id of ['ALPHA', 'notional'])
      await control(risk.stateSet, { scope: 'strategy', id, state: 'ACTIVE', by: 'e2e', reason: 'undo' });
  });

  it('the kill switch over NATS halts the next order; it is counted, audited and visible', async () => {
    const killed = await control(risk.kill, { by: 'e2e-operator', reason: 'incident' });
    expect(killed).toMatchObject({ ok: true, entry: { scope: 'global', state: 'HALTED' } });
    const [first, second] = await quotes(2);
    expect(await refused(order('alpha', first as string))).toMatchObject({
      code: 'TRADING_HALTED',
      values: { scope: 'global', by: 'e2e-operator', reason: 'incident' },
    });
    expect(
      await metricValue(instance.httpUrl, 'execution_risk_refusals_total', { code: 'TRADING_HALTED' }),
    ).toBeGreaterThanOrEqual(1);
    expect(
      await metricValue(instance.httpUrl, 'execution_risk_trading_state', { scope: 'global', state: 'HALTED' }),
    ).toBe(1);
    const states = await control(risk.stateGet, {});
    expect(states).toMatchObject({ ok: true, readable: true, global: { state: 'HALTED', by: 'e2e-operator' } });
    await control(risk.stateSet, { scope: 'global', state: 'ACTIVE', by: 'e2e-operator', reason: 'incident over' });
    accepted(await order('alpha', second as string));
  });

  it('the kill switch in configuration: a new instance halts trading for every instance at its start', async () => {
    const killer = await stack.startInstance('exec-killer', { TRADING_KILL_SWITCH: 'true' });
    try {
      const [quoteId] = await quotes(1);
      expect(await refused(order('alpha', quoteId as string))).toMatchObject({
        code: 'TRADING_HALTED',
        values: { scope: 'global', by: 'configuration' },
      });
      const jsm = stack.jsm;
      const info = await jsm.streams.info(RiskStreamName.audit(ACCOUNT));
      const last = await jsm.streams.getMessage(RiskStreamName.audit(ACCOUNT), { seq: info.state.last_seq });
      expect(last?.json<RiskAuditRecord>()).toMatchObject({ after: 'HALTED', via: 'config', instance: 'exec-killer' });
    } finally {
      await killer.close();
      await control(risk.stateSet, { scope: 'global', state: 'ACTIVE', by: 'e2e', reason: 'test over' });
    }
    await eventually(
      async () => {
        const [quoteId] = await quotes(1);
        const reply = await order('alpha', quoteId as string);
        return reply.ok ? true : undefined;
      },
      { what: 'orders taken again' },
    );
  });

  it('a bad limits file stops the app at start, naming the bad entry', async () => {
    const bad = join(dir, 'bad.json');
    await writeFile(bad, JSON.stringify({ strategies: { alpha: { maxOrdersPerMinute: 'many' } } }));
    const child = AppProcess.start('execution', stack.env('exec-bad', { RISK_LIMITS_FILE: bad }));
    const exit = await child.exited;
    expect(exit.code).toBe(78);
    expect(child.lines.join('\n')).toContain(
      'RISK_LIMITS_FILE: strategies.alpha.maxOrdersPerMinute must be an integer',
    );
  });
});
