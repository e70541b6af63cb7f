/**
 * Pre-trade risk as one actor: admits, later order events, restores and changes of limits or trading states
 * all go through one mailbox, so two concurrent admits can never both use the same headroom (the second is
 * decided on the book that already counts the first). The transition is pure; its effects are the replies.
 */
import { RiskCode, type TradingStateEntry, type RiskScopeKind } from '#contracts';
import { isParsableDecimal, parseDecimal, type Decimal } from '#venue-api';
import type { Transition } from '#actors';
import type { FilledOrder, RiskDecision, RiskOrder, RiskOrderEvent } from './risk-gate.js';
import { decide } from './checks.js';
import { refusal } from './refusal.js';
import { scopeKey, withOverride, type Limits, type LimitsConfig, type ScopeKey } from './limits.js';
import { bookOrderOf, currenciesOf, factsOf } from './order-facts.js';
import {
  deltasOf,
  scopesOf,
  type BookEvent,
  type BookOrder,
  type RestoredOrder,
  type RiskBook,
  type WindowOrder,
} from './risk-book.js';
import { withEntry, withoutEntry, withReadable, type TradingStates } from './trading-states.js';

export interface RiskState {
  readonly book: RiskBook;
  readonly limits: LimitsConfig;
  readonly states: TradingStates;
  /** Per scope, the orders whose fills the durable positions held when read (absent: not read). */
  readonly appliedFills?: ReadonlyMap<ScopeKey, ReadonlySet<string>>;
  /** Admissions decided one after another for the whole account (absent: by this instance alone). */
  readonly sequence?: AdmissionSequence;
}

/**
 * The account's admissions in one order, across instances: an order this instance admits is published on the
 * book stream expecting the last admission it has counted. If another instance's came in between, the
 * publication is refused; that admission is counted here and the order decided again on the book that holds it.
 */
export interface AdmissionSequence {
  /** Stream sequence of the last admission counted here (0: none). */
  readonly last: number;
  /** The admit whose publication is out: admits that come meanwhile wait behind it, in order. */
  readonly pending?: PendingAdmit;
  readonly waiting: readonly AdmitRequest[];
}

interface AdmitRequest {
  readonly order: RiskOrder;
  readonly now: number;
  readonly reply: (decision: RiskDecision) => void;
}

/** Admitted, if stored, at its decision's `now`. */
interface PendingAdmit extends AdmitRequest {
  readonly attempts: number;
}

/** Publications refused because another instance admitted first, in a row, before the order is refused. */
export const ADMISSION_ATTEMPTS = 50;

/** An admission another instance published: what the book needs to count it. */
export interface PeerAdmission {
  order: RiskOrder;
  admittedAt: number;
}

export type RiskEvent =
  | { kind: 'admit'; order: RiskOrder; now: number; reply: (decision: RiskDecision) => void }
  /** `settled`: told once the event's durable effect is done, or why it was ignored (an undone fill's). */
  | { kind: 'record'; event: RiskOrderEvent; from: 'local' | 'peer'; settled?: Settled }
  /**
   * An order another execution instance admitted: counted here too (no checks: that instance decided). `seq`:
   * where the stream stored it (followed there), which moves the sequence on.
   */
  | { kind: 'peer-admitted'; order: RiskOrder; admittedAt: number; seq?: number }
  /** This instance's own admission seen stored at `seq`. */
  | { kind: 'sequence-seen'; seq: number }
  /** From now on admissions are published in sequence; `last`: the last one read back from the stream. */
  | { kind: 'sequence-started'; last: number }
  /** The pending admission was stored at stream sequence `seq`. */
  | { kind: 'admission-stored'; orderId: string; seq: number }
  /** Another instance admitted first: what it (and any other since `last`) admitted; `last` is now the stream's. */
  | { kind: 'admission-overtaken'; orderId: string; missed: readonly PeerAdmission[]; last: number }
  /** The stream could not take it (NATS or the stream down, no answer): admitted here alone, as without peers. */
  | { kind: 'admission-unsequenced'; orderId: string; reason: string }
  | { kind: 'restore'; orders: ReadonlyArray<{ order: RiskOrder; admittedAt: number; event?: RiskOrderEvent }> }
  /** The admissions of the last minute read back (`traded`: not known not executed): for the rolling windows. */
  | { kind: 'restore-window'; orders: ReadonlyArray<{ order: RiskOrder; admittedAt: number; traded: boolean }> }
  | { kind: 'limits-changed'; key: ScopeKey; limits: Limits | 'invalid' | null }
  | { kind: 'state-stored'; entry: TradingStateEntry }
  | { kind: 'state-removed'; scope: RiskScopeKind; id?: string }
  | { kind: 'store-readable'; readable: boolean }
  /** The durable positions, read at start: they replace what the book holds. */
  | {
      kind: 'positions-loaded';
      positions: ReadonlyMap<ScopeKey, ReadonlyMap<string, Decimal>>;
      applied: ReadonlyMap<ScopeKey, ReadonlySet<string>>;
    }
  /** Everything the store holds, read afresh (start, reconnect): replaces states and overrides; readable again. */
  | {
      kind: 'store-snapshot';
      states: readonly TradingStateEntry[];
      overrides: ReadonlyArray<[ScopeKey, Limits | 'invalid']>;
    };

