/**
 * One order's behaviour, as a pure transition `(state, event, env) → { state, effects }` (no I/O, no
 * timers, no clock reads): accepted → intent recorded (durable before anything leaves the process) → sent →
 * the venue's outcome (PENDING, UNKNOWN, INDETERMINATE) → one final state, SUCCESS or FAILED.
 *
 * Rules that protect money:
 *  - the command is published on `start`, the first event of an order accepted in this process's life, and once
 *    more when a resumed order (restart, takeover) is still INTENT_RECORDED and its command's `sendBy` (fixed at
 *    acceptance) has not passed — its publish may never have happened. That is safe: the same msgId (the stream
 *    deduplicates) and the connector's mark (a clientRequestId leaves at most once) make a repeat a no-op. Past its
 *    `sendBy` it is not published again (the mark of a send long ago may have aged out; only the venue's records
 *    settle it then), and a resumed order that was SENT is only reconciled;
 *  - statuses only climb the lattice of `libs/contracts/src/order-status.ts`; nothing follows a final state;
 *  - FAILED comes only from the venue (a refusal, its order-state record) or from proof that the order cannot
 *    have filled: its quote has expired and neither the order-state endpoint nor the trade list knows it;
 *  - the connector's chain (its outcome stream) is read first; the trade list by clientRef after that.
 */
import {
  canFollow,
  contradicts,
  ExecutionFailureCode,
  needsReconciliation,
  type EvidenceSource,
  type OrderEvent,
  type OrderFill,
  type OrderOutcome,
  type OrderOutcomeSource,
  type OrderOutcomeStatus,
  type OrderState,
} from '#contracts';
import { doublingDelay } from '#actors';
import type { OrderStateRecord, Trade } from '#venue-api';
import type { RiskOrderEvent } from '../risk/risk-gate.js';
import { fillFromOutcome, fillFromQuote, fillFromTrade } from './fill.js';
import { commandSendBy, isFinalState, viewOf, type OrderRecord } from './order-record.js';
import { finalRiskEvent } from './risk-restore.js';

export interface OrderTimings {
  /** First look at the venue's own records (trade list) this long after the order was sent (ms). */
  venueCheckAfterMs: number;
  /** Reconciliation ticks: first delay and cap of the doubling backoff (ms). */
  reconcileInitialMs: number;
  reconcileMaxMs: number;
  /** "Not executed" only this long after the quote's expiry (ms): bookings in flight at the expiry land first. */
  notExecutedGraceMs: number;
  /** Trade-list reads for the fill of a SUCCESS whose outcome carried no figures, before the quote's figures are used. */
  fillLookups: number;
  /** ORDER_SEND_DEADLINE_MS: with the quote's expiry and the algo's own, when a command may leave (commandSendBy). */
  sendDeadlineMs: number;
}

export interface OrderEnv {
  now: number;
  timings: OrderTimings;
}

/** What the venue's records said, or that they could not be read. */
export interface VenueEvidence {
  /** Records of the order-state endpoint, `undefined` when not asked, `'unreachable'` when the call failed. */
  orderState?: OrderStateRecord[] | 'unreachable';
  trades?: Trade[] | 'unreachable';
}

export interface OrderMachineState {
  record: OrderRecord;
  /** Reconciliation: ticks so far and whether one venue check succeeded since this actor started. */
  ticks: number;
  venueChecked: boolean;
  /** A SUCCESS whose figures are looked up in the trade list before the order is final. */
  awaitingFill?: { evidence: EvidenceSource; lookups: number; code: string; message: string };
  /** Ownership lost (a compare-and-set failed): the actor does nothing more. */
  fenced: boolean;
  /** When the venue query in flight was asked (one at a time: the REST budget is shared by every order). */
  queryingSince?: number;
}

/** A venue query not answered this long is taken as lost: the next tick asks again. */
const QUERY_LOST_AFTER_MS = 30_000;

export type OrderMachineEvent =
  | { type: 'start' }
  | { type: 'resume' }
  | { type: 'command-published' }
  | { type: 'command-failed' }
  | { type: 'outcome'; outcome: OrderOutcome }
  | { type: 'reconcile-due' }
  | { type: 'venue-evidence'; evidence: VenueEvidence }
  | { type: 'fenced' };

