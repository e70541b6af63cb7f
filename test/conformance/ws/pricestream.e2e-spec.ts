/**
 * §2.2 price updates (rules 1–4 and the side-object rules), §4.2 unsubscribe (W10), streamStop (W11),
 * frames outside the contract (§4.2, §9).
 */
import { describe, it, expect, beforeAll, afterAll } from '@jest/globals';
import { Decimal } from 'decimal.js';
import { FAST_TRADING, startWsVenue, subscribeRequest, unsubscribeAfterEach, type WsVenue } from './ws-harness.js';
import { isType, stringField, type Received, type WsTestClient } from './ws-test-client.js';

const PLAIN = /^\d+(\.\d+)?$/;
const DECIMAL = /^\d+(\.\d+)?(e-?\d+)?$/;
const DAY_MS = 86_400_000;

/** Midnight UTC of the first Wednesday on or after `from` (epoch ms). */
function nextWednesdayAfter(from: number): number {
  const midnight = from - (from % DAY_MS);
  const day = new Date(midnight).getUTCDay(); // 0 Sunday … 3 Wednesday
  return midnight + ((3 - day + 7) % 7) * DAY_MS;
}

const yyyymmdd = (at: number): string => new Date(at).toISOString().slice(0, 10).replaceAll('-', '');

let v: WsVenue;
let c: WsTestClient;

beforeAll(async () => {
  v = await startWsVenue();
  c = await v.connect();
});
afterAll(async () => {
  await v.close();
});

const trackStream = unsubscribeAfterEach();

async function subscribe(fields: Record<string, unknown>, client = c): Promise<string> {
  const tag = `p-${Math.random().toString(36).slice(2)}`;
  client.send(subscribeRequest(v.venue, { ...fields, tag }));
  const ack = await client.take(isType('subscribe', { tag }));
  expect(ack.json['success']).toBe(true);
  trackStream(client, ack.json['subscriptionId']);
  return tag;
}

function prices(tag: string, count: number, client = c): Promise<Received[]> {
  return client.takeMany(isType('pricestream', { tag }), count);
}

const side = (p: Received, s: 'offer' | 'bid', f: 'price' | 'quantity' | 'quoteAmount'): string =>
  stringField(p, [s, f]);

describe('§2.2 price update fields', () => {
  it('carries the required fields; no subscriptionId; tag, instrument and tenor echoed', async () => {
    const tag = await subscribe({ quantity: '0.2', tenor: 'T1' });
    const [p] = await prices(tag, 1);
    if (p === undefined) throw new Error('no price');
    expect(p.json).toMatchObject({ messageType: 'pricestream', instrument: 'BTC.USD', tenor: 'T1', tag });
    expect(p.json).not.toHaveProperty('subscriptionId');
    expect(typeof p.json['quoteId']).toBe('string');
    expect(p.json['settleDate']).toMatch(/^\d{8}$/);
    expect(Number.isInteger(p.json['timestamp'])).toBe(true);
    for (const s of ['offer', 'bid'] as const) {
      for (const f of ['price', 'quantity', 'quoteAmount'] as const) expect(side(p, s, f)).toMatch(DECIMAL);
    }
  });

  it('settleDate differs by tenor (T1 after T)', async () => {
    const t = await subscribe({ quantity: '0.21', tenor: 'T' });
    const t1 = await subscribe({ quantity: '0.21', tenor: 'T1' });
    const [pt] = await prices(t, 1);
    const [pt1] = await prices(t1, 1);
    expect(String(pt1?.json['settleDate']) > String(pt?.json['settleDate'])).toBe(true);
  });

  it('settleDate is a property of the update: T moves to the next business day at the 22:00 UTC cut-off (W29)', async () => {
    const client = await v.connect();
    const tag = await subscribe({ quantity: '0.23', tenor: 'T' }, client);
    // A Wednesday (no weekend sits between the two days) at least a week ahead: restoring the clock then
    // moves it back, whatever day the suite runs on.
    const wednesday = nextWednesdayAfter(Date.now() + 7 * DAY_MS);
    const before = wednesday + (21 * 60 + 59) * 60_000;
    const after = wednesday + (22 * 60 + 1) * 60_000;
    const priceAt = (from: number): Promise<Received> =>
      client.take((f) => f['messageType'] === 'pricestream' && f['tag'] === tag && Number(f['timestamp']) >= from);
    try {
      await v.admin('/clock', { skewMs: before - Date.now() });
      expect((await priceAt(before)).json['settleDate']).toBe(yyyymmdd(wednesday));
      await v.admin('/clock', { skewMs: after - Date.now() });
      expect((await priceAt(after)).json['settleDate']).toBe(yyyymmdd(wednesday + DAY_MS));
    } finally {
      await v.admin('/clock', { skewMs: 0 });
    }
    // Moving the venue clock back must not freeze the cadence: updates stamped with the restored time flow.
    await client.take((f) => f['messageType'] === 'pricestream' && f['tag'] === tag && Number(f['timestamp']) < before);
  });

  it('every update carries a new quoteId', async () => {
    const tag = await subscribe({ quantity: '0.22' });
    const ps = await prices(tag, 4);
    expect(new Set(ps.map((p) => p.json['quoteId'])).size).toBe(4);
  });
});

