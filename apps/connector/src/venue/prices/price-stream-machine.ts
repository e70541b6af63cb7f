/**
 * One price stream — a venue subscription shared by every requester of the same (group, pair, tenor,
 * currency, size) — as a pure transition function run by the libs/actors runtime (price-stream-registry.ts
 * is its shell). No I/O, no clock reads, no timers: time comes in `env.now`, the registry's one sweep timer
 * comes in as `sweep` events, and what must happen outside comes out as effects.
 *
 * Venue side (`venue`): pending (nothing sent: no connection) → subscribing (sent, no ack) → held (the venue
 * acked, or said it already holds it: RFS100017) → … ; `stopped` is final.
 * Published side (`status`): none (no price yet) → live ⇄ stale; `stopped` published once at the end.
 *
 * The venue's subscription id is kept across reconnects: a venue that holds subscriptions across a reconnect
 * of the same sessionId answers the re-subscribe with RFS100017 and keeps streaming under the old id and tag,
 * and a release must still unsubscribe that id (issue 7, symptom 5). The tag never changes for a stream
 * (price-stream-registry.ts derives it from the stream's key), so prices under it always find the stream.
 */
import { QUOTE_EXPIRED_ON_ARRIVAL, type PriceMessage } from '#contracts';
import { DEFINITIVE_SUBSCRIBE_REFUSALS, VenueCode, type PriceUpdate } from '#venue-api';

/** §2.2 rule 4: a quote expires ten minutes after issue. */
export const QUOTE_LIFETIME_MS = 10 * 60 * 1000;
/** §7.1: the venue already holds this subscription; it counts as held. */
export const ALREADY_HELD = VenueCode.SubscriptionAlreadyHeld;

export interface StreamIdentity {
  readonly key: string;
  readonly tag: string;
  readonly accountGroup: string;
  readonly instrument: string;
  readonly tenor: string;
  readonly currency: string;
  /** As first requested. */
  readonly quantity: string;
}

export type VenueHold = 'pending' | 'subscribing' | 'held' | 'stopped';
export type PublishedStatus = 'none' | 'live' | 'stale';

export interface PriceStreamState {
  readonly id: StreamIdentity;
  readonly venue: VenueHold;
  /** The venue's id of our subscription, kept across reconnects until the venue says it is gone. */
  readonly subscriptionId: string | undefined;
  /** Bumped on every subscribe and connection loss: a late limiter grant of an older attempt is void. */
  readonly attempt: number;
  /** When the pending subscribe left; an unanswered one is sent again (the venue may drop a frame, W14). */
  readonly subscribeSentAt: number | undefined;
  readonly status: PublishedStatus;
  /** Venue timestamp of the newest accepted update (§2.2: order by it, not by arrival). */
  readonly lastTimestamp: number;
  /** Local time of the newest accepted update (or of the ack, before the first one). */
  readonly lastUpdateAt: number;
  readonly last: PriceMessage | undefined;
  /** requester → lease expiry (epoch ms). */
  readonly leases: ReadonlyMap<string, number>;
  /** Requesters waiting for the venue's answer (their promises live in the registry). */
  readonly waiting: number;
}

export interface PriceStreamEnv {
  readonly now: number;
  readonly isOpen: boolean;
  readonly staleAfterMs: number;
  readonly subscribeTimeoutMs: number;
  /** A price stamped further ahead of the local clock than this is refused (it would freeze the stream). */
  readonly maxAheadMs: number;
}

export type PriceStreamEvent =
  | { readonly type: 'acquire'; readonly requester: string; readonly leaseExpiresAt: number; readonly waits: boolean }
  | { readonly type: 'waiterGone'; readonly requester: string }
  | { readonly type: 'release'; readonly requester: string }
  | { readonly type: 'subscribeSent'; readonly attempt: number; readonly sent: boolean }
  | {
      readonly type: 'ack';
      readonly success: boolean;
      readonly code: string;
      readonly subscriptionId: string | undefined;
      readonly message: string;
    }
  /** The venue granted this key's subscription under an older tag of ours: the id is this stream's if it has none. */
  | { readonly type: 'adopt'; readonly subscriptionId: string }
  | { readonly type: 'price'; readonly update: PriceUpdate }
  | { readonly type: 'streamStop'; readonly code: string; readonly message: string }
  | { readonly type: 'connectionDown' }
  | { readonly type: 'connectionUp' }
  | { readonly type: 'sweep' }
  | { readonly type: 'shutdown' };

