import { describe, expect, it } from '@jest/globals';
import type { PriceUpdate } from '#venue-api';
import {
  newPriceStream,
  priceStreamTransition,
  type PriceStreamEffect,
  type PriceStreamEnv,
  type PriceStreamEvent,
  type PriceStreamState,
} from './price-stream-machine.js';

const id = {
  key: 'g-1|BTC.USD|T|BTC|0_5',
  tag: 'gabc-1',
  accountGroup: 'g-1',
  instrument: 'BTC.USD',
  tenor: 'T',
  currency: 'BTC',
  quantity: '0.5',
};

/** Feeds events at the given times (connection open unless said); returns the last state and all effects. */
function run(
  events: ReadonlyArray<[number, PriceStreamEvent, Partial<PriceStreamEnv>?]>,
  from: PriceStreamState = newPriceStream(id, 0),
) {
  let state = from;
  const effects: PriceStreamEffect[] = [];
  for (const [now, event, env] of events) {
    const next = priceStreamTransition(state, event, {
      now,
      isOpen: true,
      staleAfterMs: 1_000,
      subscribeTimeoutMs: 500,
      maxAheadMs: 60_000,
      ...env,
    });
    state = next.state;
    effects.push(...next.effects);
  }
  return { state, effects };
}

const kinds = (effects: PriceStreamEffect[]) =>
  effects.map((e) =>
    e.type === 'publish' ? `publish:${e.price.status}` : e.type === 'answer' ? `answer:${e.ok}` : e.type,
  );
const acquire = (requester: string, leaseExpiresAt = 60_000): PriceStreamEvent => ({
  type: 'acquire',
  requester,
  leaseExpiresAt,
  waits: true,
});
const ack = (success: boolean, code = '', subscriptionId: string | undefined = 'sub-1'): PriceStreamEvent => ({
  type: 'ack',
  success,
  code,
  subscriptionId,
  message: success ? 'Subscribed' : 'refused',
});
const price = (timestamp: number): PriceStreamEvent => ({
  type: 'price',
  update: {
    messageType: 'pricestream',
    chanId: 'c',
    timestamp,
    instrument: 'BTC.USD',
    quoteId: `q-${timestamp}`,
    tenor: 'T',
    tag: id.tag,
    bid: { price: '64000.1', quantity: '0.5', quoteAmount: '32000.05' },
    offer: { price: '64001.1', quantity: '0.5', quoteAmount: '32000.55' },
  } as PriceUpdate,
});

/** A stream held, then re-subscribed after a reconnect (its subscribe frame sent, no answer yet). */
const resubscribing: Array<[number, PriceStreamEvent]> = [
  [0, acquire('a')],
  [5, ack(true, '', 'sub-held')],
  [10, { type: 'connectionDown' }],
  [20, { type: 'connectionUp' }],
  [21, { type: 'subscribeSent', attempt: 3, sent: true }],
];