describe('§2.2 rule 1: offer above bid, spread outward', () => {
  it.each([
    ['BTC.USD', 'BTC', '0.5'],
    ['ETH.USD', 'ETH', '2'],
    ['EUR.USD', 'EUR', '100000'],
    ['GBP.USD', 'GBP', '100000'],
    ['USD.JPY', 'USD', '100000'],
    ['SHIB.USD', 'SHIB', '10000000'],
  ])('%s', async (instrument, currency, quantity) => {
    const tag = await subscribe({ instrument, currency, quantity });
    for (const p of await prices(tag, 5)) {
      expect(new Decimal(side(p, 'offer', 'price')).gt(side(p, 'bid', 'price'))).toBe(true);
    }
  });

  it('the market mid set by the operator lies between bid and offer', async () => {
    expect((await v.admin('/market/ETH.USD/mid', { mid: '3000' })).status).toBe(200);
    const tag = await subscribe({ instrument: 'ETH.USD', currency: 'ETH', quantity: '1.5' });
    const [p] = await prices(tag, 1);
    if (p === undefined) throw new Error('no price');
    // The walk keeps moving; the spread straddles whatever the mid is, so check the straddle of the quote's own mid.
    const mid = new Decimal(side(p, 'offer', 'price')).plus(side(p, 'bid', 'price')).div(2);
    expect(mid.minus(3000).abs().lt(30)).toBe(true);
  });
});