export type OrderEffect =
  | { type: 'publish-command' }
  | { type: 'persist'; record: OrderRecord }
  | { type: 'emit'; event: OrderEvent; msgId: string }
  | { type: 'risk'; event: RiskOrderEvent }
  | { type: 'apply-position'; fill: OrderFill }
  | { type: 'close' }
  | { type: 'read-outcome' }
  | { type: 'query-venue'; orderState: boolean; trades: boolean }
  | { type: 'schedule'; delayMs: number }
  /** Venue evidence contradicting the final state decided: never applied, counted and logged. */
  | ({ type: 'contradiction' } & Contradiction);

/** Where the contradicting evidence came from: a connector outcome's source, or the trade list. */
export type ContradictionSource = OrderOutcomeSource | 'trade-list';
export const CONTRADICTION_SOURCES: readonly ContradictionSource[] = [
  'reply',
  'redelivery',
  'order-state',
  'gateway',
  'trade-list',
];

export interface Contradiction {
  kept: OrderOutcomeStatus;
  status: OrderOutcomeStatus;
  source: ContradictionSource;
}

type Result = { state: OrderMachineState; effects: OrderEffect[] };

export function initialOrderState(record: OrderRecord): OrderMachineState {
  return { record, ticks: 0, venueChecked: false, fenced: false };
}

export function orderTransition(state: OrderMachineState, event: OrderMachineEvent, env: OrderEnv): Result {
  if (state.fenced) return { state, effects: [] };
  switch (event.type) {
    case 'fenced':
      return { state: { ...state, fenced: true }, effects: [] };
    case 'start':
      // The command first (the latency path); the intent's event follows (the intent is already durable).
      return { state, effects: [{ type: 'publish-command' }, ...announce(state.record)] };
    case 'resume':
      return resume(state, env);
    case 'command-published':
      return commandPublished(state, env);
    case 'command-failed':
      // Maybe stored, maybe not: never published again; reconciliation settles it (the quote's expiry at worst).
      return { state, effects: [schedule(state, env)] };
    case 'outcome':
      return applyOutcome(state, event.outcome, env);
    case 'reconcile-due':
      return reconcileDue(state, env);
    case 'venue-evidence':
      return applyEvidence(state, event.evidence, env);
  }
}

function announce(record: OrderRecord): OrderEffect[] {
  return [emit(record)];
}

function emit(record: OrderRecord): OrderEffect {
  const event: OrderEvent = { v: 1, seq: record.eventSeq, at: record.updatedAt, order: viewOf(record) };
  const msgId = isFinalState(record.state) ? `${record.orderId}:final` : `${record.orderId}:${record.state}`;
  return { type: 'emit', event, msgId };
}

/** A new state: persisted first (fenced by compare-and-set), then announced. */
function enter(
  record: OrderRecord,
  changes: Partial<OrderRecord>,
  now: number,
): { record: OrderRecord; effects: OrderEffect[] } {
  const next: OrderRecord = { ...record, ...changes, updatedAt: now, eventSeq: record.eventSeq + 1 };
  return { record: next, effects: [{ type: 'persist', record: next }, emit(next)] };
}

function resume(state: OrderMachineState, env: OrderEnv): Result {
  const { record } = state;
  if (isFinalState(record.state)) {
    // Final in the journal but still open: the crash came before the event, position or close. Redo them
    // (the event's msgId and the position's order list make each happen once).
    return { state, effects: [emit(record), ...finalEffects(record)] };
  }
  // Announce the current state again (deduplicated by msgId if it was published), read the connector's
  // chain, and check the venue at once: a restarted instance must know where every order stands. An intent whose
  // command may never have been published is published (again): it leaves in time, or is refused unsent at once,
  // rather than waiting for its quote to expire.
  const sendable = record.state === 'INTENT_RECORDED' && env.now < commandSendBy(record, env.timings.sendDeadlineMs);
  const effects: OrderEffect[] = [
    ...(sendable ? [{ type: 'publish-command' } as const] : []),
    emit(record),
    { type: 'read-outcome' },
  ];
  if (record.state === 'UNKNOWN' || record.state === 'INDETERMINATE')
    effects.push({ type: 'risk', event: { kind: 'unknown', orderId: record.orderId } });
  effects.push(venueQuery(record, env), schedule(state, env));
  return { state: { ...state, queryingSince: env.now }, effects };
}

