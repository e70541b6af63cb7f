/**
 * Pre-trade risk as one actor: admits, later order events, restores and changes of limits or trading states
 * all go through one mailbox, so two concurrent admits can never both use the same headroom (the second is
 * decided on the book that already counts the first). The transition is pure; its effects are the replies.
 */
import type { TradingStateEntry, RiskScopeKind } from '#contracts';
import { isParsableDecimal, parseDecimal, type Decimal } from '#venue-api';
import type { Transition } from '#actors';
import type { RiskDecision, RiskOrder, RiskOrderEvent } from './risk-gate.js';
import { decide } from './checks.js';
import { scopeKey, withOverride, type Limits, type LimitsConfig, type ScopeKey } from './limits.js';
import { bookOrderOf, factsOf } from './order-facts.js';
import {
  admitToBook,
  deltasOf,
  recordInBook,
  restoreBook,
  scopesOf,
  type BookEvent,
  type RestoredOrder,
  type RiskBook,
} from './risk-book.js';
import { withEntry, withoutEntry, withReadable, type TradingStates } from './trading-states.js';

export interface RiskState {
  readonly book: RiskBook;
  readonly limits: LimitsConfig;
  readonly states: TradingStates;
}

export type RiskEvent =
  | { kind: 'admit'; order: RiskOrder; now: number; reply: (decision: RiskDecision) => void }
  | { kind: 'record'; event: RiskOrderEvent; from: 'local' | 'peer' }
  /** An order another execution instance admitted: counted here too (no checks: that instance decided). */
  | { kind: 'peer-admitted'; order: RiskOrder; admittedAt: number }
  | { kind: 'restore'; orders: ReadonlyArray<{ order: RiskOrder; admittedAt: number; event?: RiskOrderEvent }> }
  | { kind: 'limits-changed'; key: ScopeKey; limits: Limits | 'invalid' | null }
  | { kind: 'state-stored'; entry: TradingStateEntry }
  | { kind: 'state-removed'; scope: RiskScopeKind; id?: string }
  | { kind: 'store-readable'; readable: boolean }
  /** The durable positions, read at start: they replace what the book holds. */
  | { kind: 'positions-loaded'; positions: ReadonlyMap<ScopeKey, ReadonlyMap<string, Decimal>> }
  /** Everything the store holds, read afresh (start, reconnect): replaces states and overrides; readable again. */
  | {
      kind: 'store-snapshot';
      states: readonly TradingStateEntry[];
      overrides: ReadonlyArray<[ScopeKey, Limits | 'invalid']>;
    };

export type RiskEffect =
  | { kind: 'reply'; reply: (decision: RiskDecision) => void; decision: RiskDecision; order: RiskOrder }
  /** Tell the other instances: an order admitted here, an event of an order learnt here. */
  | { kind: 'share-admitted'; order: RiskOrder; admittedAt: number }
  | { kind: 'share-event'; event: RiskOrderEvent }
  /** A fill this instance learnt: add it to the durable positions of the order's scopes. */
  | { kind: 'persist-fill'; orderId: string; scopes: ScopeKey[]; deltas: Map<string, Decimal> }
  | { kind: 'event-ignored'; orderId: string; reason: string }
  | { kind: 'restored'; orders: number; skipped: number };

export interface RiskEnv {
  now: number;
}

export function riskTransition(state: RiskState, event: RiskEvent, env: RiskEnv): Transition<RiskState, RiskEffect> {
  switch (event.kind) {
    case 'admit': {
      const { decision, facts } = decide(event.order, { ...state, now: event.now });
      const book =
        decision.ok && facts ? admitToBook(state.book, bookOrderOf(facts, event.now), event.now) : state.book;
      const reply: RiskEffect = { kind: 'reply', reply: event.reply, decision, order: event.order };
      if (book === state.book) return { state, effects: [reply] };
      return {
        state: { ...state, book },
        effects: [reply, { kind: 'share-admitted', order: event.order, admittedAt: event.now }],
      };
    }
    case 'peer-admitted': {
      const facts = factsOf(event.order);
      if ('ok' in facts || state.book.open.has(event.order.orderId)) return { state, effects: [] };
      const book = admitToBook(state.book, bookOrderOf(facts, event.admittedAt), env.now);
      return { state: { ...state, book }, effects: [] };
    }
    case 'record': {
      const parsed = bookEventOf(event.event);
      if (typeof parsed === 'string') {
        return { state, effects: [{ kind: 'event-ignored', orderId: event.event.orderId, reason: parsed }] };
      }
      const order = state.book.open.get(parsed.orderId);
      const book = recordInBook(state.book, parsed);
      if (event.from === 'peer') return { state: book === state.book ? state : { ...state, book }, effects: [] };
      const effects: RiskEffect[] = [{ kind: 'share-event', event: event.event }];
      if (parsed.kind === 'filled' && order !== undefined) {
        const deltas = deltasOf(order, parsed.baseAmount, parsed.quoteAmount);
        effects.push({ kind: 'persist-fill', orderId: order.orderId, scopes: scopesOf(order), deltas });
      }
      return { state: book === state.book ? state : { ...state, book }, effects };
    }
    case 'restore': {
      const restored: RestoredOrder[] = [];
      for (const { order, admittedAt, event: later } of event.orders) {
        const facts = factsOf(order);
        if ('ok' in facts) continue;
        const parsed = later === undefined ? undefined : bookEventOf(later);
        if (typeof parsed === 'string') continue;
        restored.push({ order: bookOrderOf(facts, admittedAt), ...(parsed ? { event: parsed } : {}) });
      }
      const book = restoreBook(state.book, restored, env.now);
      return {
        state: { ...state, book },
        effects: [{ kind: 'restored', orders: restored.length, skipped: event.orders.length - restored.length }],
      };
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
      return { state: { ...state, book: { ...state.book, positions: event.positions } }, effects: [] };
    case 'store-snapshot': {
      const entries = new Map(event.states.map((entry) => [scopeKey(entry.scope, entry.id), entry] as const));
      const limits = { ...state.limits, overrides: new Map(event.overrides) };
      return { state: { ...state, limits, states: { readable: true, entries } }, effects: [] };
    }
  }
}

/** The order side's event with its amounts parsed, or why it cannot be used. */
function bookEventOf(event: RiskOrderEvent): BookEvent | string {
  if (event.kind !== 'filled') return event;
  if (!isParsableDecimal(event.baseAmount) || !isParsableDecimal(event.quoteAmount)) {
    return 'filled without decimal baseAmount and quoteAmount';
  }
  return {
    kind: 'filled',
    orderId: event.orderId,
    baseAmount: parseDecimal(event.baseAmount, 'baseAmount'),
    quoteAmount: parseDecimal(event.quoteAmount, 'quoteAmount'),
  };
}
