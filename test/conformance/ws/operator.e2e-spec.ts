/**
 * Operator controls of the trading half over the admin HTTP API: moving the market, halting, and the
 * socket faults (drop, stall with a duration). Order faults are exercised in orders.e2e-spec.ts.
 */
import { describe, it, expect, beforeAll, afterAll } from '@jest/globals';
import { Decimal } from 'decimal.js';
import { startWsVenue, subscribeRequest, type WsVenue } from './ws-harness.js';
import { isType, stringField } from './ws-test-client.js';

let v: WsVenue;

beforeAll(async () => {
  v = await startWsVenue();
});
afterAll(async () => {
  await v.close();
});

async function getJson(path: string): Promise<unknown> {
  const res = await fetch(`${v.venue.adminUrl}${path}`);
  expect(res.status).toBe(200);
  return res.json();
}

describe('market controls', () => {
  it('lists every streaming instrument with mid, offer, bid and halt state', async () => {
    const list = (await getJson('/market')) as Array<Record<string, unknown>>;
    expect(list.map((i) => i['instrument'])).toEqual(
      expect.arrayContaining(['BTC.USD', 'ETH.USD', 'EUR.USD', 'GBP.USD', 'USD.JPY', 'SHIB.USD']),
    );
    for (const i of list) expect(new Decimal(String(i['offer'])).gt(String(i['bid']))).toBe(true);
  });

  it('a jump moves the streamed prices by the percentage', async () => {
    await v.admin('/market/USD.JPY/mid', { mid: '150' });
    const c = await v.connect();
    c.send(subscribeRequest(v.venue, { instrument: 'USD.JPY', currency: 'USD', quantity: '1000', tag: 'jpy' }));
    await c.take(isType('subscribe', { tag: 'jpy' }));
    const before = await c.take(isType('pricestream', { tag: 'jpy' }));
    expect(new Decimal(stringField(before, ['offer', 'price'])).lt(155)).toBe(true);
    const jumped = await v.admin('/market/USD.JPY/jump', { percent: '10' });
    expect(jumped.status).toBe(200);
    const mid = new Decimal(String((jumped.json as Record<string, unknown>)['mid']));
    expect(mid.minus(165).abs().lt('0.5')).toBe(true);
    // The walk moves a little between ticks; updates after the jump sit near 165, far from the old 150.
    const after = await c.take(
      (f) =>
        f['messageType'] === 'pricestream' &&
        f['tag'] === 'jpy' &&
        new Decimal(String((f['bid'] as Record<string, unknown>)['price'])).gt(160),
    );
    expect(new Decimal(stringField(after, ['offer', 'price'])).lt(170)).toBe(true);
  });

  it('refuses bad operator input with 400 and unknown instruments with 404', async () => {
    expect((await v.admin('/market/BTC.USD/mid', { mid: 'lots' })).status).toBe(400);
    expect((await v.admin('/market/BTC.USD/mid', { mid: '-1' })).status).toBe(404);
    expect((await v.admin('/market/BTC.USD/jump', { percent: '-100' })).status).toBe(404);
    expect((await v.admin('/market/XXX.YYY/halt')).status).toBe(404);
    expect((await v.admin('/faults/ws/order-delay', { ms: 'soon' })).status).toBe(400);
    expect((await v.admin('/faults/ws/reject-quotes', { code: 'bad code!' })).status).toBe(400);
  });
});

describe('socket faults', () => {
  it('drop: every socket vanishes without a close frame (1006)', async () => {
    const a = await v.connect();
    const b = await v.connect({ rawSessionId: 'drop-b' });
    const res = await v.admin('/faults/ws/drop');
    expect((res.json as Record<string, unknown>)['dropped']).toBeGreaterThanOrEqual(2);
    expect((await a.closed).code).toBe(1006);
    expect((await b.closed).code).toBe(1006);
  });

  it('drop by sessionId leaves the other connections alone', async () => {
    const target = await v.connect({ rawSessionId: 'drop-me' });
    const bystander = await v.connect({ rawSessionId: 'keep-me' });
    expect((await v.admin('/faults/ws/drop', { sessionId: 'drop-me' })).json).toMatchObject({ dropped: 1 });
    expect((await target.closed).code).toBe(1006);
    expect((await bystander.barrier()).json['success']).toBe(true);
  });

  it('stall for a duration: silent, then frames flow again by themselves', async () => {
    const c = await v.connect({ rawSessionId: 'stall-timed' });
    c.send(subscribeRequest(v.venue, { quantity: '0.5', tag: 'st' }));
    await c.take(isType('pricestream', { tag: 'st' }));
    expect((await v.admin('/faults/ws/stall', { sessionId: 'stall-timed', durationMs: 200 })).status).toBe(200);
    c.send({ messageType: 'accountGroups', requestId: 'after-stall' });
    expect((await c.take(isType('accountGroups', { requestId: 'after-stall' }))).json['success']).toBe(true);
    await c.take(isType('pricestream', { tag: 'st' }));
    const state = (await getJson('/faults/ws')) as Record<string, unknown>;
    expect(typeof state['connections']).toBe('number');
  });
});