/** Told once an event's durable effect is done (no error), or why it could not be. */
export type Settled = (error?: string) => void;

export type RiskEffect =
  | { kind: 'reply'; reply: (decision: RiskDecision) => void; decision: RiskDecision; order: RiskOrder }
  /** Tell the other instances: an order admitted here, an event of an order learnt here. */
  | { kind: 'share-admitted'; order: RiskOrder; admittedAt: number }
  /** Publish the admission expecting the last one counted here (`AdmissionSequence`); the answer comes back as an event. */
  | { kind: 'publish-admission'; order: RiskOrder; admittedAt: number; expectedLast: number }
  /** The admission's publication was overtaken by another instance's (counted for the metric), or not sequenced. */
  | { kind: 'admission-retried'; orderId: string; attempts: number }
  | { kind: 'admission-unsequenced'; orderId: string; reason: string }
  | { kind: 'share-event'; event: RiskOrderEvent }
  /**
   * A fill this instance learnt: add it to the durable positions of the order's scopes (an undone fill: its
   * negated deltas, under `undone:<orderId>`, so each is applied once there too).
   */
  | { kind: 'persist-fill'; orderId: string; scopes: ScopeKey[]; deltas: Map<string, Decimal>; settled?: Settled }
  | { kind: 'event-ignored'; orderId: string; reason: string; settled?: Settled }
  | { kind: 'restored'; from: 'journal' | 'admissions'; orders: number; skipped: number };

export interface RiskEnv {
  now: number;
}

