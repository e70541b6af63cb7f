import { afterAll, afterEach, beforeAll, describe, expect, it } from '@jest/globals';
import { riskSubjects, StreamName, type OrderAccepted, type PriceMessage } from '#contracts';
import { eventually } from '#testing';
import { askForStream, liveQuotes, metricValue, nextPrice, streamRequest } from '../connector/connector-stack.js';
import {
  accepted,
  adminPost,
  finals,
  finalEvents,
  getOrder,
  listOrders,
  place,
  startExecutionStack,
  strategyEvents,
  subjects,
  type ExecutionStack,
  ACCOUNT,
} from './execution-stack.js';

const risk = riskSubjects(subjects);
/** The venue's reply delay in the takeover scenario: how long an order A sent stays open at A. */
const ORDER_DELAY_MS = 4_000;

/**
 * Faults of the order path. The venue forgets orders at once (order-state retention 1 ms: what the 24 h
 * horizon does to an old order) and quotes live 4 s, so "not executed" can be proven within a test.
 */
describe('execution: unknown outcomes, crashes, instances and start-up are settled by evidence only', () => {
  let stack: ExecutionStack;
  let group: string;
  let keys = 0;
  const key = () => `rkey-${(keys += 1)}`;
  const venueAccepted = async () =>
    (await metricValue(stack.venue.restBaseUrl, 'sandbox_orders_total', { outcome: 'PENDING' })) ?? 0;
  const quotes = (count: number) => liveQuotes(stack.algo, stack.venue, 'algo-recovery', count);
  const order = async (strategyId: string, overrides: Record<string, unknown> = {}) => ({
    idempotencyKey: key(),
    strategyId,
    accountGroup: group,
    side: 'BUY',
    quoteId: (await quotes(1))[0],
    ...overrides,
  });

  /** A live price of the tests' stream. */
  const livePrice = async (): Promise<PriceMessage> => {
    const granted = await askForStream(stack.algo, streamRequest(stack.venue, 'algo-recovery', { leaseSeconds: 600 }));
    if (!granted.ok) throw new Error(`stream refused: ${JSON.stringify(granted)}`);
    return nextPrice(stack.algo, granted.subject, (price) => price.status === 'live');
  };
  /**
   * The stream's last price shown live again while the connector is down, as a connector that died leaves it (it
   * never publishes `stopped`; execution trusts it until PRICE_SILENT_STALE_MS). A clean stop says `stopped`, and
   * its quotes are refused.
   */
  const asIfItDied = (price: PriceMessage): void => stack.algo.publish(subjects.price(price), JSON.stringify(price));

  beforeAll(async () => {
    stack = await startExecutionStack({
      venue: { trading: { orderRetentionMs: 1, quoteTtlMs: 4_000 } },
      connectorEnv: { ORDER_REPLY_TIMEOUT_MS: '1500' },
      executionEnv: { QUOTE_LIFE_MS: '4000' },
    });
    group = stack.venue.seed.defaultGroupUuid;
  });
  afterEach(async () => {
    // each scenario starts with no instance running (one left behind by a failed test would take its orders)
    for (const instance of stack.instances.splice(0)) await instance.kill();
    await adminPost(stack.venue, 'faults/ws/clear');
  });
  afterAll(async () => {
    await stack?.stop();
  });

  it('reply lost, unknown to the order-state endpoint → UNKNOWN → resolved from the trade list, evidence named', async () => {
    // The trade list is read only once the order is UNKNOWN: with the stack's 1 s first look the trade could be
    // found while the connector still waits for the lost reply, and the order would never be UNKNOWN.
    const instance = await stack.startInstance('solo', { VENUE_CHECK_AFTER_MS: '60000' });
    await adminPost(stack.venue, 'faults/ws/drop-order-outcomes', { count: 1 });
    const reply = accepted(await place(stack.algo, await order('gamma')));
    const events = await finalEvents(stack.js, 'gamma', reply.orderId, 30_000, [instance]);
    const states = events.map((e) => e.order.state);
    expect(states).toContain('UNKNOWN');
    expect(states).not.toContain('FAILED');
    expect(finals(events)).toHaveLength(1);
    expect(finals(events)[0]?.order).toMatchObject({ state: 'SUCCESS', evidence: 'trade-list' });
    expect(finals(events)[0]?.order.fill).toMatchObject({
      source: 'trade-list',
      baseAmount: '0.5',
      baseCurrency: 'BTC',
    });
    expect(
      await metricValue(instance.httpUrl, 'execution_reconciliation_attempts_total', {
        source: 'trade-list',
        result: 'found',
      }),
    ).toBeGreaterThanOrEqual(1);
    // SIGTERM: stop taking work, hand back, exit 0
    expect(await instance.close()).toEqual({ code: 0, signal: null });
  }, 60_000); // an instance to start, up to 30 s for the final event, a clean stop: more than the default 30 s

  it('kill -9 between intent and send: resumed, its command published again — sent in time or refused unsent at once, never twice', async () => {
    const before = await venueAccepted();
    const crashing = await stack.startInstance('crash-1', { FAULT_CRASH_AT: 'after-intent' });
    const request = await order('delta');
    await expect(place(stack.algo, request, 3_000)).rejects.toThrow();
    expect((await crashing.process.exited).signal).toBe('SIGKILL');
    const restarted = await stack.startInstance('crash-1');
    const found = await getOrder(stack.algo, { strategyId: 'delta', idempotencyKey: request.idempotencyKey });
    if (!found.ok) throw new Error(JSON.stringify(found));
    const events = await finalEvents(stack.js, 'delta', found.order.orderId, 30_000, stack.instances);
    expect(finals(events)).toHaveLength(1);
    const final = finals(events)[0]?.order;
    // Restarted before its command's sendBy (fixed at acceptance: the 4 s quote's expiry here), the order's command
    // is published again: sent (filled, or refused for the quote's expiry) or refused unsent by the connector. A
    // restart slower than that (a loaded machine) leaves it to the venue's records: not executed once its quote
    // expired. Never twice, never lost.
    if (final?.state === 'SUCCESS') {
      expect(final).toMatchObject({ evidence: 'reply' });
      expect(await venueAccepted()).toBe(before + 1); // sent once
    } else {
      expect([
        'SEND_DEADLINE_PASSED/gateway',
        'RFS100019/reply',
        'NOT_EXECUTED/quote-expired-unknown-to-venue',
      ]).toContain(`${final?.code}/${final?.evidence}`);
      expect(await venueAccepted()).toBe(before); // not executed
    }
    // the algo retries its key: the existing order, not a new one
    expect(accepted(await place(stack.algo, request))).toMatchObject({ orderId: found.order.orderId, duplicate: true });
    await restarted.close();
  });

  it('kill -9 between the key claim and the intent: the key answers ORDER_BEING_PLACED, then places a new order once the first can no longer be sent', async () => {
    const before = await venueAccepted();
    const deadline = { ORDER_SEND_DEADLINE_MS: '1000' };
    const crashing = await stack.startInstance('crash-0', { ...deadline, FAULT_CRASH_AT: 'after-key-claim' });
    // by quote request: the retry (the same payload) takes a fresh quote, the first one's is long gone by then
    const { quoteId: _quoteId, ...quoted } = await order('delta');
    const request = { ...quoted, instrument: 'BTC.USD', quantity: '0.5', currency: 'BTC', tenor: 'T' };
    await expect(place(stack.algo, request, 3_000)).rejects.toThrow();
    expect((await crashing.process.exited).signal).toBe('SIGKILL');
    const restarted = await stack.startInstance('crash-0', deadline);
    const again = request;
    // the abandoned order could still be sent (within its send deadline and the margin): the key does not answer yet
    const early = await place(stack.algo, again);
    if (early.ok) {
      // the restart took longer than the window: the key already passed to a new order
      expect(early.duplicate).toBe(false);
    } else expect(early.error.code).toBe('ORDER_BEING_PLACED');
    const placed = await eventually(
      async () => {
        const reply = await place(stack.algo, again);
        return reply.ok ? reply : undefined;
      },
      { timeoutMs: 15_000, intervalMs: 500, what: 'the key places a new order' },
    );
    const events = await finalEvents(stack.js, 'delta', placed.orderId, 30_000, stack.instances);
    expect(finals(events)).toHaveLength(1);
    expect(finals(events)[0]?.order.state).toBe('SUCCESS');
    expect(await venueAccepted()).toBe(before + 1);
    // one order for the key: the same one answered again, and no event of any other order of this key
    expect(accepted(await place(stack.algo, again))).toMatchObject({ orderId: placed.orderId, duplicate: true });
    const keyEvents = await strategyEvents(stack.js, 'delta');
    const orderIds = new Set(
      keyEvents.filter((e) => e.order.idempotencyKey === request.idempotencyKey).map((e) => e.order.orderId),
    );
    expect([...orderIds]).toEqual([placed.orderId]);
    expect(await metricValue(restarted.httpUrl, 'execution_idempotent_replays_total', { result: 'abandoned' })).toBe(1);
    await restarted.close();
  });

  it('kill -9 between send and outcome: resumed, the outcome read from the connector, sent exactly once', async () => {
    const before = await venueAccepted();
    const crashing = await stack.startInstance('crash-2', { FAULT_CRASH_AT: 'after-send' });
    const request = await order('delta');
    // the accepted reply may or may not leave before the process dies (it is sent once the intent is durable)
    await place(stack.algo, request, 3_000).catch(() => undefined);
    await crashing.process.exited;
    const restarted = await stack.startInstance('crash-2');
    const found = await getOrder(stack.algo, { strategyId: 'delta', idempotencyKey: request.idempotencyKey });
    if (!found.ok) throw new Error(JSON.stringify(found));
    const events = await finalEvents(stack.js, 'delta', found.order.orderId, 30_000, stack.instances);
    expect(finals(events)).toHaveLength(1);
    expect(finals(events)[0]?.order.state).toBe('SUCCESS');
    expect(await venueAccepted()).toBe(before + 1);
    expect(await metricValue(restarted.httpUrl, 'execution_orders_resumed_total', { how: 'startup' })).toBe(1);
    await restarted.close();
  });

  it('two instances share the orders; one is killed mid-stream: its orders are taken over, each settled once, none re-sent', async () => {
    // A must die with an order still open. Its orders settle when the venue answers or books the trade, both
    // held back by the reply delay: that delay is the whole window between A sending and the kill below, and
    // on a loaded machine the metric polls that see A send, then the kill, took longer than 1.5 s (B then had
    // nothing to take over). 4 s leaves room; the instances' quote life outlasts it, so no order is proven
    // "not executed" by its quote expiring (suite: 4 s) while the venue holds its booking back.
    await adminPost(stack.venue, 'faults/ws/order-delay', { ms: ORDER_DELAY_MS });
    const before = await venueAccepted();
    const pairEnv = { QUOTE_LIFE_MS: '60000' };
    const a = await stack.startInstance('pair-a', pairEnv);
    const placed: OrderAccepted[] = [];
    // Each order is placed once the venue has the one before: the connector sends one per pace, and while the venue
    // holds its answers back (4 s) the pace is the 1 s ceiling — orders placed faster queue at the connector, and
    // one sent 4 s after its quote was streamed finds it expired at the venue (suite: 4 s), FAILED RFS100019.
    const atTheVenue = () =>
      eventually(async () => ((await venueAccepted()) >= before + placed.length ? true : undefined), {
        what: 'the venue has every order placed',
        timeoutMs: 10_000,
        intervalMs: 20,
      });
    // the first three can only go to A (B is not running yet)
    for (const quoteId of await quotes(3)) {
      placed.push(accepted(await place(stack.algo, await order('eps', { quoteId }))));
      await atTheVenue();
    }
    const b = await stack.startInstance('pair-b', pairEnv);
    // Quotes issued after B started: each instance knows every quote it may be asked to execute on. Which
    // instance takes an order is the work queue's choice; A is killed right after it sent one to the venue,
    // so it dies with that order in flight there (reply delayed) and B must take it over.
    const sent = async (instance: typeof a) =>
      (await metricValue(instance.httpUrl, 'execution_orders_total', { state: 'SENT' })) ?? 0;
    let aHoldsOne = false;
    for (let i = 0; i < 12 && !aHoldsOne; i++) {
      const [aBefore, bBefore] = [await sent(a), await sent(b)];
      placed.push(accepted(await place(stack.algo, await order('eps'))));
      const aAfter = await eventually(
        async () => {
          const [aNow, bNow] = [await sent(a), await sent(b)];
          return aNow + bNow > aBefore + bBefore ? aNow : undefined;
        },
        { what: 'the order sent by one of the instances', timeoutMs: 10_000, intervalMs: 20 },
      );
      await atTheVenue();
      // at least three orders after B started; then the first one A sends
      aHoldsOne = i >= 2 && aAfter > aBefore;
    }
    expect(aHoldsOne).toBe(true);
    await a.kill(); // mid-stream: orders in flight at the venue (delayed outcomes)
    for (const reply of placed) {
      const events = await finalEvents(stack.js, 'eps', reply.orderId, 30_000, stack.instances);
      expect(finals(events)).toHaveLength(1);
      // the whole order on a mismatch (toMatchObject would show the state alone): its code says which FAILED
      const order = finals(events)[0]?.order;
      expect(order?.state === 'SUCCESS' ? 'SUCCESS' : JSON.stringify(order)).toBe('SUCCESS');
    }
    expect(await venueAccepted()).toBe(before + placed.length);
    // B took A's order over: counted `takeover`, or `startup` when A's death was seen within B's own start-up
    // phase (lease + sweep after B started: a loaded machine places the orders above within it)
    const resumedBy = async (how: string) =>
      (await metricValue(b.httpUrl, 'execution_orders_resumed_total', { how })) ?? 0;
    expect((await resumedBy('takeover')) + (await resumedBy('startup'))).toBeGreaterThanOrEqual(1);
    await adminPost(stack.venue, 'faults/ws/order-delay', { ms: 0 });
    expect(await b.close()).toEqual({ code: 0, signal: null });
  });

  it('an order accepted while the connector is down is never sent once its send deadline passed: FAILED, not executed', async () => {
    const instance = await stack.startInstance('late-1', { ORDER_SEND_DEADLINE_MS: '1000' });
    const before = await venueAccepted();
    const price = await livePrice();
    const request = await order('theta', { quoteId: price.quoteId });
    let reply: OrderAccepted | undefined;
    await stack.stack.restart('connector', async () => {
      asIfItDied(price);
      // accepted (the intent is durable, the command waits in its stream), then held up past its deadline
      reply = accepted(await place(stack.algo, request));
      await new Promise((resolve) => setTimeout(resolve, 1_500));
    });
    const events = await finalEvents(stack.js, 'theta', (reply as OrderAccepted).orderId, 30_000, [instance]);
    expect(finals(events)).toHaveLength(1);
    expect(finals(events)[0]?.order).toMatchObject({ state: 'FAILED', code: 'SEND_DEADLINE_PASSED' });
    expect(await venueAccepted()).toBe(before); // never reached the venue
    expect(await instance.close()).toEqual({ code: 0, signal: null });
  });

  it("the algo's own sendBy: passed → refused with nothing stored; short, with the connector down → FAILED, never sent", async () => {
    const instance = await stack.startInstance('send-by-1');
    const before = await venueAccepted();
    const price = await livePrice();
    const request = await order('theta-own', { quoteId: price.quoteId });
    const passed = await place(stack.algo, { ...request, sendBy: Date.now() - 1 });
    expect(passed).toMatchObject({ ok: false, error: { code: 'ORDER_SEND_BY_PASSED' } });
    const found = await getOrder(stack.algo, { strategyId: 'theta-own', idempotencyKey: request.idempotencyKey });
    expect(found).toMatchObject({ ok: false, error: { code: 'ORDER_NOT_FOUND' } });
    let reply: OrderAccepted | undefined;
    const sendBy = Date.now() + 1_000; // well before the app's send deadline and the quote's expiry
    await stack.stack.restart('connector', async () => {
      asIfItDied(price);
      reply = accepted(await place(stack.algo, { ...request, sendBy }));
      await new Promise((resolve) => setTimeout(resolve, 1_500));
    });
    expect(reply?.order.sendBy).toBe(sendBy);
    const events = await finalEvents(stack.js, 'theta-own', (reply as OrderAccepted).orderId, 30_000, [instance]);
    expect(finals(events)).toHaveLength(1);
    expect(finals(events)[0]?.order).toMatchObject({ state: 'FAILED', code: 'SEND_DEADLINE_PASSED', sendBy });
    expect(await venueAccepted()).toBe(before); // never reached the venue
    expect(await instance.close()).toEqual({ code: 0, signal: null });
  });

  it('a halt recalls the orders of its scope accepted before it and held up: the connector back never sends them', async () => {
    const instance = await stack.startInstance('recall-1');
    const [first, second] = await quotes(2);
    const halted = await order('kappa', { quoteId: first });
    const other = await order('lambda', { quoteId: second });
    let recalled: OrderAccepted | undefined;
    let unaffected: OrderAccepted | undefined;
    const recallsStored = async () => (await stack.jsm.streams.info(StreamName.orderRecalls(ACCOUNT))).state.messages;
    const storedBefore = await recallsStored();
    const price = await livePrice();
    await stack.stack.restart('connector', async () => {
      asIfItDied(price);
      // accepted while the connector is down: the commands wait in their stream
      recalled = accepted(await place(stack.algo, halted));
      unaffected = accepted(await place(stack.algo, other));
      const changed = await stack.algo.request(
        risk.stateSet,
        JSON.stringify({ scope: 'strategy', id: 'kappa', state: 'HALTED', by: 'e2e', reason: 'recall test' }),
        { timeout: 10_000 },
      );
      expect(changed.json()).toMatchObject({ ok: true });
      // the recall is kept for the connector's next start
      await eventually(async () => ((await recallsStored()) > storedBefore ? true : undefined), {
        what: 'the recall stored',
      });
    });
    const events = await finalEvents(stack.js, 'kappa', (recalled as OrderAccepted).orderId, 30_000, [instance]);
    expect(finals(events)[0]?.order).toMatchObject({ state: 'FAILED', code: 'RECALLED' });
    const trades = (await adminPost(stack.venue, 'trades', undefined, 'GET')) as Array<{ clientRef?: string }>;
    expect(trades.some((t) => t.clientRef === recalled?.clientRequestId)).toBe(false);
    // another strategy's order is not recalled (its outcome is the venue's, whatever it is)
    const others = await finalEvents(stack.js, 'lambda', (unaffected as OrderAccepted).orderId, 30_000, [instance]);
    expect(finals(others)[0]?.order.code).not.toBe('RECALLED');
    expect(await metricValue(instance.httpUrl, 'execution_orders_recalled_total')).toBe(1);
    await stack.algo.request(
      risk.stateSet,
      JSON.stringify({ scope: 'strategy', id: 'kappa', state: 'ACTIVE', by: 'e2e', reason: 'done' }),
      { timeout: 10_000 },
    );
    expect(await instance.close()).toEqual({ code: 0, signal: null });
  });

  it('/health degrades while no connector takes orders (CONNECTOR_STALE_MS), and recovers when one is back', async () => {
    const instance = await stack.startInstance('watch-1', { CONNECTOR_STALE_MS: '1000' });
    type Health = { status: string; checks: Record<string, { up: boolean; detail?: string }> };
    const health = async (): Promise<{ code: number; body: Health }> => {
      const res = await fetch(`${instance.httpUrl}/health`);
      return { code: res.status, body: (await res.json()) as Health };
    };
    const connectorUp = async () => (await metricValue(instance.httpUrl, 'execution_connector_usable')) === 1;
    await eventually(async () => ((await health()).code === 200 ? true : undefined), { what: 'health ok' });
    expect(await connectorUp()).toBe(true);
    await stack.stack.restart('connector', async () => {
      const down = await eventually(async () => ((await health()).code === 503 ? await health() : undefined), {
        what: 'health down without a connector',
        timeoutMs: 10_000,
      });
      expect(down.body.checks['connector']).toMatchObject({
        up: false,
        detail: expect.stringMatching(
          /venue session is stopped; not open for \d+ s: orders accepted now fail SEND_DEADLINE_PASSED/,
        ),
      });
      expect(await connectorUp()).toBe(false);
    });
    await eventually(async () => ((await health()).code === 200 ? true : undefined), {
      what: 'health ok with the connector back',
      timeoutMs: 15_000,
    });
    expect(await connectorUp()).toBe(true);
    expect(await instance.close()).toEqual({ code: 0, signal: null });
  });

  it('nats-server restarted with orders in flight: each order still gets exactly one final outcome', async () => {
    const instance = await stack.startInstance('nats-1');
    await adminPost(stack.venue, 'faults/ws/order-delay', { ms: 1_500 });
    const placed: OrderAccepted[] = [];
    for (const quoteId of await quotes(2))
      placed.push(accepted(await place(stack.algo, await order('eta', { quoteId }))));
    await stack.stack.restartNats();
    for (const reply of placed) {
      const events = await finalEvents(stack.js, 'eta', reply.orderId, 30_000, stack.instances);
      expect(finals(events)).toHaveLength(1);
      const final = finals(events)[0]?.order;
      // SUCCESS, or — when the command reached the venue only after this stack's 4 s quote life, held up by the
      // restart — the venue's own refusal, or, when it had not reached the venue when the quote expired, "not
      // executed" on the venue's own records (order-state and trade list both read, neither knows it), or — when
      // the restart held its command up past ORDER_SEND_DEADLINE_MS — never sent; never a failure the gateway made up
      if (final?.state !== 'SUCCESS') {
        const refused = final?.code === 'RFS100019';
        const late = final?.code === 'SEND_DEADLINE_PASSED';
        expect(final).toMatchObject(
          refused
            ? { state: 'FAILED', code: 'RFS100019', evidence: 'reply' }
            : late
              ? { state: 'FAILED', code: 'SEND_DEADLINE_PASSED' }
              : { state: 'FAILED', code: 'NOT_EXECUTED', evidence: 'quote-expired-unknown-to-venue' },
        );
      }
    }
    expect(await instance.close()).toEqual({ code: 0, signal: null });
  });

  it('start-up while the venue is unreachable: fail-closed (refused with a clear code, visible), then recovery', async () => {
    // An order sent, its reply lost and the venue's REST unreachable (so neither the connector's order-state lookup
    // nor execution's trade list can settle it), its instance killed right after the send: resumed of unknown outcome.
    await adminPost(stack.venue, 'faults/rest', { status: 503, count: 1_000_000 });
    await adminPost(stack.venue, 'faults/ws/drop-order-outcomes', { count: 1 });
    const crashing = await stack.startInstance('down-1', { FAULT_CRASH_AT: 'after-send' });
    const unresolved = await order('zeta');
    await place(stack.algo, unresolved, 3_000).catch(() => undefined); // the accepted reply may or may not leave
    await crashing.process.exited;
    const instance = await stack.startInstance('down-1');
    const refused = await eventually(
      async () => {
        const reply = await place(stack.algo, await order('zeta'));
        return !reply.ok && reply.error.values?.['venue'] === 'unreachable' ? reply : undefined;
      },
      { what: 'a fail-closed refusal', timeoutMs: 15_000, intervalMs: 200 },
    );
    expect(refused).toMatchObject({
      ok: false,
      error: { code: 'EXECUTION_RECONCILING_UNRESOLVED_ORDERS', values: { unresolvedOrders: '1' } },
    });
    const health = await fetch(`${instance.httpUrl}/health`);
    expect(health.status).toBe(503);
    expect(JSON.stringify(await health.json())).toContain('venue unreachable');
    expect(await metricValue(instance.httpUrl, 'execution_startup_reconciling')).toBe(1);
    const open = await listOrders(stack.algo, { filter: 'open', strategyId: 'zeta' });
    expect(open.ok && open.orders.map((o) => o.idempotencyKey)).toEqual([unresolved.idempotencyKey]);
    await adminPost(stack.venue, 'faults/rest', {}, 'DELETE');
    const after = await eventually(
      async () => {
        const reply = await place(stack.algo, await order('zeta'));
        return reply.ok ? reply : undefined;
      },
      { what: 'orders taken again', timeoutMs: 15_000, intervalMs: 200 },
    );
    expect(finals(await finalEvents(stack.js, 'zeta', after.orderId))[0]?.order.state).toBe('SUCCESS');
    expect((await fetch(`${instance.httpUrl}/health`)).status).toBe(200);
    await instance.close();
  });
});