export type PriceStreamEffect =
  | { readonly type: 'subscribe'; readonly attempt: number }
  | { readonly type: 'unsubscribe'; readonly subscriptionId: string }
  | { readonly type: 'publish'; readonly price: PriceMessage }
  /** Settles every requester waiting for the venue's answer. */
  | { readonly type: 'answer'; readonly ok: true }
  | { readonly type: 'answer'; readonly ok: false; readonly code: string; readonly message: string }
  | { readonly type: 'staleChanged'; readonly delta: 1 | -1 }
  | { readonly type: 'subscribeRefused'; readonly code: string }
  /** An update not newer than the newest accepted one: dropped (counted by the registry). */
  | { readonly type: 'outOfOrder' }
  /** An update older than the newest by more than a stale period: the venue's clock stepped back; taken. */
  | { readonly type: 'clockStepBack'; readonly stepMs: number }
  /** A price stamped implausibly far ahead of the local clock: refused, the stream's order untouched. */
  | { readonly type: 'aheadOfClock' }
  /** A price already past its quote's life by the local clock on arrival (the venue's clock lags): published stale. */
  | { readonly type: 'expiredOnArrival'; readonly lagMs: number }
  /** The stream is over: the registry forgets it. */
  | { readonly type: 'removed' };

type Step = { readonly state: PriceStreamState; readonly effects: readonly PriceStreamEffect[] };

const NONE: readonly PriceStreamEffect[] = [];
const stay = (state: PriceStreamState): Step => ({ state, effects: NONE });

export function newPriceStream(id: StreamIdentity, now: number): PriceStreamState {
  return {
    id,
    venue: 'pending',
    subscriptionId: undefined,
    attempt: 0,
    subscribeSentAt: undefined,
    status: 'none',
    lastTimestamp: Number.NEGATIVE_INFINITY,
    lastUpdateAt: now,
    last: undefined,
    leases: new Map(),
    waiting: 0,
  };
}

export function priceStreamTransition(state: PriceStreamState, event: PriceStreamEvent, env: PriceStreamEnv): Step {
  if (state.venue === 'stopped') return stay(state);
  switch (event.type) {
    case 'price':
      return onPrice(state, event.update, env);
    case 'acquire':
      return onAcquire(state, event, env);
    case 'waiterGone':
      return dropInterest(evolve(state, { waiting: Math.max(0, state.waiting - 1) }), event.requester);
    case 'release':
      return dropInterest(state, event.requester);
    case 'subscribeSent':
      if (event.attempt !== state.attempt || state.venue !== 'subscribing') return stay(state);
      return event.sent
        ? stay(evolve(state, { subscribeSentAt: env.now }))
        : stay(evolve(state, { venue: 'pending', subscribeSentAt: undefined }));
    case 'ack':
      return onAck(state, event, env);
    case 'adopt':
      return state.subscriptionId === undefined
        ? stay(evolve(state, { subscriptionId: event.subscriptionId }))
        : stay(state);
    case 'streamStop':
      return stop(state, event.code || 'STREAM_STOPPED', event.message || 'the venue stopped the stream', false);
    case 'connectionDown':
      // The subscription id is kept: a venue that holds subscriptions across a reconnect still knows it.
      return stay(evolve(state, { venue: 'pending', subscribeSentAt: undefined, attempt: state.attempt + 1 }));
    case 'connectionUp':
      return state.venue === 'held' ? stay(state) : subscribe(state, env, NONE);
    case 'sweep':
      return onSweep(state, env);
    case 'shutdown':
      return stop(state, 'SHUTDOWN', 'connector stopping', false);
  }
}

