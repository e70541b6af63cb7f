/**
 * Orders on streamed quotes: §2.2 rule 4, §3.4, §4.2 order request, §7.1 order codes, spec-gaps W3–W8
 * (reply shape and sequence, quote reuse, autoSubscribe redelivery, orderUnsubscribe), §2.8/§4.10 order
 * state after a lost reply, and the order fault controls.
 */
import { describe, it, expect, beforeAll, afterAll, afterEach } from '@jest/globals';
import { SpecClient } from '../spec-client.js';
import { startWsVenue, subscribeRequest, type WsVenue } from './ws-harness.js';
import { isType, stringField, type Received, type WsTestClient } from './ws-test-client.js';

let v: WsVenue;
let rest: SpecClient;
let n = 0;

beforeAll(async () => {
  v = await startWsVenue();
  rest = new SpecClient(v.venue.restBaseUrl, v.venue.credentials.primary);
});
afterEach(async () => {
  await v.admin('/faults/ws/clear');
  await v.admin('/clock', { skewMs: 0 });
});
afterAll(async () => {
  await v.close();
});

const nextId = (prefix: string): string => `${prefix}-${(n += 1)}-${Math.random().toString(36).slice(2, 8)}`;

/** Subscribes on `client` and returns its first price update. */
async function quote(client: WsTestClient, fields: Record<string, unknown> = {}): Promise<Received> {
  const tag = nextId('q');
  client.send(subscribeRequest(v.venue, { quantity: '0.01', ...fields, tag }));
  const ack = await client.take(isType('subscribe', { tag }));
  expect(ack.json['success']).toBe(true);
  return client.take(isType('pricestream', { tag }));
}

function order(
  client: WsTestClient,
  quoteId: unknown,
  side: 'BUY' | 'SELL',
  extra: Record<string, unknown> = {},
): string {
  const clientRequestId = typeof extra['clientRequestId'] === 'string' ? extra['clientRequestId'] : nextId('ord');
  client.send({ messageType: 'order', quoteId, side, clientRequestId, ...extra });
  return clientRequestId;
}

const orderFrame =
  (clientRequestId: string, orderStatus?: string) =>
  (f: Record<string, unknown>): boolean =>
    f['messageType'] === 'order' &&
    f['clientRequestId'] === clientRequestId &&
    (orderStatus === undefined || f['orderStatus'] === orderStatus);

async function orderState(clientRequestId: string): Promise<Array<Record<string, unknown>>> {
  const res = await rest.post('/api/3/svc/rest/orders/state', {}, { query: `clientRequestId=${clientRequestId}` });
  expect(res.status).toBe(200);
  return res.json as Array<Record<string, unknown>>;
}

