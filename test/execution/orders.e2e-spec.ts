import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { liveQuotes, metricSum, metricValue } from '../connector/connector-stack.js';
import { e2eDialect } from '../kit/e2e-venue.js';
import { eventually } from '#testing';
import {
  accepted,
  adminPost,
  finalEvents,
  finals,
  getOrder,
  listOrders,
  place,
  placeToFinal,
  positionsOf,
  startExecutionStack,
  type ExecutionInstance,
  type ExecutionStack,
} from './execution-stack.js';

describe('execution: the order API, one final outcome per order', () => {
  let stack: ExecutionStack;
  let instance: ExecutionInstance;
  let group: string;
  let keys = 0;
  const key = () => `key-${(keys += 1)}`;

  const venueOrders = async () => metricSum(stack.venue.restBaseUrl, 'sandbox_orders_total');
  const quote = async () => (await liveQuotes(stack.algo, stack.venue, 'algo-e2e', 1))[0] as string;
  const quoteRequest = { instrument: 'BTC.USD', quantity: '0.5', currency: 'BTC', tenor: 'T' };
  /** A place request with a new idempotency key, by quoteId or by quote request (`source`). */
  const order = (strategyId: string, side: 'BUY' | 'SELL', source: Record<string, unknown>) => ({
    idempotencyKey: key(),
    strategyId,
    accountGroup: group,
    side,
    ...source,
  });

  beforeAll(async () => {
    stack = await startExecutionStack({ connectorEnv: { ORDER_REPLY_TIMEOUT_MS: '1500' } });
    group = stack.venue.seed.defaultGroupUuid;
    instance = await stack.startInstance('exec-a');
  });
  afterAll(async () => {
    await stack?.stop();
  });

  it('BUY by quoteId: accepted at once, then SENT → PENDING → SUCCESS with the fill; query, list and position agree', async () => {
    const quoteId = await quote();
    const { reply, events } = await placeToFinal(stack, order('alpha', 'BUY', { quoteId }));
    expect(reply.duplicate).toBe(false);
    // the size is echoed (outside tester t3 F10): for an order by quoteId, the quote's stream's
    const size = { quantity: '0.5', currency: 'BTC', tenor: 'T' };
    expect(reply.order).toMatchObject({ state: 'INTENT_RECORDED', quoteId, side: 'BUY', final: false, ...size });
    expect(events.map((e) => e.order.state)).toEqual(['INTENT_RECORDED', 'SENT', 'PENDING', 'SUCCESS']);
    expect(events.map((e) => e.seq)).toEqual([1, 2, 3, 4]);
    const final = finals(events);
    expect(final).toHaveLength(1);
    const fill = final[0]?.order.fill;
    expect(fill).toMatchObject({ baseCurrency: 'BTC', quoteCurrency: 'USD', baseAmount: '0.5' });
    expect(fill?.price).toMatch(/^\d+(\.\d+)?$/);
    // a minimal reply (alternate dialect) carries no figures: they are read from the trade list
    expect(fill?.source).toBe(e2eDialect() === 'reference' ? 'outcome' : 'trade-list');
    expect(final[0]?.order.evidence).toBe('reply');
    expect(events.map((e) => e.order)).toEqual(events.map(() => expect.objectContaining(size)));
    const got = await getOrder(stack.algo, { orderId: reply.orderId });
    expect(got).toMatchObject({ ok: true, order: { state: 'SUCCESS', final: true, ...size } });
    const byKey = await getOrder(stack.algo, { strategyId: 'alpha', idempotencyKey: reply.order.idempotencyKey });
    expect(byKey).toMatchObject({ ok: true, order: { orderId: reply.orderId } });
    const open = await listOrders(stack.algo, { filter: 'open' });
    expect(open.ok && open.orders.some((o) => o.orderId === reply.orderId)).toBe(false);
    // no filter lists the open ones, and the reply says so; final orders are never listed (outside tester: a silent [])
    expect(await listOrders(stack.algo, { strategyId: 'alpha' })).toEqual({ ok: true, filter: 'open', orders: [] });
    const positions = await positionsOf(stack.algo, 'alpha');
    expect(positions).toMatchObject({ ok: true, positions: { positions: { BTC: '0.5' }, fills: 1 } });
  });

  it('SELL by quote request: the app takes the freshest live quote of the stream itself', async () => {
    const { reply, events } = await placeToFinal(stack, order('beta', 'SELL', { ...quoteRequest, quantity: '0.50' }));
    // the size as the gateway holds it: plain, the form a retry is compared in (0.50 is 0.5)
    expect(reply.order).toMatchObject({ quantity: '0.5', currency: 'BTC', tenor: 'T' });
    expect(finals(events)).toHaveLength(1);
    expect(finals(events)[0]?.order).toMatchObject({ state: 'SUCCESS', side: 'SELL', instrument: 'BTC.USD' });
    const again = await placeToFinal(stack, order('beta', 'BUY', quoteRequest));
    expect(again.reply.order.quoteId).not.toBe(reply.order.quoteId); // a quote executes once: the next one is taken
    expect(finals(again.events)[0]?.order).toMatchObject({ state: 'SUCCESS' }); // a failure shows its code and evidence
  });

  it('after the connector restarts, an order by quote request takes a quote of the stream at once (asked for again)', async () => {
    await placeToFinal(stack, order('beta', 'SELL', quoteRequest)); // the stream is held, its lease valid for 30 s
    await stack.stack.restart('connector'); // its streams are gone with it; execution's lease is not
    const { reply, events } = await placeToFinal(stack, order('beta', 'BUY', quoteRequest));
    expect(reply.ok).toBe(true);
    expect(finals(events)[0]?.order).toMatchObject({ state: 'SUCCESS' }); // a failure shows its code and evidence
  });

  it('identical requests sent at once: one order, every reply names it, none refused; one order at the venue', async () => {
    const request = order('alpha', 'BUY', quoteRequest);
    const received = async () => metricSum(stack.venue.restBaseUrl, 'sandbox_orders_total', { outcome: 'PENDING' });
    const before = await received();
    const replies = await Promise.all(Array.from({ length: 12 }, () => place(stack.algo, request)));
    const orderIds = new Set(replies.map((r) => accepted(r).orderId));
    expect(orderIds.size).toBe(1);
    expect(replies.filter((r) => r.ok && !r.duplicate)).toHaveLength(1);
    await finalEvents(stack.js, 'alpha', [...orderIds][0] as string);
    expect(await received()).toBe(before + 1); // each order the venue takes counts PENDING once
  });

  it('the same key with the same payload is the same order; with another payload it is refused; nothing more is sent', async () => {
    const request = order('alpha', 'BUY', { quoteId: await quote() });
    const first = (await placeToFinal(stack, request)).reply;
    const before = await venueOrders();
    const second = accepted(await place(stack.algo, request));
    expect(second).toMatchObject({ orderId: first.orderId, clientRequestId: first.clientRequestId, duplicate: true });
    expect(second.order.state).toBe('SUCCESS');
    const other = await place(stack.algo, { ...request, side: 'SELL' });
    expect(other).toMatchObject({
      ok: false,
      error: { code: 'IDEMPOTENCY_KEY_REUSED_WITH_DIFFERENT_PAYLOAD', values: { orderId: first.orderId } },
    });
    expect(await venueOrders()).toBe(before);
  });

  it.each(['RFS100019', 'RFS100020', 'RFS600021'])(
    'the venue refuses with %s: one FAILED outcome with that code',
    async (code) => {
      await adminPost(stack.venue, 'faults/ws/reject-quotes', { count: 1, code });
      const { events } = await placeToFinal(stack, order('alpha', 'BUY', { quoteId: await quote() }));
      expect(finals(events)).toHaveLength(1);
      expect(finals(events)[0]?.order).toMatchObject({ state: 'FAILED', code, evidence: 'reply' });
    },
  );

  it('a price worse than the worst price is refused at once with the values; nothing is sent', async () => {
    const before = await venueOrders();
    const reply = await place(stack.algo, order('alpha', 'BUY', { quoteId: await quote(), worstPrice: '1' }));
    expect(reply).toMatchObject({ ok: false, error: { code: 'PRICE_WORSE_THAN_LIMIT' } });
    expect(!reply.ok && reply.error.values?.['worstPrice']).toBe('1');
    expect(await venueOrders()).toBe(before);
  });

  it("an instrument other than the quote's is refused (risk checks the quote's); nothing is sent", async () => {
    const before = await venueOrders();
    const reply = await place(stack.algo, order('alpha', 'BUY', { quoteId: await quote(), instrument: 'ETH.EUR' }));
    expect(reply).toMatchObject({ ok: false, error: { code: 'INVALID_REQUEST' } });
    expect(!reply.ok && reply.error.message).toContain('BTC.USD');
    expect(await venueOrders()).toBe(before);
  });

  it("an account group other than the quote's is refused (the venue trades the quote in its own group); nothing is sent", async () => {
    const before = await venueOrders();
    const other = '9a000000-0000-4000-8000-0000000000ff';
    const reply = await place(stack.algo, order('alpha', 'BUY', { quoteId: await quote(), accountGroup: other }));
    expect(reply).toMatchObject({ ok: false, error: { code: 'INVALID_REQUEST' } });
    expect(!reply.ok && reply.error.message).toContain(group);
    expect(await venueOrders()).toBe(before);
  });

  it('bad input: a typed rejection naming each bad field; nothing is sent; counted', async () => {
    const invalid = () => metricSum(instance.httpUrl, 'execution_order_rejections_total', { code: 'INVALID_REQUEST' });
    const invalidBefore = await invalid();
    const before = await venueOrders();
    const reply = await place(stack.algo, {
      idempotencyKey: '',
      strategyId: 'has space',
      accountGroup: group,
      side: 'SIDEWAYS',
      quantity: '-1',
      worstPrice: 'cheap',
      extra: 'x'.repeat(10_000),
    });
    expect(reply.ok).toBe(false);
    if (reply.ok) return;
    expect(reply.error.code).toBe('INVALID_REQUEST');
    const fields = (reply.error.fields ?? []).map((f) => f.field).sort();
    expect(fields).toEqual(
      expect.arrayContaining([
        'idempotencyKey',
        'strategyId',
        'side',
        'quantity',
        'worstPrice',
        'extra',
        'instrument',
        'currency',
        'tenor',
      ]),
    );
    expect(JSON.stringify(reply).length).toBeLessThan(4_000); // the 10 KB value is not echoed
    const notJson = await stack.algo.request('gw.v1.acct1.exec.order.place', 'not json', { timeout: 10_000 });
    expect(notJson.json()).toMatchObject({ ok: false, error: { code: 'INVALID_REQUEST' } });
    expect(await venueOrders()).toBe(before);
    expect(await invalid()).toBe(invalidBefore + 2);
    // the order list: a body that is not a JSON object is refused, an empty one lists with the defaults
    const list = async (body: string) =>
      (await stack.algo.request('gw.v1.acct1.exec.order.list', body, { timeout: 10_000 })).json();
    expect(await list('garbage')).toMatchObject({ ok: false, error: { code: 'INVALID_REQUEST' } });
    expect(await list('[1]')).toMatchObject({ ok: false, error: { code: 'INVALID_REQUEST' } });
    expect(await list('')).toMatchObject({ ok: true, filter: 'open' });
    // a filter the journal cannot answer is refused naming the allowed values and where final orders are read
    expect(await list('{"filter":"final"}')).toMatchObject({
      ok: false,
      error: { code: 'INVALID_REQUEST', message: expect.stringMatching(/open, unresolved.*exec\.order\.get/) },
    });
    // the hand-read queries count their refusals like every bad request
    const badRequests = (kind: string) => metricSum(instance.httpUrl, 'bus_bad_requests_total', { subject_kind: kind });
    const ask = async (subject: string, body: string) =>
      (await stack.algo.request(`gw.v1.acct1.exec.${subject}`, body, { timeout: 10_000 })).json();
    expect(await badRequests('order.list')).toBe(3);
    expect(await ask('order.get', 'notjson')).toMatchObject({ ok: false, error: { code: 'INVALID_REQUEST' } });
    expect(await ask('position.get', '{}')).toMatchObject({ ok: false, error: { code: 'INVALID_REQUEST' } });
    expect(await badRequests('order.get')).toBe(1);
    expect(await badRequests('position.get')).toBe(1);
  });

  it('every request subject reads its body within the same bounds and words; counted (tester t2 F3, F6)', async () => {
    const badRequests = (kind: string) => metricSum(instance.httpUrl, 'bus_bad_requests_total', { subject_kind: kind });
    const ask = async (subject: string, body: string) =>
      (await stack.algo.request(`gw.v1.acct1.exec.${subject}`, body, { timeout: 10_000 })).json<{
        ok: boolean;
        error?: { code: string; message: string };
      }>();
    const wide = JSON.stringify(Object.fromEntries(Array.from({ length: 5_000 }, (_, i) => [`k${i}`, 1])));
    const deep = `${'{"a":'.repeat(43_000)}1${'}'.repeat(43_000)}`;
    const huge = JSON.stringify({ pad: 'p'.repeat(1_000_000) });
    const bad: Array<[string, string]> = [
      ['nope{', 'payload is not JSON'],
      [deep, 'payload is nested deeper than 32 levels'],
      [wide, 'payload has more than 1000 fields'],
      [huge, `request is ${huge.length} bytes; at most 262144`],
    ];
    for (const [subject, kind] of [
      ['order.get', 'order.get'],
      ['order.list', 'order.list'],
      ['position.get', 'position.get'],
      ['risk.state.get', 'risk.state.get'],
    ] as const) {
      const before = await badRequests(kind);
      for (const [body, message] of bad)
        expect(await ask(subject, body)).toEqual({ ok: false, error: { code: 'INVALID_REQUEST', message } });
      expect(await badRequests(kind)).toBe(before + bad.length);
    }
    expect(await ask('order.list', '{"__proto__":{"filter":"final"}}')).toEqual({
      ok: false,
      error: { code: 'INVALID_REQUEST', message: 'unknown field "__proto__"' },
    });
    expect((await ask('risk.state.get', '')).ok).toBe(true);
    // a limit named after a prototype member is refused naming it, never stored as an empty override
    const change = (limits: string) => `{"scope":"strategy","id":"t2lim2","by":"e2e","reason":"x","limits":${limits}}`;
    for (const [limits, named] of [
      ['{"__proto__":{"maxNotionalPerOrder":{"USD":"100"}}}', 'limits.__proto__ is not a limit'],
      ['{"hasOwnProperty":1}', 'limits.hasOwnProperty is not a limit'],
      ['{"constructor":{"USD":"1"}}', 'limits.constructor is not a limit'],
      ['{"maxNotionalPerOrder":{"toString":"5"}}', 'limits.maxNotionalPerOrder.toString: a currency is'],
    ] as const) {
      const answer = await ask('risk.limits.set', change(limits));
      expect(answer).toMatchObject({ ok: false, error: { code: 'INVALID_REQUEST' } });
      expect(answer.error?.message).toContain(named);
    }
  });

  it('a valid order published without a reply subject is not placed, and is counted', async () => {
    const counted = () =>
      metricSum(instance.httpUrl, 'bus_requests_without_reply_total', { subject_kind: 'order.place' });
    const before = await counted();
    stack.algo.publish(
      'gw.v1.acct1.exec.order.place',
      JSON.stringify(order('alpha', 'BUY', { quoteId: await quote() })),
    );
    await stack.algo.flush();
    await eventually(async () => ((await counted()) === before + 1 ? true : undefined), {
      what: 'the order without a reply subject counted',
    });
  });

  it('PENDING at the venue when first asked, filled later → resolved SUCCESS, never FAILED', async () => {
    await adminPost(stack.venue, 'faults/ws/order-delay', { ms: 3_000 });
    const { events } = await placeToFinal(stack, order('gamma', 'SELL', { quoteId: await quote() }), 30_000);
    await adminPost(stack.venue, 'faults/ws/order-delay', { ms: 0 });
    const states = events.map((e) => e.order.state);
    expect(states).toContain('UNKNOWN'); // the connector lost sight of it (no reply in time), the venue said PENDING
    expect(states).not.toContain('FAILED');
    expect(finals(events)).toHaveLength(1);
    expect(finals(events)[0]?.order.state).toBe('SUCCESS');
  });

  it('INDETERMINATE at the venue (it may have filled) → never FAILED; settled SUCCESS from the trade list', async () => {
    await adminPost(stack.venue, 'faults/ws/indeterminate', { count: 1 });
    const { events } = await placeToFinal(stack, order('gamma', 'BUY', { quoteId: await quote() }), 50_000);
    const states = events.map((e) => e.order.state);
    expect(states).toContain('INDETERMINATE');
    expect(finals(events)).toHaveLength(1);
    expect(finals(events)[0]?.order).toMatchObject({ state: 'SUCCESS', evidence: 'trade-list' });
  }, 60_000);

  it('a SELL of more BTC than the account holds: FAILED EXECUTION_REJECTED at the venue, not executed, no fill (t1 F3)', async () => {
    // the default group holds 12.5 BTC (sandbox seed); before, the sandbox filled it and the balance went negative
    const { events } = await placeToFinal(stack, order('delta', 'SELL', { ...quoteRequest, quantity: '20' }));
    expect(finals(events)).toHaveLength(1);
    expect(finals(events)[0]?.order).toMatchObject({
      state: 'FAILED',
      code: 'EXECUTION_REJECTED',
      message: 'Insufficient funds',
      evidence: 'reply',
    });
    expect(finals(events)[0]?.order.fill).toBeUndefined();
  });

  it('/health is ok and /metrics tells orders by state, hop latency and unresolved orders', async () => {
    const health = await fetch(`${instance.httpUrl}/health`);
    expect(health.status).toBe(200);
    const text = await (await fetch(`${instance.httpUrl}/metrics`)).text();
    expect(text).toMatch(/execution_orders_total\{[^}]*state="SUCCESS"[^}]*strategy="alpha"/);
    expect(text).toMatch(/execution_order_hop_seconds_bucket\{[^}]*le="0\.00025"/);
    expect(text).toContain('execution_unresolved_orders');
    expect(text).toContain('execution_oldest_unresolved_age_seconds');
  });

  it('/metrics tells the venue REST calls of its reconciliation in the venue_rest_* series every app shares', async () => {
    // the INDETERMINATE order above was settled from the trade list: at least one listTrades call answered 200
    const calls = await metricValue(instance.httpUrl, 'venue_rest_calls_total', {
      operation: 'listTrades',
      status: '200',
    });
    expect(calls).toBeGreaterThanOrEqual(1);
    const waits = await metricValue(instance.httpUrl, 'venue_rest_budget_wait_seconds_count', {
      operation: 'listTrades',
    });
    expect(waits).toBeGreaterThanOrEqual(1);
    // the throttle series of its operations exist from the start, so GatewayVenueRestThrottled sees a first 429
    for (const operation of ['listTrades', 'getOrderState']) {
      expect(await metricValue(instance.httpUrl, 'venue_rest_throttled_total', { operation })).toBe(0);
    }
  });
});