function commandPublished(state: OrderMachineState, env: OrderEnv): Result {
  const { record } = state;
  if (record.state !== 'INTENT_RECORDED') {
    // An outcome overtook the publish ack: it already moved the order on (and passed through SENT). The
    // reconciliation timer starts here all the same — no outcome starts it, and nothing else would.
    return { state, effects: isFinalState(record.state) ? [] : [schedule(state, env)] };
  }
  const entered = enter(record, { state: 'SENT', sentAt: env.now }, env.now);
  return { state: { ...state, record: entered.record }, effects: [...entered.effects, schedule(state, env)] };
}

const STATE_OF: Record<OrderOutcomeStatus, OrderState> = {
  PENDING: 'PENDING',
  UNKNOWN: 'UNKNOWN',
  INDETERMINATE: 'INDETERMINATE',
  SUCCESS: 'SUCCESS',
  FAILED: 'FAILED',
};

/** The final status decided for the order (stored, or a SUCCESS whose figures are being looked up). */
function decided(state: OrderMachineState): OrderOutcomeStatus | undefined {
  if (state.awaitingFill !== undefined) return 'SUCCESS';
  return isFinalState(state.record.state) ? state.record.status : undefined;
}

/** Evidence after the order's final state was decided: nothing changes; a contradiction is reported. */
function afterDecided(state: OrderMachineState, status: OrderOutcomeStatus, source: ContradictionSource): Result {
  const kept = decided(state);
  if (kept === undefined || !contradicts(kept, status)) return { state, effects: [] };
  return { state, effects: [{ type: 'contradiction', kept, status, source }] };
}

function applyOutcome(state: OrderMachineState, outcome: OrderOutcome, env: OrderEnv): Result {
  let { record } = state;
  if (outcome.clientRequestId !== record.clientRequestId) return { state, effects: [] };
  if (decided(state) !== undefined) return afterDecided(state, outcome.status, outcome.source);
  if (!canFollow(record.status, outcome.status)) return { state, effects: [] };
  const effects: OrderEffect[] = [];
  if (record.state === 'INTENT_RECORDED') {
    // The outcome proves the command reached the connector: the order passed through SENT.
    const sent = enter(record, { state: 'SENT', sentAt: record.sentAt ?? env.now }, env.now);
    record = sent.record;
    effects.push(...sent.effects);
  }
  const evidence = outcome.source;
  if (outcome.status === 'SUCCESS') {
    const fill = fillFromOutcome(record, outcome);
    if (fill === undefined) {
      // The reply carried no figures (a minimal reply): read them from the trade list before the final state.
      const awaiting = { evidence, lookups: 0, code: outcome.code, message: outcome.message };
      return {
        state: { ...state, record, awaitingFill: awaiting, queryingSince: env.now },
        effects: [...effects, { type: 'query-venue', orderState: false, trades: true }],
      };
    }
    return finish(
      { ...state, record },
      effects,
      { status: 'SUCCESS', fill, evidence, code: outcome.code, message: outcome.message },
      env,
    );
  }
  if (outcome.status === 'FAILED') {
    return finish(
      { ...state, record },
      effects,
      { status: 'FAILED', evidence, code: outcome.code || ExecutionFailureCode.Failed, message: outcome.message },
      env,
    );
  }
  const unresolved = needsReconciliation(outcome.status);
  const entered = enter(
    record,
    {
      state: STATE_OF[outcome.status],
      status: outcome.status,
      evidence,
      ...(outcome.code ? { code: outcome.code } : {}),
      ...(outcome.message ? { message: outcome.message } : {}),
      ...(unresolved && record.unresolvedSince === undefined ? { unresolvedSince: env.now } : {}),
      ...(outcome.status === 'PENDING' || outcome.status === 'INDETERMINATE' ? { venueSeen: true as const } : {}),
    },
    env.now,
  );
  effects.push(...entered.effects);
  if (unresolved) effects.push({ type: 'risk', event: { kind: 'unknown', orderId: record.orderId } });
  return { state: { ...state, record: entered.record }, effects };
}