/** Polls the order-state endpoint until the order has an outcome (deadline, no fixed sleep). */
async function settledState(clientRequestId: string): Promise<Record<string, unknown>> {
  const deadline = Date.now() + 5000;
  for (;;) {
    const [record] = await orderState(clientRequestId);
    if (record !== undefined && record['orderStatus'] !== 'PENDING') return record;
    if (Date.now() > deadline) throw new Error(`order ${clientRequestId} still pending`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

describe('W5/W6 reply sequence and shape', () => {
  it('BUY: PENDING then SUCCESS at the offer, with the execution details; the trade is booked', async () => {
    const c = await v.connect();
    const p = await quote(c, { quantity: '0.02' });
    const id = order(c, p.json['quoteId'], 'BUY');
    const pending = await c.take(orderFrame(id));
    expect(pending.json).toMatchObject({
      messageType: 'order',
      orderStatus: 'PENDING',
      subscriptionStatus: 'NOT_SUBSCRIBED',
      sessionId: null,
      quoteId: p.json['quoteId'],
      side: 'BUY',
      code: '',
    });
    expect(typeof pending.json['transactionId']).toBe('string');
    const done = await c.take(orderFrame(id));
    expect(done.json).toMatchObject({
      orderStatus: 'SUCCESS',
      transactionId: pending.json['transactionId'],
      instrument: 'BTC.USD',
      currency: 'BTC',
      settleDate: p.json['settleDate'],
      code: '',
    });
    expect(stringField(done, ['price'])).toBe(stringField(p, ['offer', 'price']));
    expect(stringField(done, ['quantity'])).toBe(stringField(p, ['offer', 'quantity']));
    expect(stringField(done, ['quoteAmount'])).toBe(stringField(p, ['offer', 'quoteAmount']));
    expect(typeof done.json['tradeRef']).toBe('string');

    const trades = await rest.post('/api/3/trades', { clientRef: id });
    const data = (trades.json as { data: Array<Record<string, unknown>> }).data;
    expect(data).toHaveLength(1);
    expect(data[0]).toMatchObject({ clientRef: id, tradeSide: 'BUY', tradeClass: 'RFS', quoteId: p.json['quoteId'] });
  });

  it('SELL executes on the bid; price, size and tenor sent on the order are ignored', async () => {
    const c = await v.connect();
    const p = await quote(c, { quantity: '0.03' });
    const id = order(c, p.json['quoteId'], 'SELL', { price: '1', quantity: '99', tenor: 'SP', settleDate: '20990101' });
    const done = await c.take(orderFrame(id, 'SUCCESS'));
    expect(stringField(done, ['price'])).toBe(stringField(p, ['bid', 'price']));
    expect(stringField(done, ['quantity'])).toBe('0.03');
    expect(done.json['settleDate']).toBe(p.json['settleDate']);
  });

  it('a quote-currency subscription executes the side’s base quantity and the fixed quoteAmount', async () => {
    const c = await v.connect();
    const p = await quote(c, { quantity: '500', currency: 'USD' });
    const id = order(c, p.json['quoteId'], 'BUY');
    const done = await c.take(orderFrame(id, 'SUCCESS'));
    expect(stringField(done, ['quantity'])).toBe(stringField(p, ['offer', 'quantity']));
    expect(stringField(done, ['quoteAmount'])).toBe('500.00');
    expect(done.json['currency']).toBe('USD');
  });

  it('third-party delivery: the quote carries the beneficiary and network to the trade', async () => {
    const c = await v.connect();
    const p = await quote(c, {
      quantity: '0.015',
      beneficiaryDetails: { beneficiaryId: v.venue.seed.beneficiaryEntity, payoutCurrency: 'BTC' },
    });
    const id = order(c, p.json['quoteId'], 'BUY');
    await c.take(orderFrame(id, 'SUCCESS'));
    const trades = await rest.post('/api/3/trades', { clientRef: id });
    const [trade] = (trades.json as { data: Array<Record<string, unknown>> }).data;
    expect(trade).toMatchObject({
      beneficiary: { uuid: v.venue.seed.beneficiaryEntity },
      networkId: 'SVC_TRANSFER',
      paymentReason: expect.any(String),
    });
    expect(trade).not.toHaveProperty('sender');
  });

  it('third-party collection: the quote carries the sender and SVC_SENDER to the trade', async () => {
    const c = await v.connect();
    const p = await quote(c, {
      quantity: '0.016',
      senderDetails: { senderId: v.venue.seed.senderEntity, payinCurrency: 'BTC' },
    });
    const id = order(c, p.json['quoteId'], 'SELL');
    await c.take(orderFrame(id, 'SUCCESS'));
    const trades = await rest.post('/api/3/trades', { clientRef: id });
    const [trade] = (trades.json as { data: Array<Record<string, unknown>> }).data;
    expect(trade).toMatchObject({
      sender: { uuid: v.venue.seed.senderEntity, name: expect.any(String) },
      networkId: 'SVC_SENDER',
      paymentReason: expect.any(String),
    });
    expect(trade).not.toHaveProperty('beneficiary');
  });

  it("§4.10: another account's order is 200 with an empty array (not 403, not 404)", async () => {
    const c = await v.connect();
    const p = await quote(c);
    const id = order(c, p.json['quoteId'], 'BUY');
    await c.take(orderFrame(id, 'SUCCESS'));
    expect(await orderState(id)).toHaveLength(1);
    const theirs = new SpecClient(v.venue.restBaseUrl, v.venue.credentials.secondUser);
    const res = await theirs.post('/api/3/svc/rest/orders/state', {}, { query: `clientRequestId=${id}` });
    expect(res.status).toBe(200);
    expect(res.json).toEqual([]);
  });

  it('§2.8 / §6.2: an outcome stays readable for 24 hours, then is gone (venue clock moved by the operator)', async () => {
    const c = await v.connect();
    const p = await quote(c);
    const id = order(c, p.json['quoteId'], 'BUY');
    await c.take(orderFrame(id, 'SUCCESS'));
    const day = 24 * 60 * 60 * 1000;
    await v.admin('/clock', { skewMs: day - 60_000 });
    expect(await orderState(id)).toEqual([expect.objectContaining({ orderStatus: 'SUCCESS', clientRequestId: id })]);
    await v.admin('/clock', { skewMs: day + 60_000 });
    expect(await orderState(id)).toEqual([]);
  });

  it('§4.10: a clientRequestId used twice gives both records in one array; sessionId filters them', async () => {
    const id = nextId('twice');
    const session = nextId('sess');
    const c = await v.connect({ rawSessionId: session });
    const first = await quote(c);
    order(c, first.json['quoteId'], 'BUY', { clientRequestId: id, autoSubscribe: true });
    await c.take(orderFrame(id, 'SUCCESS'));
    const second = await quote(c, { quantity: '0.02' });
    order(c, second.json['quoteId'], 'SELL', { clientRequestId: id });
    await c.take(orderFrame(id, 'SUCCESS'));
    const records = await orderState(id);
    expect(records).toHaveLength(2);
    expect(new Set(records.map((r) => r['transactionId'])).size).toBe(2);
    const res = await rest.post(
      '/api/3/svc/rest/orders/state',
      {},
      { query: `clientRequestId=${id}&sessionId=${session}` },
    );
    expect(res.json).toEqual([expect.objectContaining({ sessionId: session, subscriptionStatus: 'SUBSCRIBED' })]);
  });

  it('order state (§4.10) shows the recorded outcome with the clientRequestId', async () => {
    const c = await v.connect();
    const p = await quote(c);
    const id = order(c, p.json['quoteId'], 'BUY');
    await c.take(orderFrame(id, 'SUCCESS'));
    const asked = Date.now();
    const [record] = await orderState(id);
    expect(record).toMatchObject({
      messageType: 'orderState',
      clientRequestId: id,
      orderStatus: 'SUCCESS',
      subscriptionStatus: 'NOT_SUBSCRIBED',
      sessionId: null,
      transactionId: expect.any(String),
      code: '',
      message: expect.any(String),
    });
    // §2.8: the timestamp is when the response was produced, not the time of any order event.
    expect(Number.isInteger(record?.['timestamp'])).toBe(true);
    expect(Number(record?.['timestamp'])).toBeGreaterThanOrEqual(asked);
  });
});

describe('§7.1 order codes and §2.2 rule 4', () => {
  it('RFS600021: a quote is used up once its quoted quantity has executed', async () => {
    const c = await v.connect();
    const p = await quote(c);
    const first = order(c, p.json['quoteId'], 'BUY');
    await c.take(orderFrame(first, 'SUCCESS'));
    const second = order(c, p.json['quoteId'], 'BUY');
    const refused = await c.take(orderFrame(second));
    expect(refused.json).toMatchObject({ orderStatus: 'FAILED', code: 'RFS600021' });
    const third = order(c, p.json['quoteId'], 'SELL');
    expect((await c.take(orderFrame(third))).json).toMatchObject({ orderStatus: 'FAILED', code: 'RFS600021' });
  });

  it('a FAILED rejection is final: nothing follows it', async () => {
    const c = await v.connect();
    const id = order(c, 'no-such-quote', 'BUY');
    expect((await c.take(orderFrame(id))).json).toMatchObject({ orderStatus: 'FAILED', code: 'RFS100019' });
    const p = await quote(c);
    const ok = order(c, p.json['quoteId'], 'BUY');
    await c.take(orderFrame(ok, 'SUCCESS'));
    expect(c.seen(orderFrame(id))).toHaveLength(1);
    expect((await settledState(id))['code']).toBe('RFS100019');
  });

  it('RFS100020: a quote issued to another user', async () => {
    const mine = await v.connect();
    const theirs = await v.connect({ credentials: v.venue.credentials.secondUser });
    const p = await quote(mine);
    const id = order(theirs, p.json['quoteId'], 'BUY');
    expect((await theirs.take(orderFrame(id))).json).toMatchObject({ orderStatus: 'FAILED', code: 'RFS100020' });
  });

  it('§2.2 rule 4: a quote is bound to the user, not the connection: another connection of the user executes it', async () => {
    const a = await v.connect();
    const b = await v.connect();
    const p = await quote(a);
    const id = order(b, p.json['quoteId'], 'BUY');
    await b.take(orderFrame(id, 'SUCCESS'));
  });

  it('RFS100019: a quote expires ten minutes after issue (venue clock moved by the operator)', async () => {
    const c = await v.connect();
    const early = await quote(c);
    const late = await quote(c, { quantity: '0.011' });
    expect((await v.admin('/clock', { skewMs: 590_000 })).status).toBe(200);
    const within = order(c, early.json['quoteId'], 'BUY');
    expect((await c.take(orderFrame(within, 'SUCCESS'))).json['code']).toBe('');
    expect((await v.admin('/clock', { skewMs: 600_000 })).status).toBe(200);
    const after = order(c, late.json['quoteId'], 'BUY');
    expect((await c.take(orderFrame(after))).json).toMatchObject({ orderStatus: 'FAILED', code: 'RFS100019' });
  });

  it.each([
    ['no clientRequestId', { clientRequestId: undefined }],
    ['a clientRequestId with a slash', { clientRequestId: 'a/b' }],
    ['a clientRequestId of 65 characters', { clientRequestId: 'c'.repeat(65) }],
    ['a bad side', { side: 'HOLD' }],
    ['no quoteId', { quoteId: undefined }],
    ['a non-boolean autoSubscribe', { autoSubscribe: 'yes' }],
  ])('INVALID_ORDER for %s', async (_name, change) => {
    const c = await v.connect();
    c.send({ messageType: 'order', quoteId: 'q', side: 'BUY', clientRequestId: nextId('bad'), ...change });
    const frame = await c.take(isType('order'));
    expect(frame.json).toMatchObject({ orderStatus: 'FAILED', code: 'INVALID_ORDER' });
  });
});

describe('W7 autoSubscribe and redelivery across reconnects', () => {
  it('binds the order to the connection’s sessionId', async () => {
    const session = nextId('s');
    const c = await v.connect({ rawSessionId: session });
    const p = await quote(c);
    const id = order(c, p.json['quoteId'], 'BUY', { autoSubscribe: true });
    const pending = await c.take(orderFrame(id, 'PENDING'));
    expect(pending.json).toMatchObject({ subscriptionStatus: 'SUBSCRIBED', sessionId: session });
    await c.take(orderFrame(id, 'SUCCESS'));
    expect((await orderState(id))[0]).toMatchObject({ sessionId: session, subscriptionStatus: 'SUBSCRIBED' });
  });

  it('a lost reply: the outcome is recorded (order state) and redelivered when the session reconnects', async () => {
    const session = nextId('s');
    const c = await v.connect({ rawSessionId: session });
    const p = await quote(c);
    expect((await v.admin('/faults/ws/drop-order-outcomes', { count: 1 })).status).toBe(200);
    const id = order(c, p.json['quoteId'], 'BUY', { autoSubscribe: true });
    await c.take(orderFrame(id, 'PENDING'));
    expect((await settledState(id))['orderStatus']).toBe('SUCCESS');
    await c.barrier();
    expect(c.seen(orderFrame(id, 'SUCCESS'))).toHaveLength(0);
    await c.close();
    const again = await v.connect({ rawSessionId: session });
    const redelivered = await again.take(orderFrame(id));
    expect(redelivered.json).toMatchObject({
      orderStatus: 'SUCCESS',
      sessionId: session,
      tradeRef: expect.any(String),
    });
    expect(redelivered.seq).toBe(0);
  });

  it('an outcome reached while disconnected is delivered to the reconnecting session', async () => {
    const session = nextId('s');
    const c = await v.connect({ rawSessionId: session });
    const p = await quote(c);
    await v.admin('/faults/ws/order-delay', { ms: 300 });
    const id = order(c, p.json['quoteId'], 'BUY', { autoSubscribe: true });
    expect((await v.admin('/faults/ws/drop', { sessionId: session })).json).toMatchObject({ dropped: 1 });
    await c.closed;
    expect((await settledState(id))['orderStatus']).toBe('SUCCESS');
    const again = await v.connect({ rawSessionId: session });
    expect((await again.take(orderFrame(id))).json['orderStatus']).toBe('SUCCESS');
  });

  it('a connection that replaces the session receives the later outcome', async () => {
    const session = nextId('s');
    const first = await v.connect({ rawSessionId: session });
    const p = await quote(first);
    await v.admin('/faults/ws/order-delay', { ms: 300 });
    const id = order(first, p.json['quoteId'], 'BUY', { autoSubscribe: true });
    await first.barrier();
    const second = await v.connect({ rawSessionId: session });
    await first.closed;
    expect((await second.take(orderFrame(id, 'SUCCESS'))).json['sessionId']).toBe(session);
  });

  it('without autoSubscribe nothing is redelivered; the outcome stays readable over REST', async () => {
    const session = nextId('s');
    const c = await v.connect({ rawSessionId: session });
    const p = await quote(c);
    await v.admin('/faults/ws/drop-order-outcomes', { count: 1 });
    const id = order(c, p.json['quoteId'], 'BUY');
    await c.take(orderFrame(id, 'PENDING'));
    expect((await settledState(id))['orderStatus']).toBe('SUCCESS');
    await c.close();
    const again = await v.connect({ rawSessionId: session });
    await again.barrier();
    expect(again.seen(orderFrame(id))).toHaveLength(0);
  });

  it('a minted session cannot be rejoined: no redelivery even with the minted id', async () => {
    const c = await v.connect();
    const p = await quote(c);
    await v.admin('/faults/ws/drop-order-outcomes', { count: 1 });
    const id = order(c, p.json['quoteId'], 'BUY', { autoSubscribe: true });
    const pending = await c.take(orderFrame(id, 'PENDING'));
    const minted = pending.json['sessionId'];
    expect(typeof minted).toBe('string');
    expect((await settledState(id))['orderStatus']).toBe('SUCCESS');
    await c.close();
    const again = await v.connect({ rawSessionId: encodeURIComponent(String(minted)) });
    await again.barrier();
    expect(again.seen(orderFrame(id))).toHaveLength(0);
  });
});

describe('W8 orderUnsubscribe', () => {
  it('stops outcome delivery for a session-bound order', async () => {
    const session = nextId('s');
    const c = await v.connect({ rawSessionId: session });
    const p = await quote(c);
    const id = order(c, p.json['quoteId'], 'BUY', { autoSubscribe: true });
    await c.take(orderFrame(id, 'SUCCESS'));
    c.send({ messageType: 'orderUnsubscribe', clientRequestId: id });
    const reply = await c.take(isType('orderUnsubscribe'));
    expect(reply.json).toMatchObject({
      clientRequestId: id,
      success: true,
      subscriptionStatus: 'UNSUBSCRIBED',
      code: '',
    });
    expect((await orderState(id))[0]).toMatchObject({ subscriptionStatus: 'UNSUBSCRIBED' });
    await c.close();
    const again = await v.connect({ rawSessionId: session });
    await again.barrier();
    expect(again.seen(orderFrame(id))).toHaveLength(0);
  });

  it('an unknown or unbound clientRequestId → success:false ORDER_NOT_FOUND', async () => {
    const c = await v.connect();
    c.send({ messageType: 'orderUnsubscribe', clientRequestId: 'never-sent' });
    expect((await c.take(isType('orderUnsubscribe'))).json).toMatchObject({
      success: false,
      code: 'ORDER_NOT_FOUND',
    });
    const p = await quote(c);
    const id = order(c, p.json['quoteId'], 'BUY');
    await c.take(orderFrame(id, 'SUCCESS'));
    c.send({ messageType: 'orderUnsubscribe', clientRequestId: id });
    expect((await c.take(isType('orderUnsubscribe', { clientRequestId: id }))).json).toMatchObject({
      success: false,
      subscriptionStatus: 'NOT_SUBSCRIBED',
      code: 'ORDER_NOT_FOUND',
    });
  });
});

describe('order fault controls', () => {
  it('INDETERMINATE: the outcome is unknown, yet the trade exists (reconcile through the trade list)', async () => {
    const c = await v.connect();
    const p = await quote(c);
    await v.admin('/faults/ws/indeterminate', { count: 1 });
    const id = order(c, p.json['quoteId'], 'BUY');
    expect((await c.take(orderFrame(id, 'INDETERMINATE'))).json['orderStatus']).toBe('INDETERMINATE');
    const trades = await rest.post('/api/3/trades', { clientRef: id });
    expect((trades.json as { data: unknown[] }).data).toHaveLength(1);
  });

  it('reject-quotes refuses the next order with the chosen code', async () => {
    const c = await v.connect();
    const p = await quote(c);
    await v.admin('/faults/ws/reject-quotes', { count: 1, code: 'RFS100019' });
    const id = order(c, p.json['quoteId'], 'BUY');
    expect((await c.take(orderFrame(id))).json).toMatchObject({ orderStatus: 'FAILED', code: 'RFS100019' });
    const next = order(c, p.json['quoteId'], 'BUY');
    await c.take(orderFrame(next, 'SUCCESS'));
  });

  it('order-delay holds the replies back while the order is already recorded as PENDING', async () => {
    const c = await v.connect();
    const p = await quote(c);
    // Long enough that a loaded machine still reads the record before execution; the test waits for the
    // outcome event, it does not measure the delay.
    await v.admin('/faults/ws/order-delay', { ms: 3000 });
    const id = order(c, p.json['quoteId'], 'BUY');
    await c.barrier();
    const [record] = await orderState(id);
    // §2.8: clientRequestId stays empty until an outcome is recorded, even on a lookup by clientRequestId.
    expect(record).toMatchObject({ orderStatus: 'PENDING', clientRequestId: '' });
    expect(c.seen(orderFrame(id))).toHaveLength(0);
    await c.take(orderFrame(id, 'PENDING'));
    await c.take(orderFrame(id, 'SUCCESS'));
  });

  it('stall: the socket goes silent without closing; held replies arrive on resume', async () => {
    const session = nextId('s');
    const c = await v.connect({ rawSessionId: session });
    await quote(c);
    expect((await v.admin('/faults/ws/stall', { sessionId: session })).json).toMatchObject({ stalled: 1 });
    c.send({ messageType: 'accountGroups', requestId: 'during-stall' });
    const other = await v.connect();
    await other.barrier();
    const receivedWhileStalled = c.frames.length;
    await v.admin('/faults/ws/resume', { sessionId: session });
    const reply = await c.take(isType('accountGroups', { requestId: 'during-stall' }));
    expect(reply.json['success']).toBe(true);
    expect(reply.seq).toBeGreaterThanOrEqual(receivedWhileStalled);
    expect(c.socket.readyState).toBe(c.socket.OPEN);
  });
});