describe('§2.2 side quantities and amounts', () => {
  it('base-currency subscription: quantity = subscribed on both sides; quoteAmount = quantity × price, per side', async () => {
    const tag = await subscribe({ quantity: '0.123', currency: 'BTC' });
    for (const p of await prices(tag, 3)) {
      for (const s of ['offer', 'bid'] as const) {
        expect(side(p, s, 'quantity')).toBe('0.123');
        const exact = new Decimal(side(p, s, 'price')).times('0.123');
        expect(new Decimal(side(p, s, 'quoteAmount')).minus(exact).abs().lte('0.005')).toBe(true);
        expect(side(p, s, 'quoteAmount')).toMatch(/^\d+\.\d{2}$/);
      }
      expect(side(p, 'offer', 'quoteAmount')).not.toBe(side(p, 'bid', 'quoteAmount'));
    }
  });

  it('quote-currency subscription: quoteAmount identical; quantity = amount / side price rounded down, per side', async () => {
    const tag = await subscribe({ quantity: '2500', currency: 'USD' });
    for (const p of await prices(tag, 3)) {
      expect(side(p, 'offer', 'quoteAmount')).toBe('2500.00');
      expect(side(p, 'bid', 'quoteAmount')).toBe('2500.00');
      for (const s of ['offer', 'bid'] as const) {
        const floor = new Decimal(2500).div(side(p, s, 'price')).toDecimalPlaces(8, Decimal.ROUND_DOWN);
        expect(new Decimal(side(p, s, 'quantity')).eq(floor)).toBe(true);
      }
      expect(side(p, 'offer', 'quantity')).not.toBe(side(p, 'bid', 'quantity'));
      expect(new Decimal(side(p, 'offer', 'quantity')).lt(side(p, 'bid', 'quantity'))).toBe(true);
    }
  });

  it('the quote currency’s own precision: JPY amounts have no decimals', async () => {
    const tag = await subscribe({ instrument: 'USD.JPY', currency: 'USD', quantity: '12345.67' });
    const [p] = await prices(tag, 1);
    if (p === undefined) throw new Error('no price');
    expect(side(p, 'offer', 'quoteAmount')).toMatch(/^\d+$/);
    expect(side(p, 'bid', 'quoteAmount')).toMatch(/^\d+$/);
  });

  it('tiny prices use scientific notation; quoteAmount stays plain', async () => {
    const tag = await subscribe({ instrument: 'SHIB.USD', currency: 'SHIB', quantity: '50000000' });
    const [p] = await prices(tag, 1);
    if (p === undefined) throw new Error('no price');
    expect(side(p, 'offer', 'price')).toMatch(/e-/);
    expect(side(p, 'bid', 'price')).toMatch(/e-/);
    expect(side(p, 'offer', 'quoteAmount')).toMatch(PLAIN);
    expect(side(p, 'bid', 'quoteAmount')).toMatch(PLAIN);
    // Rounded to the quote currency's 2 decimals: within half a cent of the exact product.
    const exact = new Decimal(side(p, 'offer', 'price')).times('50000000');
    expect(new Decimal(side(p, 'offer', 'quoteAmount')).minus(exact).abs().lte('0.005')).toBe(true);
  });

  it('quote-currency subscription on a base with no decimals (SHIB) gives whole quantities', async () => {
    const tag = await subscribe({ instrument: 'SHIB.USD', currency: 'USD', quantity: '100' });
    const [p] = await prices(tag, 1);
    if (p === undefined) throw new Error('no price');
    expect(side(p, 'offer', 'quantity')).toMatch(/^\d+$/);
    expect(side(p, 'bid', 'quantity')).toMatch(/^\d+$/);
  });
});

describe('§2.2 rule 3 and W13: fixed cadence', () => {
  it('every stream of a connection updates once per cycle, all stamped with the cycle time', async () => {
    const client = await v.connect();
    const a = await subscribe({ quantity: '0.3' }, client);
    const b = await subscribe({ instrument: 'EUR.USD', currency: 'EUR', quantity: '5000' }, client);
    const pa = await prices(a, 6, client);
    const pb = await prices(b, 2, client);
    const ta = pa.map((p) => Number(p.json['timestamp']));
    const tb = pb.map((p) => Number(p.json['timestamp']));
    for (let i = 1; i < ta.length; i += 1) {
      expect((ta[i] ?? 0) - (ta[i - 1] ?? 0)).toBeGreaterThanOrEqual(FAST_TRADING.priceIntervalMs ?? 0);
    }
    // Both streams share the cycles: b's stamps are a's stamps (from b's first cycle on).
    expect(ta).toEqual(expect.arrayContaining(tb.slice(0, 2)));
  });
});