describe('price stream transition', () => {
  it('requested → subscribing → held on the ack (waiters answered) → live on prices, in venue-time order', () => {
    const { state, effects } = run([
      [0, acquire('a')],
      [1, { type: 'subscribeSent', attempt: 1, sent: true }],
      [5, ack(true)],
      [10, price(100)],
      [11, price(90)],
      [12, price(110)],
    ]);
    expect(kinds(effects)).toEqual(['subscribe', 'answer:true', 'publish:live', 'outOfOrder', 'publish:live']);
    expect(state).toMatchObject({ venue: 'held', subscriptionId: 'sub-1', status: 'live', lastTimestamp: 110 });
    const live = effects.flatMap((e) => (e.type === 'publish' ? [e.price] : []));
    expect(live[0]).toMatchObject({ quoteId: 'q-100', venueTimestamp: 100, quoteExpiresAt: 600_100 });
    expect(live[0]?.bid?.price).toBe('64000.1');
  });

  it("a new subscription's prices are ordered among themselves: a venue clock stepped back does not hold them", () => {
    const before = [
      [0, acquire('a')],
      [1, { type: 'subscribeSent', attempt: 1, sent: true }],
      [5, ack(true)],
      [10, price(40_000)],
      [20, { type: 'connectionDown' }],
      [30, { type: 'connectionUp' }],
      [31, { type: 'subscribeSent', attempt: 3, sent: true }],
    ] as Array<[number, PriceStreamEvent]>;
    // the venue dropped the subscription with the connection: a fresh ack, a new subscription
    const renewed = run([...before, [40, ack(true, '', 'sub-2')], [50, price(39_500)]]);
    expect(kinds(renewed.effects).slice(-1)).toEqual(['publish:live']);
    expect(renewed.state).toMatchObject({ subscriptionId: 'sub-2', lastTimestamp: 39_500 });
    // the venue kept it (RFS100017): the same subscription, its order stands
    const kept = run([...before, [40, ack(false, 'RFS100017', undefined)], [50, price(39_500)]]);
    expect(kinds(kept.effects).slice(-1)).toEqual(['outOfOrder']);
    expect(kept.state).toMatchObject({ subscriptionId: 'sub-1', lastTimestamp: 40_000 });
  });

  it('within one subscription: frames crossing are dropped; a step back beyond a stale period is the clock, taken', () => {
    const sameInstant: PriceStreamEvent = {
      type: 'price',
      update: { ...(price(50_000) as { update: PriceUpdate }).update, quoteId: 'q-other' },
    };
    const { state, effects } = run([
      [0, acquire('a')],
      [1, { type: 'subscribeSent', attempt: 1, sent: true }],
      [5, ack(true)],
      [10, price(50_000)],
      [11, price(50_000)], // the same update again
      [12, sameInstant], // another quote of the same instant: the later arrival
      [13, price(49_500)], // crossing frames, half a second apart: dropped
      [14, price(2_000)], // 48 s back: the venue's clock stepped back
      [15, price(2_250)],
    ]);
    expect(kinds(effects).slice(2)).toEqual([
      'publish:live',
      'outOfOrder',
      'publish:live',
      'outOfOrder',
      'clockStepBack',
      'publish:live',
      'publish:live',
    ]);
    expect(effects.find((e) => e.type === 'clockStepBack')).toEqual({ type: 'clockStepBack', stepMs: 48_000 });
    expect(state).toMatchObject({ status: 'live', lastTimestamp: 2_250 });
  });

  it('a price stamped further ahead of the clock than allowed is refused; the stream goes on with genuine prices', () => {
    const { state, effects } = run([
      [0, acquire('a')],
      [1, { type: 'subscribeSent', attempt: 1, sent: true }],
      [5, ack(true)],
      [10, price(100)],
      [11, price(11 + 60_001)],
      [12, price(11 + 60_000)],
      [13, price(200)],
    ]);
    expect(kinds(effects)).toEqual([
      'subscribe',
      'answer:true',
      'publish:live',
      'aheadOfClock',
      'publish:live',
      // a minute behind the newest: not frames crossing but the venue's clock back in place — taken
      'clockStepBack',
      'publish:live',
    ]);
    expect(state).toMatchObject({ status: 'live', lastTimestamp: 200 });
    const fresh = run([
      [0, acquire('a')],
      [1, { type: 'subscribeSent', attempt: 1, sent: true }],
      [5, ack(true)],
      [10, price(1e12)],
      [11, price(12)],
    ]);
    expect(kinds(fresh.effects)).toEqual(['subscribe', 'answer:true', 'aheadOfClock', 'publish:live']);
  });

  it("a quote already past its life by this host's clock on arrival (the venue's clock lags) is published stale, never live (t3 F3)", () => {
    const LIFE = 600_000;
    const now = 2_000_000;
    const { state, effects } = run([
      [0, acquire('a')],
      [1, { type: 'subscribeSent', attempt: 1, sent: true }],
      [5, ack(true)],
      [now, price(now - LIFE + 1)], // 1 ms of life left: live
      [now + 100, price(now + 100 - LIFE)], // expires the instant it arrives: stale
      [now + 200, price(now + 200 - LIFE - 60_000)], // a minute past its life
      [now + 300, price(now + 300 - 1_000)], // the venue's clock back: live again
    ]);
    expect(kinds(effects).slice(2)).toEqual([
      'publish:live',
      'staleChanged',
      'publish:stale',
      'expiredOnArrival',
      'clockStepBack',
      'publish:stale',
      'expiredOnArrival',
      'staleChanged',
      'publish:live',
    ]);
    const published = effects.flatMap((e) => (e.type === 'publish' ? [e.price] : []));
    expect(published[1]).toMatchObject({
      status: 'stale',
      code: 'QUOTE_EXPIRED_ON_ARRIVAL',
      quoteId: `q-${now + 100 - LIFE}`,
      quoteExpiresAt: now + 100,
      message: expect.stringContaining("the venue's clock is behind"),
    });
    expect(effects.filter((e) => e.type === 'expiredOnArrival')).toEqual([
      { type: 'expiredOnArrival', lagMs: LIFE },
      { type: 'expiredOnArrival', lagMs: LIFE + 60_000 },
    ]);
    expect(effects.filter((e) => e.type === 'staleChanged')).toEqual([
      { type: 'staleChanged', delta: 1 },
      { type: 'staleChanged', delta: -1 },
    ]);
    expect(published[3]).not.toHaveProperty('code');
    expect(state).toMatchObject({ status: 'live', lastTimestamp: now + 300 - 1_000 });
  });

  it('waits for a connection before subscribing', () => {
    const { state, effects } = run([
      [0, acquire('a'), { isOpen: false }],
      [5, { type: 'connectionUp' }],
    ]);
    expect(kinds(effects)).toEqual(['subscribe']);
    expect(state.venue).toBe('subscribing');
  });

  it('turns stale when silent, live again on the next price', () => {
    const { state, effects } = run([
      [0, acquire('a')],
      [5, ack(true)],
      [10, price(100)],
      [500, { type: 'sweep' }],
      [1_200, { type: 'sweep' }],
      [1_300, price(200)],
    ]);
    expect(kinds(effects)).toEqual([
      'subscribe',
      'answer:true',
      'publish:live',
      'staleChanged',
      'publish:stale',
      'staleChanged',
      'publish:live',
    ]);
    expect(state.status).toBe('live');
  });

  it('keeps the subscription id across a reconnect; "already held" adopts it; a release unsubscribes it (symptom 5)', () => {
    const { state, effects } = run([
      [0, acquire('a')],
      [5, ack(true, '', 'sub-held')],
      [10, { type: 'connectionDown' }],
      [20, { type: 'connectionUp' }],
      [25, ack(false, 'RFS100017', 'names-nothing')],
      [30, price(300)],
      [40, { type: 'release', requester: 'a' }],
    ]);
    expect(kinds(effects)).toEqual([
      'subscribe',
      'answer:true',
      'subscribe',
      'publish:live',
      'unsubscribe',
      'publish:stopped',
      'removed',
    ]);
    expect(effects.find((e) => e.type === 'unsubscribe')).toEqual({ type: 'unsubscribe', subscriptionId: 'sub-held' });
    expect(state.venue).toBe('stopped');
  });

  it('a fresh ack after a reconnect replaces the id (the venue dropped the old subscription)', () => {
    const { state } = run([
      [0, acquire('a')],
      [5, ack(true, '', 'sub-old')],
      [10, { type: 'connectionDown' }],
      [20, { type: 'connectionUp' }],
      [25, ack(true, '', 'sub-new')],
    ]);
    expect(state.subscriptionId).toBe('sub-new');
  });

  it('a refused subscribe answers the waiters with the code and stops the stream', () => {
    const { effects } = run([
      [0, acquire('a')],
      [5, ack(false, 'RFS100011')],
    ]);
    expect(kinds(effects)).toEqual(['subscribe', 'subscribeRefused', 'answer:false', 'publish:stopped', 'removed']);
    const answer = effects.find((e) => e.type === 'answer');
    expect(answer).toMatchObject({ ok: false, code: 'RFS100011' });
  });

  it('a re-subscribe after a reconnect refused by a service-side failure (RFS100013) is asked again, not stopped', () => {
    const { state, effects } = run([
      ...resubscribing,
      [25, ack(false, 'RFS100013')],
      [600, { type: 'sweep' }],
      [610, ack(true, '', 'sub-again')],
    ]);
    expect(kinds(effects)).toEqual(['subscribe', 'answer:true', 'subscribe', 'subscribeRefused', 'subscribe']);
    expect(state).toMatchObject({ venue: 'held', subscriptionId: 'sub-again' });
  });

  it.each(['MESSAGE_RATE_LIMITED', 'SOME_CODE_THE_SPEC_DOES_NOT_NAME'])(
    'a re-subscribe of a held stream refused with %s (not a refusal of the request itself) is asked again',
    (code) => {
      const { state, effects } = run([...resubscribing, [25, ack(false, code)], [600, { type: 'sweep' }]]);
      expect(kinds(effects)).toEqual(['subscribe', 'answer:true', 'subscribe', 'subscribeRefused', 'subscribe']);
      expect(state.venue).toBe('subscribing');
    },
  );

  it('a re-subscribe of a held stream refused "no price" (RFS100011: it had prices a moment ago) is asked again', () => {
    const { state, effects } = run([...resubscribing, [25, ack(false, 'RFS100011')], [600, { type: 'sweep' }]]);
    expect(kinds(effects)).toEqual(['subscribe', 'answer:true', 'subscribe', 'subscribeRefused', 'subscribe']);
    expect(state.venue).toBe('subscribing');
  });

  it('a re-subscribe of a held stream refused for the request itself (a disabled pair, PRE200035) stops it', () => {
    const { effects } = run([...resubscribing, [25, ack(false, 'PRE200035')]]);
    expect(kinds(effects)).toContain('publish:stopped');
  });

  it('asks again when a subscribe is never acknowledged', () => {
    const { state, effects } = run([
      [0, acquire('a')],
      [1, { type: 'subscribeSent', attempt: 1, sent: true }],
      [600, { type: 'sweep' }],
    ]);
    expect(kinds(effects)).toEqual(['subscribe', 'subscribe']);
    expect(state.attempt).toBe(2);
  });

  it('ignores a late send report of an older attempt', () => {
    const { state } = run([
      [0, acquire('a')],
      [5, { type: 'connectionDown' }],
      [6, { type: 'subscribeSent', attempt: 1, sent: true }],
    ]);
    expect(state).toMatchObject({ venue: 'pending', subscribeSentAt: undefined });
  });

  it('ends when every lease has expired, unsubscribing at the venue', () => {
    const { effects } = run([
      [0, acquire('a', 1_000)],
      [5, ack(true)],
      [10, price(100)],
      [1_001, { type: 'sweep' }],
    ]);
    expect(kinds(effects).slice(-3)).toEqual(['unsubscribe', 'publish:stopped', 'removed']);
  });

  it('a streamStop from the venue ends it without an unsubscribe; nothing happens after', () => {
    const { effects } = run([
      [0, acquire('a')],
      [5, ack(true)],
      [10, { type: 'streamStop', code: 'INSTRUMENT_HALTED', message: 'halted' }],
      [20, price(200)],
    ]);
    expect(kinds(effects)).toEqual(['subscribe', 'answer:true', 'publish:stopped', 'removed']);
    const stopped = effects.find((e) => e.type === 'publish');
    expect(stopped).toMatchObject({ price: { status: 'stopped', code: 'INSTRUMENT_HALTED' } });
  });

  it('a second requester shares the stream; the stream lives while one lease remains', () => {
    const { state, effects } = run([
      [0, acquire('a')],
      [1, acquire('b')],
      [5, ack(true)],
      [6, { type: 'release', requester: 'a' }],
    ]);
    expect(kinds(effects)).toEqual(['subscribe', 'answer:true']);
    expect([...state.leases.keys()]).toEqual(['b']);
  });
});
