/**
 * Pre-trade risk as one actor: admits, later order events, restores and changes of limits or trading states
 * all go through one mailbox, so two concurrent admits can never both use the same headroom (the second is
 * decided on the book that already counts the first). The transition is pure; its effects are the replies.
 */
import type { TradingStateEntry, RiskScopeKind } from '#contracts';
import { isParsableDecimal, parseDecimal, type Decimal } from '#venue-api';
import type { Transition } from '#actors';
import type { FilledOrder, RiskDecision, RiskOrder, RiskOrderEvent } from './risk-gate.js';
import { decide } from './checks.js';
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
}

export type RiskEvent =
  | { kind: 'admit'; order: RiskOrder; now: number; reply: (decision: RiskDecision) => void }
  /** `settled`: told once the event's durable effect is done, or why it was ignored (an undone fill's). */
  | { kind: 'record'; event: RiskOrderEvent; from: 'local' | 'peer'; settled?: Settled }
  /** An order another execution instance admitted: counted here too (no checks: that instance decided). */
  | { kind: 'peer-admitted'; order: RiskOrder; admittedAt: number }
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
      // the book is the actor's own: brought to now, then read by the pure checks, then counted in if admitted
      state.book.prune(event.now);
      const { decision, facts } = decide(event.order, { ...state, now: event.now });
      const reply: RiskEffect = { kind: 'reply', reply: event.reply, decision, order: event.order };
      if (!decision.ok || facts === undefined) return { state, effects: [reply] };
      state.book.admit(bookOrderOf(facts, event.now), event.now);
      return { state, effects: [reply, { kind: 'share-admitted', order: event.order, admittedAt: event.now }] };
    }
    case 'peer-admitted': {
      const facts = factsOf(event.order);
      if ('ok' in facts) return { state, effects: [] };
      state.book.admit(bookOrderOf(facts, event.admittedAt), env.now);
      return { state, effects: [] };
    }
    case 'record': {
      const parsed = bookEventOf(event.event);
      if (typeof parsed === 'string') {
        const ignored: RiskEffect = { kind: 'event-ignored', orderId: event.event.orderId, reason: parsed };
        return { state, effects: [event.settled ? { ...ignored, settled: event.settled } : ignored] };
      }
      if (parsed.kind === 'undone') {
        state.book.record(parsed);
        if (event.from === 'peer') return { state, effects: [] };
        const deltas = new Map(
          [...deltasOf(parsed.order, parsed.baseAmount, parsed.quoteAmount)].map(([ccy, d]) => [ccy, d.negated()]),
        );
        const persist: RiskEffect = {
          kind: 'persist-fill',
          orderId: undoneFillId(parsed.orderId),
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
      state.book.replacePositions(event.positions, undoneOrdersOf(event.applied));
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

/** The orders whose undone fills the durable positions hold. */
function undoneOrdersOf(applied: ReadonlyMap<ScopeKey, ReadonlySet<string>>): Set<string> {
  const orders = new Set<string>();
  const prefix = undoneFillId('');
  for (const ids of applied.values())
    for (const id of ids) if (id.startsWith(prefix)) orders.add(id.slice(prefix.length));
  return orders;
}

/** The order side's event with its amounts parsed, or why it cannot be used. */
function bookEventOf(event: RiskOrderEvent): BookEvent | string {
  if (event.kind !== 'filled' && event.kind !== 'undone') return event;
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
  if (order === undefined) return 'undone without its order (strategy, account group, side, BASE.QUOTE instrument)';
  return { kind: 'undone', ...amounts, order };
}
