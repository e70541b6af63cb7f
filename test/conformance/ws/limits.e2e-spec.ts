/**
 * §8 limits at the venue's real settings: 30 messages/s per account (W14), 1 order per 250 ms per account
 * (W15), at most 4 price updates per second per connection at the default cadence (§6.2, W13).
 */
import { describe, it, expect, beforeAll, afterAll } from '@jest/globals';
import { startWsVenue, subscribeRequest, type WsVenue } from './ws-harness.js';
import { isType, type Received, type WsTestClient } from './ws-test-client.js';

let v: WsVenue;

beforeAll(async () => {
  // Everything at the defaults except the off-contract frames.
  v = await startWsVenue({ offContractEveryNTicks: 0 });
});
afterAll(async () => {
  await v.close();
});

async function firstPrice(client: WsTestClient, tag: string, fields: Record<string, unknown> = {}): Promise<Received> {
  client.send(subscribeRequest(v.venue, { quantity: '0.01', ...fields, tag }));
  expect((await client.take(isType('subscribe', { tag }))).json['success']).toBe(true);
  return client.take(isType('pricestream', { tag }));
}

const stamps = (frames: Received[]): number[] => frames.map((f) => Number(f.json['timestamp']));

describe('§6.2 / W13 cadence at the default', () => {
  it('a stream gets at most 4 updates in any second, by the venue’s timestamps', async () => {
    const c = await v.connect();
    await firstPrice(c, 'cad');
    const t = stamps(await c.takeMany(isType('pricestream', { tag: 'cad' }), 6));
    for (let i = 1; i < t.length; i += 1) expect((t[i] ?? 0) - (t[i - 1] ?? 0)).toBeGreaterThanOrEqual(250);
    for (let i = 4; i < t.length; i += 1) expect((t[i] ?? 0) - (t[i - 4] ?? 0)).toBeGreaterThanOrEqual(1000);
  });

  it('with several streams the connection still emits at most 4 update cycles per second', async () => {
    const c = await v.connect();
    await firstPrice(c, 'c1');
    await firstPrice(c, 'c2', { instrument: 'EUR.USD', currency: 'EUR', quantity: '1000' });
    await c.takeMany(isType('pricestream', { tag: 'c2' }), 5);
    const cycles = [...new Set(stamps(c.seen(isType('pricestream'))))].sort((a, b) => a - b);
    for (let i = 4; i < cycles.length; i += 1) {
      expect((cycles[i] ?? 0) - (cycles[i - 4] ?? 0)).toBeGreaterThanOrEqual(1000);
    }
  });
});

describe('§6.2 / W13 dialect priceCadence=per-connection: at most 4 updates per second on the connection', () => {
  it('the connection carries one update per tick, its streams in turn', async () => {
    const shared = await startWsVenue({ offContractEveryNTicks: 0 }, { priceCadence: 'per-connection' });
    try {
      const c = await shared.connect();
      const tags = ['p1', 'p2', 'p3'];
      for (const [i, tag] of tags.entries()) {
        c.send(subscribeRequest(shared.venue, { quantity: `0.0${i + 1}`, tag }));
        expect((await c.take(isType('subscribe', { tag }))).json['success']).toBe(true);
      }
      const frames = await c.takeMany(isType('pricestream'), 9);
      const t = stamps(frames);
      for (let i = 1; i < t.length; i += 1) expect((t[i] ?? 0) - (t[i - 1] ?? 0)).toBeGreaterThanOrEqual(250);
      // in turn: every stream is heard from within each run of three updates once all three are subscribed
      const lastSix = frames.slice(-6).map((f) => f.json['tag']);
      expect(new Set(lastSix.slice(0, 3))).toEqual(new Set(tags));
      expect(new Set(lastSix.slice(3))).toEqual(new Set(tags));
    } finally {
      await shared.close();
    }
  });
});

describe('W14 a subscribe over the budget', () => {
  async function burstOfSubscribes(venue: WsVenue): Promise<Received[]> {
    const c = await venue.connect();
    for (let i = 0; i < 40; i += 1) c.send(subscribeRequest(venue.venue, { quantity: `0.${100 + i}`, tag: `b${i}` }));
    return c.takeMany((f) => f['messageType'] === 'subscribe' || f['messageType'] === 'error', 40);
  }

  it('gets its one acknowledgement, failed with MESSAGE_RATE_LIMITED, and no error frame (§2.1 rules 1–2)', async () => {
    const fresh = await startWsVenue({ offContractEveryNTicks: 0 });
    try {
      const answers = await burstOfSubscribes(fresh);
      expect(answers.every((f) => f.json['messageType'] === 'subscribe')).toBe(true);
      const limited = answers.filter((f) => f.json['code'] === 'MESSAGE_RATE_LIMITED');
      expect(limited.length).toBeGreaterThanOrEqual(10);
      for (const ack of limited) {
        expect(ack.json).toMatchObject({ success: false, instrument: 'BTC.USD', subscriptionId: expect.any(String) });
        expect(String(ack.json['tag'])).toMatch(/^b\d+$/);
      }
    } finally {
      await fresh.close();
    }
  });

  it('dialect rateLimitedSubscribe=error: dropped with an error frame like any other message', async () => {
    const fresh = await startWsVenue({ offContractEveryNTicks: 0 }, { rateLimitedSubscribe: 'error' });
    try {
      const answers = await burstOfSubscribes(fresh);
      const errors = answers.filter((f) => f.json['messageType'] === 'error');
      expect(errors.length).toBeGreaterThanOrEqual(10);
      expect(errors.every((f) => f.json['code'] === 'MESSAGE_RATE_LIMITED')).toBe(true);
    } finally {
      await fresh.close();
    }
  });
});