/** Hot path: one allocation for the state, one for the message. */
function onPrice(state: PriceStreamState, update: PriceUpdate, env: PriceStreamEnv): Step {
  const timestamp = update.timestamp;
  // Not newer than the newest: frames crossing (milliseconds apart) are dropped; another quote of the same instant
  // is the later arrival, taken; more than a stale period behind is the venue's clock stepping back — dropping
  // until it caught up would freeze the stream for the size of the step, so it is taken and the order starts again.
  const behind = state.lastTimestamp - timestamp;
  const anotherQuoteOfTheInstant = behind === 0 && update.quoteId !== state.last?.quoteId;
  if (behind >= 0 && behind <= env.staleAfterMs && !anotherQuoteOfTheInstant) return { state, effects: OUT_OF_ORDER };
  // Taken, it would be "newer" than every genuine price to come (all dropped as out of order) and its quote
  // would look valid for as long: the stream would freeze on it.
  if (timestamp > env.now + env.maxAheadMs) return { state, effects: AHEAD_OF_CLOCK };
  // A quote past its life by this host's clock when it arrives (a venue clock that lags the gateway's by more than
  // a quote's life) is never published `live`: a plain-NATS client trusts `live` as tradable (spec-gaps W37). One comparison.
  if (timestamp + QUOTE_LIFETIME_MS <= env.now) return expiredOnArrival(state, update, env, behind);
  const price = quoteMessage(state.id, update, 'live');
  const wasStale = state.status === 'stale';
  const effects: PriceStreamEffect[] = wasStale
    ? [
        { type: 'staleChanged', delta: -1 },
        { type: 'publish', price },
      ]
    : [{ type: 'publish', price }];
  if (behind > env.staleAfterMs) effects.unshift({ type: 'clockStepBack', stepMs: behind });
  return { state: withQuote(state, timestamp, env.now, price), effects };
}

/**
 * An update whose quote expired before it arrived: taken (it is the stream's newest, in venue-time order) and
 * published `stale` with code {@link QUOTE_EXPIRED_ON_ARRIVAL} — the stream is stale until a quote arrives within
 * its life. Off the hot path: only while the venue's clock lags by more than a quote's life.
 */
function expiredOnArrival(state: PriceStreamState, update: PriceUpdate, env: PriceStreamEnv, behind: number): Step {
  const timestamp = update.timestamp;
  const lagMs = env.now - timestamp;
  const price = quoteMessage(state.id, update, 'stale');
  price.code = QUOTE_EXPIRED_ON_ARRIVAL;
  price.message = `the quote was ${Math.round(lagMs / 1000)} s old by the gateway's clock on arrival, past its life: the venue's clock is behind`;
  const effects: PriceStreamEffect[] = [];
  if (behind > env.staleAfterMs) effects.push({ type: 'clockStepBack', stepMs: behind });
  if (state.status !== 'stale') effects.push({ type: 'staleChanged', delta: 1 });
  effects.push({ type: 'publish', price }, { type: 'expiredOnArrival', lagMs });
  const next = evolve(state, { status: 'stale', lastTimestamp: timestamp, lastUpdateAt: env.now, last: price });
  return { state: next, effects };
}

/** The message of one venue update: its quote, on the stream's identity (the hot path's one allocation for it). */
function quoteMessage(id: StreamIdentity, update: PriceUpdate, status: 'live' | 'stale'): PriceMessage {
  const timestamp = update.timestamp;
  const price: PriceMessage = {
    v: 1,
    status,
    accountGroup: id.accountGroup,
    instrument: id.instrument,
    tenor: id.tenor,
    currency: id.currency,
    quantity: id.quantity,
    quoteId: update.quoteId,
    venueTimestamp: timestamp,
    quoteExpiresAt: timestamp + QUOTE_LIFETIME_MS,
    bid: { price: update.bid.price, quantity: update.bid.quantity, quoteAmount: update.bid.quoteAmount },
    offer: { price: update.offer.price, quantity: update.offer.quantity, quoteAmount: update.offer.quoteAmount },
  };
  if (update.settleDate !== undefined) price.settleDate = update.settleDate;
  return price;
}

/**
 * The state after a live price: an explicit literal, not `{ ...state, … }`. V8 copies an object spread from
 * an earlier spread's result slowly (≈ 0.4–1.3 µs for this state in Node 20, against ≈ 25 ns for the literal:
 * measured in bench/hot-path.ts), and this runs for every price.
 */