describe('W10 unsubscribe', () => {
  it('replies once with the subscriptionId and tag, then the stream stops', async () => {
    const client = await v.connect();
    client.send(subscribeRequest(v.venue, { quantity: '0.4', tag: 'u1' }));
    const ack = await client.take(isType('subscribe', { tag: 'u1' }));
    await prices('u1', 1, client);
    client.send({ messageType: 'unsubscribe', subscriptionId: ack.json['subscriptionId'] });
    const reply = await client.take(isType('unsubscribe'));
    expect(reply.json).toMatchObject({
      subscriptionId: ack.json['subscriptionId'],
      tag: 'u1',
      success: true,
      message: 'Unsubscribed',
    });
    // A second unsubscribe of the same id is unknown now: ignored.
    client.send({ messageType: 'unsubscribe', subscriptionId: ack.json['subscriptionId'] });
    // Wait two full cycles past the reply: an update would have come by then.
    const other = await subscribe({ quantity: '0.41' }, client);
    await prices(other, 2, client);
    const after = client.seen(isType('pricestream', { tag: 'u1' })).filter((p) => p.seq > reply.seq);
    expect(after).toHaveLength(0);
    expect(client.seen(isType('unsubscribe'))).toHaveLength(1);
    // The stream may be subscribed again.
    client.send(subscribeRequest(v.venue, { quantity: '0.4', tag: 'u1b' }));
    expect((await client.take(isType('subscribe', { tag: 'u1b' }))).json['success']).toBe(true);
  });
});

describe('W11 streamStop', () => {
  it('an operator halt stops the stream with streamStop echoing the tag; no subscriptionId', async () => {
    const client = await v.connect();
    const tag = await subscribe({ instrument: 'GBP.USD', currency: 'GBP', quantity: '1000' }, client);
    const keep = await subscribe({ instrument: 'EUR.USD', currency: 'EUR', quantity: '1001' }, client);
    await prices(tag, 1, client);
    expect((await v.admin('/market/GBP.USD/halt')).status).toBe(200);
    try {
      const stop = await client.take(isType('streamStop', { tag }));
      expect(stop.json).toMatchObject({ instrument: 'GBP.USD', tenor: 'T', tag });
      expect(stop.json).not.toHaveProperty('subscriptionId');
      expect(typeof stop.json['code']).toBe('string');
      await prices(keep, 2, client);
      expect(client.seen(isType('pricestream', { tag })).filter((p) => p.seq > stop.seq)).toHaveLength(0);
      // While halted there is no price: RFS100011.
      client.send(subscribeRequest(v.venue, { instrument: 'GBP.USD', currency: 'GBP', quantity: '1000', tag: 'h2' }));
      expect((await client.take(isType('subscribe', { tag: 'h2' }))).json).toMatchObject({
        success: false,
        code: 'RFS100011',
      });
    } finally {
      await v.admin('/market/GBP.USD/resume');
    }
    client.send(subscribeRequest(v.venue, { instrument: 'GBP.USD', currency: 'GBP', quantity: '1000', tag: 'h3' }));
    expect((await client.take(isType('subscribe', { tag: 'h3' }))).json['success']).toBe(true);
  });
});

describe('frames outside the contract (§4.2, §9)', () => {
  it('the venue sends them now and then when configured, and extra properties on known frames', async () => {
    const noisy = await startWsVenue({ ...FAST_TRADING, offContractEveryNTicks: 2 });
    try {
      const client = await noisy.connect();
      client.send(subscribeRequest(noisy.venue, { quantity: '0.5', tag: 'noisy' }));
      const heartbeat = await client.take((f) => f['messageType'] === 'heartbeat');
      expect(heartbeat.json['chanId']).toBeDefined();
      const other = await client.take(
        (f) => !['heartbeat', 'subscribe', 'pricestream', 'order', 'error'].includes(String(f['messageType'])),
      );
      expect(Object.keys(other.json).length).toBeGreaterThan(3);
      const known = ['chanId', 'timestamp', 'messageType', 'instrument', 'quoteId', 'offer', 'bid', 'tenor'];
      const extended = await client.take(
        (f) =>
          f['messageType'] === 'pricestream' &&
          Object.keys(f).some((k) => ![...known, 'settleDate', 'tag'].includes(k)),
      );
      expect(extended.json['tag']).toBe('noisy');
    } finally {
      await noisy.close();
    }
  });

  it('strict suites see none of them', async () => {
    const client = await v.connect();
    await subscribe({ quantity: '0.5' }, client);
    await client.takeMany(isType('pricestream'), 3);
    expect(client.seen((f) => f['messageType'] === 'heartbeat')).toHaveLength(0);
  });
});
