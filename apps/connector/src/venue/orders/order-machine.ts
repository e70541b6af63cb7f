/**
 * One order's life in the connector, as a pure transition function (the order actor; see
 * docs/architecture.md "Actors"). Sent at most once; resolved, never re-placed: the live reply, a
 * redelivery after a reconnect (W7), the order-state endpoint (§4.10) asked again with capped exponential
 * backoff until a final answer or the venue's 24 h retention ends. Statuses only climb the lattice of
 * `#contracts` (PENDING → UNKNOWN → INDETERMINATE → SUCCESS | FAILED); FAILED only on the venue's word.
 */
import {
  canFollow,
  contradicts,
  isFinalStatus,
  type OrderOutcome,
  type OrderOutcomeSource,
  type OrderOutcomeStatus,
} from '#contracts';
import type { Transition } from '#actors';
import type { OrderReply } from '#venue-api';
import type { OrderStateView } from '../rest/venue-sources.js';
import { bestStateRecord, outcomeFromReply, outcomeFromState, unknownOutcome } from './order-outcome.js';

export interface OrderPolicy {
  /** Our session: an order-state record bound to it is preferred (§2.8). */
  readonly sessionId: string;
  /** Sent, and no final reply within this: reconciliation starts. */
  readonly replyTimeoutMs: number;
  /** The first order-state check waits this long, for a redelivery to answer first (W7). */
  readonly redeliveryGraceMs: number;
  /** Backoff between order-state checks: initial, doubled each time, capped. */
  readonly checkInitialMs: number;
  readonly checkMaxMs: number;
  /** How long the venue keeps an order's state (24 h, §4.10); after it, the trade list by clientRef decides. */
  readonly horizonMs: number;
  /** An orderUnsubscribe without reply within this is given up (the order is final anyway). */
  readonly unsubscribeTimeoutMs: number;
}

export interface OrderEnv {
  readonly now: number;
  readonly policy: OrderPolicy;
}

/**
 * - `new`: created, nothing happened yet (the next event says whether we sent it, adopt it, or hear of it);
 * - `awaiting`: the frame left; waiting for the final reply (timer: replyTimeout);
 * - `reconciling`: no final outcome yet; an order-state check is scheduled (timer: checkDue) or running;
 * - `unsubscribing`: final; orderUnsubscribe sent, waiting for its reply (timer: unsubscribeTimeout);
 * - `done`: final, nothing more to do; `expired`: retention ended without a final outcome.
 */
export type OrderPhase = 'new' | 'awaiting' | 'reconciling' | 'unsubscribing' | 'done' | 'expired';

export interface OrderState {
  readonly clientRequestId: string;
  readonly phase: OrderPhase;
  /** The highest status published so far. */
  readonly published: OrderOutcomeStatus | undefined;
  /** Connection generation the frame left on (replies on a later one are redeliveries). */
  readonly sentOn: number | undefined;
  readonly sentAt: number | undefined;
  /** When the order was first sent or marked: the 24 h horizon counts from here. */
  readonly since: number;
  /** Order-state lookups the venue answered (a failed one does not count: it grows no backoff). */
  readonly checks: number;
  readonly checking: boolean;
  readonly replied: boolean;
  /** What this process knows of the order (the command it sent, or its mark): fills what a reply leaves out. */
  readonly known: OrderFacts;
}

export interface OrderFacts {
  readonly quoteId?: string;
  readonly side?: 'BUY' | 'SELL';
}

export type OrderTimer = 'replyTimeout' | 'checkDue' | 'unsubscribeTimeout';

export type OrderEvent =
  | { readonly type: 'sent'; readonly connection: number }
  /** Resolve an order whose frame may have left earlier (a redelivered command, or one marked before a restart). */
  | { readonly type: 'reconcile' }
  | { readonly type: 'reply'; readonly reply: OrderReply; readonly connection: number | undefined }
  | { readonly type: 'stateRecords'; readonly records: readonly OrderStateView[] }
  | { readonly type: 'stateFailed' }
  | { readonly type: 'unsubscribed' }
  | { readonly type: OrderTimer };

export type OrderEffect =
  | { readonly type: 'publish'; readonly outcome: OrderOutcome }
  | { readonly type: 'orderUnsubscribe' }
  | { readonly type: 'queryState' }
  | { readonly type: 'arm'; readonly timer: OrderTimer; readonly ms: number }
  | { readonly type: 'disarm' }
  | { readonly type: 'latency'; readonly phase: 'first' | 'final'; readonly ms: number }
  /** The venue's first answer to an order this process sent: its code tells whether our order pace suits it (K1). */
  | { readonly type: 'firstAnswer'; readonly code: string }
  /** A final status contradicting the final one published (FAILED after SUCCESS): kept out, counted, logged. */
  | {
      readonly type: 'conflict';
      readonly kept: OrderOutcomeStatus;
      readonly status: OrderOutcomeStatus;
      readonly source: OrderOutcomeSource;
    }
  | { readonly type: 'finished' }
  | { readonly type: 'expired' };