function withQuote(s: PriceStreamState, timestamp: number, now: number, price: PriceMessage): PriceStreamState {
  return {
    id: s.id,
    venue: s.venue,
    subscriptionId: s.subscriptionId,
    attempt: s.attempt,
    subscribeSentAt: s.subscribeSentAt,
    status: 'live',
    lastTimestamp: timestamp,
    lastUpdateAt: now,
    last: price,
    leases: s.leases,
    waiting: s.waiting,
  };
}

type StateChanges = { -readonly [K in keyof PriceStreamState]?: PriceStreamState[K] };

/**
 * `state` with `changes` (a key present with `undefined` clears an optional field), written field by
 * field for the reason given at {@link withQuote}; one field order, so every state shares one shape.
 */
function evolve(s: PriceStreamState, c: StateChanges): PriceStreamState {
  return {
    id: s.id,
    venue: c.venue ?? s.venue,
    subscriptionId: 'subscriptionId' in c ? c.subscriptionId : s.subscriptionId,
    attempt: c.attempt ?? s.attempt,
    subscribeSentAt: 'subscribeSentAt' in c ? c.subscribeSentAt : s.subscribeSentAt,
    status: c.status ?? s.status,
    lastTimestamp: c.lastTimestamp ?? s.lastTimestamp,
    lastUpdateAt: c.lastUpdateAt ?? s.lastUpdateAt,
    last: 'last' in c ? c.last : s.last,
    leases: c.leases ?? s.leases,
    waiting: c.waiting ?? s.waiting,
  };
}

const OUT_OF_ORDER: readonly PriceStreamEffect[] = Object.freeze([{ type: 'outOfOrder' }]);
const AHEAD_OF_CLOCK: readonly PriceStreamEffect[] = Object.freeze([{ type: 'aheadOfClock' }]);

function onAcquire(
  state: PriceStreamState,
  event: Extract<PriceStreamEvent, { type: 'acquire' }>,
  env: PriceStreamEnv,
): Step {
  const leases = new Map(state.leases).set(event.requester, event.leaseExpiresAt);
  const next = evolve(state, { leases, waiting: state.waiting + (event.waits ? 1 : 0) });
  if (state.venue === 'pending' && state.attempt === 0) return subscribe(next, env, NONE); // a new stream
  return stay(next);
}

function onAck(state: PriceStreamState, ack: Extract<PriceStreamEvent, { type: 'ack' }>, env: PriceStreamEnv): Step {
  if (state.venue === 'held') return stay(state);
  if (ack.success || ack.code === ALREADY_HELD) {
    const next = evolve(state, {
      venue: 'held',
      subscribeSentAt: undefined,
      // A fresh ack names the (new) subscription; "already held" keeps the id we had.
      subscriptionId: ack.success ? (ack.subscriptionId ?? state.subscriptionId) : state.subscriptionId,
      // A new subscription's updates are ordered among themselves (§2.2), not against the old one's: a venue clock
      // that stepped back meanwhile must not hold its prices back until it has caught up.
      ...(ack.success ? { lastTimestamp: Number.NEGATIVE_INFINITY } : {}),
      lastUpdateAt: state.status === 'none' ? env.now : state.lastUpdateAt,
      waiting: 0,
    });
    return { state: next, effects: state.waiting > 0 ? [{ type: 'answer', ok: true }] : NONE };
  }
  const code = ack.code || 'SUBSCRIBE_FAILED';
  if (
    (!DEFINITIVE_SUBSCRIBE_REFUSALS.has(code) || code === VenueCode.NoPrice) &&
    state.venue === 'subscribing' &&
    (state.subscriptionId !== undefined || state.status !== 'none')
  ) {
    // A stream held before the reconnect, refused for a reason that may pass (the service's own failure
    // RFS100013, a rate limit, a code §7.1 does not name, and "no price at that size, pair or tenor" RFS100011 —
    // the request had prices a moment ago: the venue may have halted the instrument, W24): its holders still
    // want it — counted, and asked again by the sweep after the subscribe timeout, rather than stopped (it is
    // stale meanwhile). Refusals of the request itself (blank or malformed fields, a disabled pair) stop it.
    return { state: evolve(state, { subscribeSentAt: env.now }), effects: [{ type: 'subscribeRefused', code }] };
  }
  return stop(state, code, ack.message || 'subscription refused', false, [{ type: 'subscribeRefused', code }]);
}