export function riskTransition(state: RiskState, event: RiskEvent, env: RiskEnv): Transition<RiskState, RiskEffect> {
  switch (event.kind) {
    case 'admit': {
      const request: AdmitRequest = { order: event.order, now: event.now, reply: event.reply };
      const sequence = state.sequence;
      if (sequence?.pending !== undefined) {
        return { state: { ...state, sequence: { ...sequence, waiting: [...sequence.waiting, request] } }, effects: [] };
      }
      return admitNext(state, [request], []);
    }
    case 'peer-admitted':
      countPeerAdmission(state, event, env.now);
      return { state: event.seq === undefined ? state : sequencedTo(state, event.seq), effects: [] };
    case 'sequence-seen':
      return { state: sequencedTo(state, event.seq), effects: [] };
    case 'sequence-started':
      return { state: { ...state, sequence: { last: event.last, waiting: [] } }, effects: [] };
    case 'admission-stored': {
      const out = pendingAnswered(state, event.orderId);
      if (out === undefined) return { state, effects: [] };
      const { sequence, pending } = out;
      const last = Math.max(sequence.last, event.seq);
      return admitNext({ ...state, sequence: { last, waiting: [] } }, sequence.waiting, [
        admitted(state, pending, env),
      ]);
    }
    case 'admission-overtaken': {
      const out = pendingAnswered(state, event.orderId);
      if (out === undefined) return { state, effects: [] };
      const { sequence, pending } = out;
      for (const admission of event.missed) countPeerAdmission(state, admission, env.now);
      const attempts = pending.attempts + 1;
      const retried: RiskEffect = { kind: 'admission-retried', orderId: pending.order.orderId, attempts };
      // the stream's last as read — unless what was followed meanwhile is further on (read nothing: a stream
      // declared afresh starts its sequence again, and so does this)
      const last = event.missed.length > 0 ? Math.max(sequence.last, event.last) : event.last;
      const next: AdmissionSequence = { last, waiting: [] };
      if (attempts >= ADMISSION_ATTEMPTS) {
        const decision = refusal(
          RiskCode.AdmissionContended,
          "other instances admitted orders between this order's decision and its publication each time: ask again",
          { attempts: String(attempts) },
        );
        const reply: RiskEffect = { kind: 'reply', reply: pending.reply, decision, order: pending.order };
        return admitNext({ ...state, sequence: next }, sequence.waiting, [retried, reply]);
      }
      // decided again now, on the book that counts what came in between
      const again: AdmitRequest = { order: pending.order, now: env.now, reply: pending.reply };
      return admitNext({ ...state, sequence: next }, [again, ...sequence.waiting], [retried], attempts);
    }
    case 'admission-unsequenced': {
      const out = pendingAnswered(state, event.orderId);
      if (out === undefined) return { state, effects: [] };
      const { sequence, pending } = out;
      const effects: RiskEffect[] = [
        admitted(state, pending, env),
        { kind: 'share-admitted', order: pending.order, admittedAt: pending.now },
        { kind: 'admission-unsequenced', orderId: pending.order.orderId, reason: event.reason },
      ];
      return admitNext({ ...state, sequence: { last: sequence.last, waiting: [] } }, sequence.waiting, effects);
    }
    case 'record': {
      const parsed = bookEventOf(event.event);
      if (typeof parsed === 'string') {
        const ignored: RiskEffect = { kind: 'event-ignored', orderId: event.event.orderId, reason: parsed };
        return { state, effects: [event.settled ? { ...ignored, settled: event.settled } : ignored] };
      }
      if (parsed.kind === 'undone' || parsed.kind === 'late-fill') {
        state.book.record(parsed);
        if (event.from === 'peer') return { state, effects: [] };
        const undone = parsed.kind === 'undone';
        const deltas = new Map(
          [...deltasOf(parsed.order, parsed.baseAmount, parsed.quoteAmount)].map(([ccy, d]) => [
            ccy,
            undone ? d.negated() : d,
          ]),
        );
        const persist: RiskEffect = {
          kind: 'persist-fill',
          orderId: undone ? undoneFillId(parsed.orderId) : lateFillId(parsed.orderId),
          scopes: scopesOf(parsed.order),
          deltas,
          ...(event.settled ? { settled: event.settled } : {}),
        };
        return { state, effects: [{ kind: 'share-event', event: event.event }, persist] };
      }
      // A fill learnt here is stored even when a peer's event settled the order in the book already (the peer
      // that told it may have died before storing it; the store counts each order once): the book's order, or
      // the one the event names.
      const order =
        state.book.open.get(parsed.orderId) ??
        state.book.recentOrder(parsed.orderId) ??
        (event.event.kind === 'filled' ? filledOrderOf(event.event.order) : undefined);
      state.book.record(parsed);
      if (event.from === 'peer') return { state, effects: [] };
      const effects: RiskEffect[] = [{ kind: 'share-event', event: event.event }];
      if (parsed.kind === 'filled' && order !== undefined) {
        const deltas = deltasOf(order, parsed.baseAmount, parsed.quoteAmount);
        effects.push({ kind: 'persist-fill', orderId: parsed.orderId, scopes: scopesOf(order), deltas });
      }
      return { state, effects };
    }
    case 'restore': {
      const restored: RestoredOrder[] = [];
      const effects: RiskEffect[] = [];
      for (const { order, admittedAt, event: later } of event.orders) {
        const facts = factsOf(order);
        if ('ok' in facts) continue;
        const parsed = later === undefined ? undefined : bookEventOf(later);
        if (typeof parsed === 'string') continue;
        const bookOrder = bookOrderOf(facts, admittedAt);
        if (parsed?.kind !== 'filled' || state.book.open.has(bookOrder.orderId)) {
          restored.push({ order: bookOrder, ...(parsed ? { event: parsed } : {}) });
          continue;
        }
        // a final fill whose order was still open at the crash: stored now where the durable positions lack it
        const fillScopes = unstoredScopes(state, bookOrder);
        restored.push({ order: bookOrder, event: parsed, fillScopes });
        if (fillScopes.length > 0) {
          const deltas = deltasOf(bookOrder, parsed.baseAmount, parsed.quoteAmount);
          effects.push({ kind: 'persist-fill', orderId: bookOrder.orderId, scopes: fillScopes, deltas });
        }
      }
      state.book.restore(restored, env.now);
      const skipped = event.orders.length - restored.length;
      return { state, effects: [{ kind: 'restored', from: 'journal', orders: restored.length, skipped }, ...effects] };
    }
    case 'restore-window': {
      const restored: WindowOrder[] = [];
      for (const { order, admittedAt, traded } of event.orders) {
        const facts = factsOf(order);
        if (!('ok' in facts)) restored.push({ order: bookOrderOf(facts, admittedAt), traded });
      }
      state.book.restoreWindow(restored, env.now);
      const skipped = event.orders.length - restored.length;
      return { state, effects: [{ kind: 'restored', from: 'admissions', orders: restored.length, skipped }] };
    }
    case 'limits-changed':
      return { state: { ...state, limits: withOverride(state.limits, event.key, event.limits) }, effects: [] };
    case 'state-stored':
      return { state: { ...state, states: withEntry(state.states, event.entry) }, effects: [] };
    case 'state-removed':
      return { state: { ...state, states: withoutEntry(state.states, event.scope, event.id) }, effects: [] };
    case 'store-readable':
      return { state: { ...state, states: withReadable(state.states, event.readable) }, effects: [] };
    case 'positions-loaded':
      state.book.replacePositions(
        event.positions,
        ordersStoredAs(event.applied, undoneFillId('')),
        ordersStoredAs(event.applied, lateFillId('')),
      );
      return { state: { ...state, appliedFills: event.applied }, effects: [] };
    case 'store-snapshot': {
      const entries = new Map(event.states.map((entry) => [scopeKey(entry.scope, entry.id), entry] as const));
      const limits = { ...state.limits, overrides: new Map(event.overrides) };
      return { state: { ...state, limits, states: { readable: true, entries } }, effects: [] };
    }
  }
}