export function newOrder(clientRequestId: string, since: number, known: OrderFacts = {}): OrderState {
  return {
    known,
    clientRequestId,
    phase: 'new',
    published: undefined,
    sentOn: undefined,
    sentAt: undefined,
    since,
    checks: 0,
    checking: false,
    replied: false,
  };
}

export function isSettled(state: OrderState): boolean {
  return state.phase === 'done' || state.phase === 'expired';
}

type Step = Transition<OrderState, OrderEffect>;

/** An outcome as published: what the venue left out (its reply's fields are not shown) filled from what we know. */
function publish(state: OrderState, outcome: OrderOutcome): OrderEffect {
  const { quoteId, side } = state.known;
  return {
    type: 'publish',
    outcome: {
      ...outcome,
      ...(outcome.quoteId === undefined && quoteId !== undefined && { quoteId }),
      ...(outcome.side === undefined && side !== undefined && { side }),
    },
  };
}

const stay = (state: OrderState): Step => ({ state, effects: [] });

export function orderTransition(state: OrderState, event: OrderEvent, env: OrderEnv): Step {
  if (isSettled(state)) return stay(state);
  switch (event.type) {
    case 'sent':
      if (state.phase !== 'new') return stay(state);
      return {
        state: { ...state, phase: 'awaiting', sentOn: event.connection, sentAt: env.now },
        effects: [{ type: 'arm', timer: 'replyTimeout', ms: env.policy.replyTimeoutMs }],
      };
    case 'reconcile':
      if (state.phase !== 'new') return stay(state); // already watched or reconciling
      return scheduleCheck({ ...state, phase: 'reconciling' }, env.policy.redeliveryGraceMs, []);
    case 'reply':
      return onReply(state, event.reply, event.connection, env);
    case 'replyTimeout':
      if (state.phase !== 'awaiting') return stay(state);
      return scheduleCheck({ ...state, phase: 'reconciling' }, env.policy.redeliveryGraceMs, []);
    case 'checkDue':
      if (state.phase !== 'reconciling' || state.checking) return stay(state);
      if (env.now - state.since >= env.policy.horizonMs) {
        return { state: { ...state, phase: 'expired' }, effects: [{ type: 'disarm' }, { type: 'expired' }] };
      }
      return { state: { ...state, checking: true }, effects: [{ type: 'queryState' }] };
    case 'stateRecords':
      return onStateRecords(state, event.records, env);
    case 'stateFailed':
      // A lookup that ended after a reply moved the order on (unsubscribing, done) arms nothing: its one timer
      // is the unsubscribe timeout now.
      if (state.phase !== 'reconciling') return stay({ ...state, checking: false });
      // No answer is no evidence: the backoff (which spares a venue that answers "not yet") does not grow, and the
      // order is asked about again soon — the REST client's limiter paces the calls and pauses them on a 429.
      return unresolved({ ...state, checking: false }, env, [], env.policy.checkInitialMs);
    case 'unsubscribed':
    case 'unsubscribeTimeout':
      if (state.phase !== 'unsubscribing') return stay(state);
      return { state: { ...state, phase: 'done' }, effects: [{ type: 'disarm' }, { type: 'finished' }] };
  }
}

function onReply(state: OrderState, reply: OrderReply, connection: number | undefined, env: OrderEnv): Step {
  const effects: OrderEffect[] = [];
  const status = reply.orderStatus;
  if (!state.replied && state.sentAt !== undefined) {
    effects.push(
      { type: 'latency', phase: 'first', ms: env.now - state.sentAt },
      { type: 'firstAnswer', code: reply.code ?? '' },
    );
  }
  let next: OrderState = { ...state, replied: true };
  const wasFinal = state.published !== undefined && isFinalStatus(state.published);
  const source = connection !== undefined && connection === state.sentOn ? 'reply' : 'redelivery';
  if (state.published === undefined || canFollow(state.published, status)) {
    effects.push(publish(state, outcomeFromReply(state.clientRequestId, reply, source)));
    next = { ...next, published: status };
  } else if (state.published !== undefined && contradicts(state.published, status)) {
    effects.push({ type: 'conflict', kept: state.published, status, source });
  }
  if (isFinalStatus(status)) {
    if (!wasFinal && state.sentAt !== undefined)
      effects.push({ type: 'latency', phase: 'final', ms: env.now - state.sentAt });
    return finalReached(next, reply.subscriptionStatus, env, effects);
  }
  if (wasFinal) return { state: next, effects }; // a stale PENDING redelivered after the final: nothing to do
  if (status === 'INDETERMINATE' && next.phase !== 'reconciling') {
    // The venue itself does not know yet (§3.4): ask it again later, never re-place.
    return scheduleCheck({ ...next, phase: 'reconciling' }, env.policy.checkInitialMs, effects);
  }
  if (next.phase === 'awaiting') {
    effects.push({ type: 'arm', timer: 'replyTimeout', ms: env.policy.replyTimeoutMs });
    return { state: next, effects };
  }
  if (next.phase === 'new') return scheduleCheck({ ...next, phase: 'reconciling' }, env.policy.replyTimeoutMs, effects);
  return { state: next, effects };
}