interface Conclusion {
  status: 'SUCCESS' | 'FAILED';
  evidence: EvidenceSource;
  code: string;
  message: string;
  fill?: OrderFill;
}

function finish(state: OrderMachineState, before: OrderEffect[], conclusion: Conclusion, env: OrderEnv): Result {
  const { record } = state;
  const { unresolvedSince: _unresolved, ...rest } = record;
  const entered = enter(
    rest,
    {
      state: conclusion.status,
      status: conclusion.status,
      evidence: conclusion.evidence,
      code: conclusion.code,
      message: conclusion.message,
      ...(conclusion.fill !== undefined ? { fill: conclusion.fill } : {}),
    },
    env.now,
  );
  const { awaitingFill: _awaiting, ...next } = state;
  return {
    state: { ...next, record: entered.record },
    effects: [...before, ...entered.effects, ...finalEffects(entered.record)],
  };
}

/** After the final state is stored and announced: tell risk, apply the fill to the strategy's position, close. */
function finalEffects(record: OrderRecord): OrderEffect[] {
  const effects: OrderEffect[] = [{ type: 'risk', event: finalRiskEvent(record) }];
  if (record.state === 'SUCCESS' && record.fill !== undefined)
    effects.push({ type: 'apply-position', fill: record.fill });
  effects.push({ type: 'close' });
  return effects;
}

function reconcileDue(state: OrderMachineState, env: OrderEnv): Result {
  const { record } = state;
  if (isFinalState(record.state)) return { state, effects: [] };
  let next: OrderMachineState = { ...state, ticks: state.ticks + 1 };
  // One venue query at a time: ticks that come while one is in flight do not queue more behind the budget.
  const asking = state.queryingSince === undefined || env.now - state.queryingSince >= QUERY_LOST_AFTER_MS;
  if (state.awaitingFill !== undefined) {
    if (!asking) return { state: next, effects: [schedule(next, env)] };
    next = { ...next, queryingSince: env.now };
    return { state: next, effects: [{ type: 'query-venue', orderState: false, trades: true }, schedule(next, env)] };
  }
  const effects: OrderEffect[] = [{ type: 'read-outcome' }];
  const sinceSent = env.now - (record.sentAt ?? record.acceptedAt);
  if (asking && (needsReconciliation(record.status ?? 'PENDING') || sinceSent >= env.timings.venueCheckAfterMs)) {
    effects.push(venueQuery(record, env));
    next = { ...next, queryingSince: env.now };
  }
  effects.push(schedule(next, env));
  return { state: next, effects };
}

/** The trade list always; the order-state endpoint too once the quote has expired (the "not executed" proof needs both). */
function venueQuery(record: OrderRecord, env: OrderEnv): OrderEffect {
  return { type: 'query-venue', orderState: quoteGone(record, env), trades: true };
}

function quoteGone(record: OrderRecord, env: OrderEnv): boolean {
  return env.now >= record.quote.quoteExpiresAt + env.timings.notExecutedGraceMs;
}

/**
 * The next tick: after the backoff, but no later than the moment the quote's expiry (+ grace) makes "not executed"
 * provable and the order-state endpoint joins the read — an order the venue never had settles then, not up to a
 * whole `reconcileMaxMs` after the proof was there to be read.
 */
function schedule(state: OrderMachineState, env: OrderEnv): OrderEffect {
  const { reconcileInitialMs: initialMs, reconcileMaxMs: maxMs } = env.timings;
  const backoff = doublingDelay(state.ticks, { initialMs, maxMs });
  const untilProvable = state.record.quote.quoteExpiresAt + env.timings.notExecutedGraceMs - env.now;
  // past (or unreadable, NaN): the backoff alone — never a timer of 0 or NaN ms, which would tick without pause
  if (!(untilProvable > 0)) return { type: 'schedule', delayMs: backoff };
  return { type: 'schedule', delayMs: Math.min(backoff, untilProvable) };
}