describe('W15 one order per 250 ms per account', () => {
  it('an order right after another fails at once with ORDER_RATE_LIMITED; after 250 ms orders pass again', async () => {
    const c = await v.connect();
    const p1 = await firstPrice(c, 'o1');
    const p2 = await firstPrice(c, 'o2', { quantity: '0.02' });
    c.send({ messageType: 'order', quoteId: p1.json['quoteId'], side: 'BUY', clientRequestId: 'rl-1' });
    c.send({ messageType: 'order', quoteId: p2.json['quoteId'], side: 'BUY', clientRequestId: 'rl-2' });
    const refused = await c.take(isType('order', { clientRequestId: 'rl-2' }));
    expect(refused.json).toMatchObject({ orderStatus: 'FAILED', code: 'ORDER_RATE_LIMITED' });
    expect((await c.take(isType('order', { clientRequestId: 'rl-1', orderStatus: 'SUCCESS' }))).json['code']).toBe('');
    // Two further cadence cycles (≥ 250 ms apart by the venue's clock) later, the spacing has passed.
    const later = await c.takeMany(isType('pricestream', { tag: 'o2' }), 2);
    const fresh = later[1];
    c.send({ messageType: 'order', quoteId: fresh?.json['quoteId'], side: 'BUY', clientRequestId: 'rl-3' });
    expect((await c.take(isType('order', { clientRequestId: 'rl-3', orderStatus: 'SUCCESS' }))).json['code']).toBe('');
    expect(c.seen(isType('order', { clientRequestId: 'rl-2' }))).toHaveLength(1);
  });

  it('the spacing is per account across connections, and other accounts are not affected', async () => {
    const a = await v.connect();
    const b = await v.connect();
    const other = await v.connect({ credentials: v.venue.credentials.secondUser });
    const pa = await firstPrice(a, 'x1');
    const pb = await firstPrice(b, 'x2');
    const po = await firstPrice(other, 'x3', { accountGrpUuid: v.venue.seed.user2DefaultGroup });
    a.send({ messageType: 'order', quoteId: pa.json['quoteId'], side: 'SELL', clientRequestId: 'acct-a' });
    b.send({ messageType: 'order', quoteId: pb.json['quoteId'], side: 'SELL', clientRequestId: 'acct-b' });
    other.send({ messageType: 'order', quoteId: po.json['quoteId'], side: 'SELL', clientRequestId: 'acct-o' });
    const results = await Promise.all([
      a.take(isType('order', { clientRequestId: 'acct-a' })),
      b.take(isType('order', { clientRequestId: 'acct-b' })),
    ]);
    const codes = results.map((r) => r.json['code']).sort();
    expect(codes).toEqual(['', 'ORDER_RATE_LIMITED']);
    expect(
      (await other.take(isType('order', { clientRequestId: 'acct-o', orderStatus: 'SUCCESS' }))).json,
    ).toBeTruthy();
  });
});

describe('W14 30 messages per second per account', () => {
  it('a burst of 40 messages: 30 handled, 10 dropped with MESSAGE_RATE_LIMITED, socket open', async () => {
    const second = v.venue.credentials.secondUser;
    const c = await v.connect({ credentials: second });
    for (let i = 0; i < 40; i += 1) c.send({ messageType: 'accountGroups', requestId: `m${i}` });
    // Earlier tests may have used a little of this account's current window: count both kinds.
    const answers = await c.takeMany((f) => f['messageType'] === 'accountGroups' || f['messageType'] === 'error', 40);
    const replies = answers.filter((f) => f.json['messageType'] === 'accountGroups');
    const errors = answers.filter((f) => f.json['code'] === 'MESSAGE_RATE_LIMITED');
    expect(replies.length).toBeLessThanOrEqual(30);
    expect(replies.length).toBeGreaterThanOrEqual(25);
    expect(errors).toHaveLength(40 - replies.length);
    expect(c.socket.readyState).toBe(c.socket.OPEN);
  });

  it('the window is per account: two connections of one account share it; unknown messageTypes count too', async () => {
    // Wait out the previous test's window by the venue's own cadence: 5 cycles of 250 ms.
    const a = await v.connect();
    await firstPrice(a, 'w0');
    await a.takeMany(isType('pricestream', { tag: 'w0' }), 5);
    const b = await v.connect();
    for (let i = 0; i < 10; i += 1) a.send({ messageType: 'noSuchType' });
    for (let i = 0; i < 10; i += 1) a.send({ messageType: 'accountGroups', requestId: `a${i}` });
    await a.takeMany(isType('accountGroups'), 10);
    for (let i = 0; i < 20; i += 1) b.send({ messageType: 'accountGroups', requestId: `b${i}` });
    const handled = await b.takeMany((f) => f['messageType'] === 'accountGroups' || f['messageType'] === 'error', 20);
    const limited = handled.filter((f) => f.json['code'] === 'MESSAGE_RATE_LIMITED');
    expect(limited.length).toBeGreaterThanOrEqual(10);
  });
});