/** The venue says it no longer redelivers the order (K7); a reply that does not say is taken as subscribed. */
export function saysUnsubscribed(subscription: OrderReply['subscriptionStatus']): boolean {
  return subscription === 'NOT_SUBSCRIBED' || subscription === 'UNSUBSCRIBED';
}

/**
 * Final: stop delivery for a session-bound order (we always send autoSubscribe), then done. A reply that
 * does not say (subscriptionStatus is not shown by the spec) is treated as still subscribed.
 */
function finalReached(
  state: OrderState,
  subscription: OrderReply['subscriptionStatus'],
  env: OrderEnv,
  effects: OrderEffect[],
): Step {
  if (saysUnsubscribed(subscription)) {
    if (state.phase === 'unsubscribing') return { state, effects }; // the orderUnsubscribe reply closes it
    effects.push({ type: 'disarm' }, { type: 'finished' });
    return { state: { ...state, phase: 'done', checking: false }, effects };
  }
  effects.push(
    { type: 'orderUnsubscribe' },
    { type: 'arm', timer: 'unsubscribeTimeout', ms: env.policy.unsubscribeTimeoutMs },
  );
  return { state: { ...state, phase: 'unsubscribing', checking: false }, effects };
}

function onStateRecords(state: OrderState, records: readonly OrderStateView[], env: OrderEnv): Step {
  const best = bestStateRecord(records, env.policy.sessionId);
  const effects: OrderEffect[] = [];
  if (best !== undefined && state.published !== undefined && contradicts(state.published, best.orderStatus)) {
    // A lookup answered after a reply settled the order (or the venue's records disagree with its reply).
    effects.push({ type: 'conflict', kept: state.published, status: best.orderStatus, source: 'order-state' });
  }
  if (state.phase !== 'reconciling') return { state: { ...state, checking: false }, effects };
  const checked: OrderState = { ...state, checking: false, checks: state.checks + 1 };
  if (best === undefined) return unresolved(checked, env, effects);
  const status = best.orderStatus;
  if (isFinalStatus(status) || status === 'INDETERMINATE') {
    if (checked.published === undefined || canFollow(checked.published, status)) {
      effects.push(publish(checked, outcomeFromState(checked.clientRequestId, best)));
      const published: OrderState = { ...checked, published: status };
      if (isFinalStatus(status)) return finalReached(published, best.subscriptionStatus, env, effects);
      return unresolved(published, env, effects);
    }
    if (checked.published !== undefined && isFinalStatus(checked.published))
      return finalReached(checked, best.subscriptionStatus, env, effects);
  }
  return unresolved(checked, env, effects);
}

/** No final answer yet: say UNKNOWN once (never FAILED), and ask again later (by default after the backoff). */
function unresolved(
  state: OrderState,
  env: OrderEnv,
  effects: OrderEffect[],
  delayMs = backoffMs(state.checks, env.policy),
): Step {
  let next = state;
  if (state.published === undefined || canFollow(state.published, 'UNKNOWN')) {
    effects.push(
      publish(
        state,
        unknownOutcome(state.clientRequestId, 'no final outcome from the venue yet; not re-placed, still reconciling'),
      ),
    );
    next = { ...state, published: 'UNKNOWN' };
  }
  return scheduleCheck(next, delayMs, effects);
}

function scheduleCheck(state: OrderState, delayMs: number, effects: OrderEffect[]): Step {
  effects.push({ type: 'arm', timer: 'checkDue', ms: delayMs });
  return { state, effects };
}

/** Delay before check number `checks + 1`: initial · 2^(checks−1), capped. */
export function backoffMs(checks: number, policy: OrderPolicy): number {
  const exponent = Math.min(Math.max(checks - 1, 0), 30);
  return Math.min(policy.checkInitialMs * 2 ** exponent, policy.checkMaxMs);
}
