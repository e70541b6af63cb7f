/**
 * The strategy SDK against a real connector, nats-server and sandbox: prices start with the last value, the
 * lease is renewed by the SDK alone, stale and expired quotes are marked, unsubscribing releases the stream,
 * refusals and a missing connector are errors with a code and a next step.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { filter, firstValueFrom, take, toArray, type Observable } from 'rxjs';
import { GatewayClient, GatewayError, type PriceUpdate } from '#client';
import { eventually } from '#testing';
import type { PriceMessage } from '#contracts';
import {
  ACCOUNT,
  adminPost,
  nextPrice,
  startConnectorStack,
  type ConnectorStack,
} from '../connector/connector-stack.js';

describe('strategy SDK: prices and status', () => {
  let stack: ConnectorStack;
  let client: GatewayClient;
  let group: string;

  beforeAll(async () => {
    stack = await startConnectorStack();
    client = await GatewayClient.connect({ servers: stack.nats.url, account: ACCOUNT, requester: 'sdk-e2e' });
    group = stack.venue.seed.defaultGroupUuid;
  });
  afterAll(async () => {
    await client?.close();
    await stack?.stop();
  });

  const btc = () => ({ instrument: 'BTC.USD', quantity: '0.5', currency: 'BTC', tenor: 'T', accountGroup: group });

  it('emits live, tradable prices typed from the contract', async () => {
    const first = await firstValueFrom(client.prices.watch(btc()).pipe(filter((u) => !u.fromLastValue)));
    expect(first.price).toMatchObject({ v: 1, status: 'live', instrument: 'BTC.USD', accountGroup: group });
    expect(first).toMatchObject({ stale: false, stopped: false, expired: false, tradable: true });
    expect(typeof first.price.bid?.price).toBe('string');
    expect(first.subject).toBe(`gw.v1.price.${group}.BTC.USD.T.BTC.0_5`);
  });

  it('a late joiner starts with the last price (stale while the venue is silent), then gets live ones', async () => {
    const holding = client.prices.watch(btc());
    const holderLive = firstValueFrom(holding.pipe(filter((u) => u.price.status === 'live' && !u.fromLastValue)));
    const holder = holding.subscribe(); // a second feed of the same stream in this client: ending the first keeps it
    try {
      await holderLive; // the venue subscription is up before the venue goes silent
      // silent for 4 s: stale after PRICE_STALE_AFTER_MS (1 s), well before the connector's 5 s stall timeout
      await adminPost(stack.venue, 'faults/ws/stall', { durationMs: 4_000 });
      const subject = `gw.v1.price.${group}.BTC.USD.T.BTC.0_5`;
      await nextPrice(stack.strategy, subject, (p) => p.status === 'stale');
      const late = await GatewayClient.connect({ servers: stack.nats.url, account: ACCOUNT, requester: 'late' });
      try {
        const updates = late.prices.watch(btc());
        const firstUpdate = firstValueFrom(updates);
        const update = await firstUpdate;
        expect(update).toMatchObject({ fromLastValue: true, stale: true, tradable: false });
        const liveAgain = await firstValueFrom(updates.pipe(filter((u) => u.price.status === 'live')));
        expect(liveAgain).toMatchObject({ tradable: true, fromLastValue: false });
      } finally {
        await late.close();
      }
    } finally {
      await adminPost(stack.venue, 'faults/ws/resume', {});
      holder.unsubscribe();
    }
  });

  it('renews a short lease by itself: a stream only this client holds keeps streaming past the lease', async () => {
    const eth = { instrument: 'ETH.USD', quantity: '2', currency: 'ETH', tenor: 'T', accountGroup: group };
    const started = Date.now();
    const seen: PriceUpdate[] = [];
    const sub = client.prices.watch(eth, { leaseSeconds: 5 }).subscribe((u) => seen.push(u));
    let released: Promise<PriceMessage> | undefined;
    try {
      // 5 s lease, renewed every 2.5 s: still live well past 5 s, never stopped (released) meanwhile
      await eventually(() => seen.find((u) => u.receivedAt > started + 8_000 && u.price.status === 'live'), {
        what: 'a live price after 8 s',
        timeoutMs: 20_000,
      });
      expect(seen.filter((u) => u.stopped)).toEqual([]);
      // listening for the stream's end before the release, so the `stopped` it causes cannot pass unseen
      released = nextPrice(stack.strategy, seen[0]?.subject ?? '', (p) => p.status === 'stopped');
      await stack.strategy.flush();
    } finally {
      sub.unsubscribe();
    }
    // unsubscribing released the only lease: the connector ends the stream
    expect((await released)?.code).toBe('RELEASED');
  });

  it('two watches of one stream: the first leaving while the second is being granted leaves the stream leased', async () => {
    const eth = { instrument: 'ETH.USD', quantity: '3', currency: 'ETH', tenor: 'T', accountGroup: group };
    const first: PriceUpdate[] = [];
    const leaving = client.prices.watch(eth).subscribe((u) => first.push(u));
    const subject = (await eventually(() => first.find((u) => u.price.status === 'live'), { what: 'a live price' }))
      .subject;
    const published: PriceMessage[] = [];
    const spy = stack.strategy.subscribe(subject, {
      callback: (_error, message) => void published.push(message.json<PriceMessage>()),
    });
    await stack.strategy.flush();
    const second: PriceUpdate[] = [];
    const staying = client.prices.watch(eth).subscribe((u) => second.push(u));
    leaving.unsubscribe(); // the second's subscribe is on its way: its lease is the one the first would release
    let released: Promise<PriceMessage> | undefined;
    try {
      await eventually(() => (second.filter((u) => u.price.status === 'live').length >= 3 ? true : undefined), {
        what: 'live prices at the second watch',
      });
      expect(published.filter((p) => p.status === 'stopped')).toEqual([]);
      released = nextPrice(stack.strategy, subject, (p) => p.status === 'stopped');
      await stack.strategy.flush();
    } finally {
      staying.unsubscribe();
      spy.unsubscribe();
    }
    expect((await released)?.code).toBe('RELEASED'); // released once the last watch left
  });

  it('marks a quote expired when its life ends without a newer one', async () => {
    // a clock 2 s before the quotes' ten-minute life ends; the venue goes silent so no newer quote comes
    const skewed = await GatewayClient.connect({
      servers: stack.nats.url,
      account: ACCOUNT,
      requester: 'expiry',
      now: () => Date.now() + 600_000 - 2_000,
    });
    try {
      const updates = skewed.prices.watch(btc());
      const expired = firstValueFrom(updates.pipe(filter((u) => u.expired)));
      await firstValueFrom(updates.pipe(filter((u) => u.price.status === 'live')));
      await adminPost(stack.venue, 'faults/ws/stall', { durationMs: 4_000 });
      const update = await expired;
      expect(update).toMatchObject({ expired: true, tradable: false });
    } finally {
      await adminPost(stack.venue, 'faults/ws/resume', {});
      await skewed.close();
    }
  });

  it("a venue refusal is the Observable's error, with the venue's code", async () => {
    const refused = client.prices.watch({ ...btc(), instrument: 'NOPE.USD' });
    const error = await firstValueFrom(refused).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(GatewayError);
    expect((error as GatewayError).code).toMatch(/^[A-Z]{3}\d{6}$|^INVALID_REQUEST$/);
  });

  it('no connector for the account: NO_RESPONDER with the next step', async () => {
    const other = await GatewayClient.connect({ servers: stack.nats.url, account: 'nobody' });
    try {
      const error = (await firstValueFrom(other.prices.watch(btc())).catch((e: unknown) => e)) as GatewayError;
      expect(error.code).toBe('NO_RESPONDER');
      expect(error.nextStep).toContain('npm start');
    } finally {
      await other.close();
    }
  });

  it('a connector that stops answering the renewals (killed: no `stopped`) turns the last live price stale', async () => {
    // a stand-in connector for another account: grants a subject, a live price arrives on it, then it vanishes
    const account = 'vanishing';
    const subject = 'gw.v1.price.vanishing.BTC.USD.T.BTC.0_5';
    const responder = stack.strategy.subscribe(`gw.v1.${account}.stream.subscribe`, {
      callback: (_error, message) => {
        message.respond(JSON.stringify({ ok: true, subject, leaseExpiresAt: Date.now() + 5_000 }));
      },
    });
    const other = await GatewayClient.connect({ servers: stack.nats.url, account, requester: 'sdk-vanish' });
    try {
      const live = (await firstValueFrom(client.prices.watch(btc()).pipe(filter((u) => u.tradable)))).price;
      const seen: PriceUpdate[] = [];
      const watching = other.prices.watch(btc(), { leaseSeconds: 5 }).subscribe((u) => seen.push(u));
      await eventually(() => {
        stack.strategy.publish(subject, JSON.stringify(live));
        return seen.some((u) => u.tradable) ? true : undefined;
      });
      responder.unsubscribe(); // the next renewal (every 2.5 s) finds no connector
      const stale = await eventually(() => seen.find((u) => u.stale), { what: 'a stale repeat', timeoutMs: 10_000 });
      expect(stale).toMatchObject({ stale: true, tradable: false, price: { quoteId: live.quoteId } });
      watching.unsubscribe();
    } finally {
      responder.unsubscribe();
      await other.close();
    }
  });

  it('a hung connector (answers nothing, says nothing): the last live price turns stale after silentStaleMs', async () => {
    // outside testers: a SIGSTOPped connector left the last price tradable ~30 s (the renewal's lease and timeout)
    const account = 'hung';
    const subject = 'gw.v1.price.hung.BTC.USD.T.BTC.0_5';
    let answering = true;
    const responder = stack.strategy.subscribe(`gw.v1.${account}.stream.subscribe`, {
      callback: (_error, message) => {
        // hung after the grant: still subscribed (so no "no responders"), never answering again
        if (answering) message.respond(JSON.stringify({ ok: true, subject, leaseExpiresAt: Date.now() + 60_000 }));
        answering = false;
      },
    });
    const other = await GatewayClient.connect({ servers: stack.nats.url, account, requester: 'sdk-hung' });
    let beating: ReturnType<typeof setInterval> | undefined;
    try {
      const live = (await firstValueFrom(client.prices.watch(btc()).pipe(filter((u) => u.tradable)))).price;
      const seen: PriceUpdate[] = [];
      const watching = other.prices.watch(btc(), { silentStaleMs: 1_500 }).subscribe((u) => seen.push(u));
      await eventually(() => {
        stack.strategy.publish(subject, JSON.stringify(live));
        return seen.some((u) => u.tradable) ? true : undefined;
      });
      // the stream is quiet but the connector's status is heard: its own rule decides, the price stays live
      beating = setInterval(() => stack.strategy.publish(`gw.v1.${account}.connector.status`, '{}'), 300);
      await new Promise((resolve) => setTimeout(resolve, 2_500));
      expect(seen.some((u) => u.stale)).toBe(false);
      // then nothing at all is heard: stale, well before the lease's renewal (15 s) would have found out
      clearInterval(beating);
      const stale = await eventually(() => seen.find((u) => u.stale), { what: 'a stale repeat', timeoutMs: 5_000 });
      expect(stale).toMatchObject({ stale: true, tradable: false, price: { quoteId: live.quoteId } });
      // a live price heard again is live again
      stack.strategy.publish(subject, JSON.stringify(live));
      await eventually(() => (seen.at(-1)?.tradable ? true : undefined), { what: 'live again' });
      watching.unsubscribe();
      expect(() => other.prices.watch(btc(), { silentStaleMs: 10 })).toThrow(/silentStaleMs/);
    } finally {
      clearInterval(beating);
      responder.unsubscribe();
      await other.close();
    }
  });

  it('a renewal that failed is asked again within seconds, not at the next half lease (outside tester)', async () => {
    const account = 'comeback';
    const subject = 'gw.v1.price.comeback.BTC.USD.T.BTC.0_5';
    const asked: number[] = [];
    const answer = (_error: unknown, message: { respond(data: string): boolean }) => {
      asked.push(Date.now());
      message.respond(JSON.stringify({ ok: true, subject, leaseExpiresAt: Date.now() + 10_000 }));
    };
    let responder = stack.strategy.subscribe(`gw.v1.${account}.stream.subscribe`, { callback: answer });
    const other = await GatewayClient.connect({ servers: stack.nats.url, account, requester: 'sdk-comeback' });
    try {
      const watching = other.prices.watch(btc(), { leaseSeconds: 10 }).subscribe(() => undefined);
      await eventually(() => (asked.length === 1 ? true : undefined), { what: 'the grant' });
      responder.unsubscribe(); // the renewal at 5 s finds no connector
      await new Promise((resolve) => setTimeout(resolve, 6_000));
      responder = stack.strategy.subscribe(`gw.v1.${account}.stream.subscribe`, { callback: answer });
      const back = Date.now();
      // the next renewal at the half-lease tick would be at 10 s; the retry comes within its 2 s
      await eventually(() => (asked.length === 2 ? true : undefined), {
        what: 'a renewal asked again',
        timeoutMs: 3_500,
      });
      expect((asked[1] ?? 0) - back).toBeLessThan(3_000);
      watching.unsubscribe();
    } finally {
      responder.unsubscribe();
      await other.close();
    }
  }, 20_000);

  it('unreachable NATS: NATS_UNREACHABLE', async () => {
    const error = (await GatewayClient.connect({ servers: 'nats://127.0.0.1:1', account: ACCOUNT }).catch(
      (e: unknown) => e,
    )) as GatewayError;
    expect(error.code).toBe('NATS_UNREACHABLE');
  });

  it('connector status: the stored one first, then updates', async () => {
    const statuses = await firstValueFrom((client.connectorStatus() as Observable<unknown>).pipe(take(2), toArray()));
    expect(statuses).toEqual([
      expect.objectContaining({ account: ACCOUNT, sessionState: 'open' }),
      expect.objectContaining({ account: ACCOUNT }),
    ]);
    expect(await client.accountGroups.natural()).toMatchObject({ uuid: group, natural: true });
  });

  it('close() completes open price Observables', async () => {
    const closing = await GatewayClient.connect({ servers: stack.nats.url, account: ACCOUNT });
    const done = new Promise<string>((resolve) =>
      closing.prices.watch(btc()).subscribe({ complete: () => resolve('complete'), error: () => resolve('error') }),
    );
    await closing.close();
    expect(await done).toBe('complete');
  });
});
