/**
 * One withdrawal request's life as the gateway tracks it, pure: (record, event, env) → (record, effects).
 *
 *   SUBMITTING ──ack──▶ PENDING_APPROVAL ──list──▶ PENDING ──list──▶ PROCESSED | FAILED
 *       │                      └──cancel ack / list──▶ CANCELLED
 *       ├──refused (401/403/422, or not sent)──▶ REJECTED
 *       └──500 / timeout / restart──▶ UNKNOWN ──found in a list (by the requestId in clientComment)──▶ its state
 *                                        └──absent from every list for the settle time──▶ NOT_FOUND
 *
 * Further rows of the lists with the request's reference (the venue carried it out twice) are remembered in
 * `duplicates`, each logged and published once; the state still follows the one venue request tracked.
 *
 * Nothing here ever submits: a request is sent once, by the desk, right after its intent is stored; an
 * UNKNOWN request is settled only by the venue's lists.
 */
import {
  canFollowWithdrawalState,
  isFinalWithdrawalState,
  type WithdrawalRequestState,
  type WithdrawalView,
} from '#contracts';

export interface WithdrawalRecord {
  view: WithdrawalView;
  /** When the outcome became unknown (epoch ms). */
  unknownSince?: number;
  /** Consecutive full lists without it while UNKNOWN. */
  absentLists?: number;
  /** Cancels sent so far (each one's `cancel-requested` change gets its own message id). */
  cancelsSent?: number;
}

/** A row of the venue's lists that is this request's too, besides the one tracked. */
export interface DuplicateRow {
  venueUuid: string;
  amount?: string;
  state?: WithdrawalRequestState;
}

export type WithdrawalEvent =
  | { kind: 'submit-acknowledged'; venueUuid: string }
  | { kind: 'submit-refused'; code: string; message: string }
  | { kind: 'submit-unknown'; reason: string }
  | { kind: 'listed'; venueUuid: string; state: WithdrawalRequestState | undefined; lastUpdated?: string }
  | { kind: 'absent-from-list' }
  /** Rows of one list read carrying the request's reference and fields, besides the tracked one. */
  | { kind: 'duplicates-listed'; rows: DuplicateRow[] }
  | { kind: 'cancel-acknowledged' }
  | { kind: 'cancel-sent' }
  /** The venue answered the cancel with a refusal (409 not cancellable, 404, 401/403): nothing was cancelled. */
  | { kind: 'cancel-refused' };

export type WithdrawalEffect =
  | { kind: 'persist' }
  | { kind: 'publish'; previousState: WithdrawalRequestState | null; msgSuffix: string }
  | { kind: 'log-unknown'; reason: string }
  | { kind: 'log-settled-absent' }
  /** Rows not seen before: each one logged and counted once (it is persisted first). */
  | { kind: 'log-duplicated'; rows: DuplicateRow[] };

export interface WithdrawalEnv {
  now: number;
  /** An UNKNOWN request absent from the lists this long (and at least twice) is taken as never created. */
  unknownSettleMs: number;
}

export type WithdrawalTransition = { record: WithdrawalRecord; effects: WithdrawalEffect[] };

const NOTHING: WithdrawalEffect[] = [];