/** The order a fill event names, as its position write needs it (undefined if absent or its instrument is not BASE.QUOTE). */
function filledOrderOf(
  order: FilledOrder | undefined,
): Pick<BookOrder, 'strategyId' | 'accountGroup' | 'side' | 'base' | 'quote'> | undefined {
  const currencies = order === undefined ? undefined : currenciesOf(order.instrument);
  if (order === undefined || currencies === undefined) return undefined;
  return { strategyId: order.strategyId, accountGroup: order.accountGroup, side: order.side, ...currencies };
}

/**
 * Decides the requests in order until one must wait for its publication (sequenced) or none is left. Each is
 * decided on the book brought to its time; admitted alone, it is counted at once and told to the others.
 * `attempts`: of the first request, when it is an overtaken one decided again.
 */
function admitNext(
  state: RiskState,
  requests: readonly AdmitRequest[],
  effects: RiskEffect[],
  attempts = 0,
): Transition<RiskState, RiskEffect> {
  for (let i = 0; i < requests.length; i += 1) {
    const request = requests[i] as AdmitRequest;
    // the book is the actor's own: brought to now, then read by the pure checks, then counted in if admitted
    state.book.prune(request.now);
    const { decision, facts } = decide(request.order, { ...state, now: request.now });
    const reply: RiskEffect = { kind: 'reply', reply: request.reply, decision, order: request.order };
    if (!decision.ok || facts === undefined) {
      effects.push(reply);
      continue;
    }
    const sequence = state.sequence;
    if (sequence === undefined) {
      state.book.admit(bookOrderOf(facts, request.now), request.now);
      effects.push(reply, { kind: 'share-admitted', order: request.order, admittedAt: request.now });
      continue;
    }
    const pending: PendingAdmit = { ...request, attempts: i === 0 ? attempts : 0 };
    effects.push({
      kind: 'publish-admission',
      order: request.order,
      admittedAt: request.now,
      expectedLast: sequence.last,
    });
    return { state: { ...state, sequence: { last: sequence.last, pending, waiting: requests.slice(i + 1) } }, effects };
  }
  return { state, effects };
}