function onSweep(state: PriceStreamState, env: PriceStreamEnv): Step {
  let leases = state.leases;
  for (const [requester, expiresAt] of state.leases) {
    if (expiresAt > env.now) continue;
    if (leases === state.leases) leases = new Map(state.leases);
    (leases as Map<string, number>).delete(requester);
  }
  let next = leases === state.leases ? state : evolve(state, { leases });
  if (next.leases.size === 0 && next.waiting === 0) {
    return stop(next, 'LEASE_EXPIRED', 'every requester lease expired', true);
  }
  // Most sweeps change nothing (500 streams, once a second): no array unless there is an effect.
  let effects: PriceStreamEffect[] | undefined;
  if (
    next.venue === 'subscribing' &&
    next.subscribeSentAt !== undefined &&
    env.now - next.subscribeSentAt > env.subscribeTimeoutMs
  ) {
    // No acknowledgement (§2.1 rule 1 promises one): the frame was lost; ask again. If the first did
    // land, the venue answers "already held", which counts as held.
    const resent = subscribe(next, env, NONE);
    next = resent.state;
    effects = [...resent.effects];
  }
  const silentFor = env.now - next.lastUpdateAt;
  if (next.status !== 'stale' && silentFor > env.staleAfterMs && (next.status !== 'none' || next.venue === 'held')) {
    next = evolve(next, { status: 'stale' });
    (effects ??= []).push({ type: 'staleChanged', delta: 1 }, { type: 'publish', price: staleCopy(next) });
  }
  return { state: next, effects: effects ?? NONE };
}

function dropInterest(state: PriceStreamState, requester: string): Step {
  const leases = new Map(state.leases);
  leases.delete(requester);
  const next = evolve(state, { leases });
  if (leases.size === 0 && next.waiting === 0) {
    return stop(next, 'RELEASED', 'no requester holds this stream any more', true);
  }
  return stay(next);
}

function subscribe(state: PriceStreamState, env: PriceStreamEnv, effects: readonly PriceStreamEffect[]): Step {
  const attempt = state.attempt + 1;
  if (!env.isOpen) return { state: evolve(state, { venue: 'pending', attempt, subscribeSentAt: undefined }), effects };
  return {
    state: evolve(state, { venue: 'subscribing', attempt, subscribeSentAt: undefined }),
    effects: [...effects, { type: 'subscribe', attempt }],
  };
}

function stop(
  state: PriceStreamState,
  code: string,
  message: string,
  unsubscribe: boolean,
  first: readonly PriceStreamEffect[] = NONE,
): Step {
  const effects: PriceStreamEffect[] = [...first];
  // Unsubscribe whatever the venue may still hold: held now, or held before a reconnect (the id is kept).
  if (unsubscribe && state.subscriptionId !== undefined) {
    effects.push({ type: 'unsubscribe', subscriptionId: state.subscriptionId });
  }
  if (state.waiting > 0) effects.push({ type: 'answer', ok: false, code, message });
  if (state.status === 'stale') effects.push({ type: 'staleChanged', delta: -1 });
  const { id } = state;
  effects.push(
    {
      type: 'publish',
      price: {
        v: 1,
        status: 'stopped',
        accountGroup: id.accountGroup,
        instrument: id.instrument,
        tenor: id.tenor,
        currency: id.currency,
        quantity: id.quantity,
        code,
        message,
      },
    },
    { type: 'removed' },
  );
  return { state: evolve(state, { venue: 'stopped', waiting: 0, attempt: state.attempt + 1 }), effects };
}

function staleCopy(state: PriceStreamState): PriceMessage {
  if (state.last !== undefined) return { ...state.last, status: 'stale' };
  const { id } = state;
  return {
    v: 1,
    status: 'stale',
    accountGroup: id.accountGroup,
    instrument: id.instrument,
    tenor: id.tenor,
    currency: id.currency,
    quantity: id.quantity,
  };
}