export function withdrawalTransition(
  record: WithdrawalRecord,
  event: WithdrawalEvent,
  env: WithdrawalEnv,
): WithdrawalTransition {
  const current = record.view.state;
  switch (event.kind) {
    case 'submit-acknowledged':
      return moveTo(record, 'PENDING_APPROVAL', env, { venueUuid: event.venueUuid });
    case 'submit-refused':
      if (current !== 'SUBMITTING') return { record, effects: NOTHING };
      return moveTo(record, 'REJECTED', env, { rejection: { code: event.code, message: event.message } });
    case 'submit-unknown':
      if (current !== 'SUBMITTING') return { record, effects: NOTHING };
      return becomeUnknown(record, event.reason, env);
    case 'listed': {
      const next = event.state;
      const learnt: Partial<WithdrawalView> = {
        ...(record.view.venueUuid === undefined ? { venueUuid: event.venueUuid } : {}),
        ...(event.lastUpdated !== undefined ? { venueLastUpdated: event.lastUpdated } : {}),
      };
      if (next !== undefined && next !== current && canFollowWithdrawalState(current, next)) {
        const { unknownSince: _u, absentLists: _a, ...settled } = record;
        return moveTo(settled, next, env, learnt);
      }
      if (learnt.venueUuid !== undefined) {
        // Found (its state as held): remember the venue's uuid, nothing to publish.
        return {
          record: { view: { ...record.view, ...learnt, updatedAt: env.now } },
          effects: [{ kind: 'persist' }],
        };
      }
      return { record, effects: NOTHING };
    }
    case 'absent-from-list': {
      // Lists reach a request only after its submit ended (one mailbox per request): still SUBMITTING, the
      // submit's result could not be stored — unknown, as after a restart mid-submit, and settled the same way.
      if (current === 'SUBMITTING') return becomeUnknown(record, 'the submit result was not stored', env);
      if (current !== 'UNKNOWN') return { record, effects: NOTHING };
      const absentLists = (record.absentLists ?? 0) + 1;
      const since = record.unknownSince ?? env.now;
      if (absentLists >= 2 && env.now - since >= env.unknownSettleMs) {
        const moved = moveTo({ view: record.view }, 'NOT_FOUND', env, {});
        return { record: moved.record, effects: [...moved.effects, { kind: 'log-settled-absent' }] };
      }
      return { record: { ...record, absentLists }, effects: NOTHING };
    }
    case 'duplicates-listed': {
      const known = new Set([...(record.view.duplicates ?? []), record.view.venueUuid]);
      const fresh: DuplicateRow[] = [];
      for (const row of event.rows) {
        if (known.has(row.venueUuid)) continue;
        known.add(row.venueUuid);
        fresh.push(row);
      }
      if (fresh.length === 0) return { record, effects: NOTHING };
      const duplicates = [...(record.view.duplicates ?? []), ...fresh.map((row) => row.venueUuid)];
      return {
        record: { ...record, view: { ...record.view, duplicates, updatedAt: env.now } },
        effects: [
          { kind: 'persist' },
          { kind: 'log-duplicated', rows: fresh },
          // the same state with more duplicates: its own message id, so a change is never published twice
          { kind: 'publish', previousState: current, msgSuffix: `duplicated-${duplicates.length}` },
        ],
      };
    }
    case 'cancel-sent': {
      if (record.view.cancelRequested || isFinalWithdrawalState(current)) return { record, effects: NOTHING };
      const cancelsSent = (record.cancelsSent ?? 0) + 1;
      const msgSuffix = cancelsSent === 1 ? 'cancel-requested' : `cancel-requested-${cancelsSent}`;
      return {
        record: { ...record, cancelsSent, view: { ...record.view, cancelRequested: true, updatedAt: env.now } },
        effects: [{ kind: 'persist' }, { kind: 'publish', previousState: current, msgSuffix }],
      };
    }
    case 'cancel-refused': {
      // The venue said no: the request stands as it was, no cancel is pending (a later list still moves it).
      if (record.view.cancelRequested !== true || isFinalWithdrawalState(current)) return { record, effects: NOTHING };
      const msgSuffix = `cancel-refused-${record.cancelsSent ?? 1}`;
      return {
        record: { ...record, view: { ...record.view, cancelRequested: false, updatedAt: env.now } },
        effects: [{ kind: 'persist' }, { kind: 'publish', previousState: current, msgSuffix }],
      };
    }
    case 'cancel-acknowledged':
      return moveTo(record, 'CANCELLED', env, { cancelRequested: true });
  }
}

function becomeUnknown(record: WithdrawalRecord, reason: string, env: WithdrawalEnv): WithdrawalTransition {
  const moved = moveTo({ ...record, unknownSince: env.now, absentLists: 0 }, 'UNKNOWN', env, {});
  return { record: moved.record, effects: [...moved.effects, { kind: 'log-unknown', reason }] };
}

function moveTo(
  record: WithdrawalRecord,
  next: WithdrawalRequestState,
  env: WithdrawalEnv,
  changes: Partial<WithdrawalView>,
): WithdrawalTransition {
  const current = record.view.state;
  if (!canFollowWithdrawalState(current, next)) return { record, effects: NOTHING };
  return {
    record: { ...record, view: { ...record.view, ...changes, state: next, updatedAt: env.now } },
    effects: [{ kind: 'persist' }, { kind: 'publish', previousState: current, msgSuffix: '' }],
  };
}