/** The sequence moved on to `seq` (an admission stored there is counted), never back. */
function sequencedTo(state: RiskState, seq: number): RiskState {
  const { sequence } = state;
  if (sequence === undefined || seq <= sequence.last) return state;
  return { ...state, sequence: { ...sequence, last: seq } };
}

/** The sequence and its pending admit, if the answer is for that admit (a late answer of another is ignored). */
function pendingAnswered(
  state: RiskState,
  orderId: string,
): { sequence: AdmissionSequence; pending: PendingAdmit } | undefined {
  const { sequence } = state;
  const pending = sequence?.pending;
  return sequence !== undefined && pending?.order.orderId === orderId ? { sequence, pending } : undefined;
}

/** The pending admit counted in the book, and its `ok` reply. */
function admitted(state: RiskState, pending: PendingAdmit, env: RiskEnv): RiskEffect {
  const facts = factsOf(pending.order);
  if (!('ok' in facts)) state.book.admit(bookOrderOf(facts, pending.now), env.now);
  return { kind: 'reply', reply: pending.reply, decision: { ok: true }, order: pending.order };
}

/** An order another instance admitted, counted once however often it is heard of (live and read back). */
function countPeerAdmission(state: RiskState, admission: PeerAdmission, now: number): void {
  const facts = factsOf(admission.order);
  if ('ok' in facts) return;
  state.book.admitOnce(bookOrderOf(facts, admission.admittedAt), now);
}

/** The scopes whose durable positions, as read at start, do not hold the order's fill (none if never read). */
function unstoredScopes(state: RiskState, order: BookOrder): ScopeKey[] {
  const applied = state.appliedFills;
  if (applied === undefined) return [];
  return scopesOf(order).filter((scope) => !applied.get(scope)?.has(order.orderId));
}

/** The id an undone fill is stored under in the durable positions (each scope remembers it, once). */
export function undoneFillId(orderId: string): string {
  return `undone:${orderId}`;
}

/** The id a late fill (K7: found after its order FAILED) is stored under in the durable positions. */
export function lateFillId(orderId: string): string {
  return `late-fill:${orderId}`;
}

/** The orders whose undone (or late) fills the durable positions hold, by the prefix they are stored under. */
function ordersStoredAs(applied: ReadonlyMap<ScopeKey, ReadonlySet<string>>, prefix: string): Set<string> {
  const orders = new Set<string>();
  for (const ids of applied.values())
    for (const id of ids) if (id.startsWith(prefix)) orders.add(id.slice(prefix.length));
  return orders;
}

/** The order side's event with its amounts parsed, or why it cannot be used. */
function bookEventOf(event: RiskOrderEvent): BookEvent | string {
  if (event.kind !== 'filled' && event.kind !== 'undone' && event.kind !== 'late-fill') return event;
  if (!isParsableDecimal(event.baseAmount) || !isParsableDecimal(event.quoteAmount)) {
    return `${event.kind} without decimal baseAmount and quoteAmount`;
  }
  const amounts = {
    orderId: event.orderId,
    baseAmount: parseDecimal(event.baseAmount, 'baseAmount'),
    quoteAmount: parseDecimal(event.quoteAmount, 'quoteAmount'),
  };
  if (event.kind === 'filled') return { kind: 'filled', ...amounts };
  const order = filledOrderOf(event.order);
  if (order === undefined)
    return `${event.kind} without its order (strategy, account group, side, BASE.QUOTE instrument)`;
  return { kind: event.kind, ...amounts, order };
}