function applyEvidence(state: OrderMachineState, evidence: VenueEvidence, env: OrderEnv): Result {
  const { record } = state;
  const trades = Array.isArray(evidence.trades) ? evidence.trades : [];
  const trade = trades.find((t) => t.clientRef === record.clientRequestId);
  if (isFinalState(record.state))
    return trade === undefined ? { state, effects: [] } : afterDecided(state, 'SUCCESS', 'trade-list');
  const reachable = evidence.orderState !== 'unreachable' && evidence.trades !== 'unreachable';
  // A trade found settles the order whatever the order-state read did; only "not executed" needs both sources.
  const { queryingSince: _answered, ...rest } = state;
  const checked = { ...rest, venueChecked: state.venueChecked || reachable || trade !== undefined };
  if (!reachable && trade === undefined) {
    // The venue could not be read: ask again soon (not after the backoff), the order is still unsettled.
    return { state: checked, effects: [{ type: 'schedule', delayMs: env.timings.reconcileInitialMs }] };
  }

  if (state.awaitingFill !== undefined) {
    const awaiting = state.awaitingFill;
    const fill = trade !== undefined ? fillFromTrade(record, trade) : undefined;
    const lookups = awaiting.lookups + 1;
    if (fill !== undefined || lookups >= env.timings.fillLookups) {
      const figures = fill ?? fillFromQuote(record);
      return finish(
        checked,
        [],
        {
          status: 'SUCCESS',
          evidence: awaiting.evidence,
          code: awaiting.code,
          message: awaiting.message,
          ...(figures ? { fill: figures } : {}),
        },
        env,
      );
    }
    return { state: { ...checked, awaitingFill: { ...awaiting, lookups } }, effects: [] };
  }

  if (trade !== undefined) {
    const fill = fillFromTrade(record, trade) ?? fillFromQuote(record);
    return finish(
      checked,
      [],
      {
        status: 'SUCCESS',
        evidence: 'trade-list',
        code: '',
        message: `trade ${trade.tradeRef ?? trade.uuid}`,
        ...(fill ? { fill } : {}),
      },
      env,
    );
  }
  const records = Array.isArray(evidence.orderState) ? evidence.orderState : undefined;
  const best = records === undefined ? undefined : settledBy(records.map((r) => r.orderStatus));
  if (best === 'FAILED') {
    const failed = records?.find((r) => r.orderStatus === 'FAILED');
    return finish(
      checked,
      [],
      {
        status: 'FAILED',
        evidence: 'order-state',
        code: failed?.code || ExecutionFailureCode.Failed,
        message: failed?.message ?? '',
      },
      env,
    );
  }
  if (best === 'SUCCESS') {
    // Filled, by the venue's word; the figures come from the trade list (or the quote) once it lists the trade.
    return {
      state: {
        ...checked,
        awaitingFill: { evidence: 'order-state', lookups: 0, code: '', message: '' },
        queryingSince: env.now,
      },
      effects: [{ type: 'query-venue', orderState: false, trades: true }],
    };
  }
  if (
    records !== undefined &&
    records.length === 0 &&
    Array.isArray(evidence.trades) &&
    quoteGone(record, env) &&
    record.venueSeen === undefined &&
    record.status !== 'INDETERMINATE'
  ) {
    // The venue's own records prove it: the quote expired (no order can execute on it any more), the
    // order-state endpoint does not know the order and the trade list holds no trade with its clientRef —
    // for an order the venue never showed it knew (§4.10: an empty array is no proof once it had listed it).
    return finish(
      checked,
      [],
      {
        status: 'FAILED',
        evidence: 'quote-expired-unknown-to-venue',
        code: ExecutionFailureCode.NotExecuted,
        message: 'quote expired; unknown to the order-state endpoint and the trade list',
      },
      env,
    );
  }
  return { state: checked, effects: [] };
}

/**
 * What the order-state records say together (the id may be reused, §4.10, so they may be several orders'):
 * FAILED only when every record says so; SUCCESS when one does and none says FAILED; records that disagree on
 * the outcome settle nothing (the trade list decides); otherwise the highest status.
 */
function settledBy(statuses: OrderOutcomeStatus[]): OrderOutcomeStatus | undefined {
  if (statuses.length > 0 && statuses.every((status) => status === 'FAILED')) return 'FAILED';
  if (statuses.includes('SUCCESS')) return statuses.includes('FAILED') ? undefined : 'SUCCESS';
  let best: OrderOutcomeStatus | undefined;
  for (const status of statuses) {
    if (status === 'FAILED') continue;
    if (best === undefined || canFollow(best, status)) best = status;
  }
  return best;
}
