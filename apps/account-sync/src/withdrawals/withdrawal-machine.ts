/**
 * One withdrawal request's life as the gateway tracks it, pure: (record, event, env) → (record, effects).
 *
 *   SUBMITTING ──ack──▶ PENDING_APPROVAL ──list──▶ PENDING ──list──▶ PROCESSED | FAILED
 *       │                      └──cancel ack / list──▶ CANCELLED
 *       ├──refused (401/403/422, or not sent)──▶ REJECTED ──401 only: found in a list, within the watch──▶ its state
 *       └──500 / timeout / restart──▶ UNKNOWN ──found in a list (by the requestId in clientComment)──▶ its state
 *                                        └──absent from every list for the settle time──▶ NOT_FOUND
 *
 * Further rows of the lists with the request's reference (the venue carried it out twice) are remembered in
 * `duplicates`, each logged and published once; the state still follows the one venue request tracked.
 *
 * A 401 is "not processed" (§5.5), but a venue that carried the request out and answered 401 anyway (to the send
 * and to the REST client's one re-send) leaves a request we report REJECTED while money moves: such a request is
 * watched for a while (`isWatched`), and a row with its reference and fields moves it to the venue's state, reported
 * once (`carriedOutAfterRejection`, stored first).
 *
 * Nothing here ever submits: a request is sent once, by the desk, by whoever creates its send mark (after its
 * intent is stored, right before the request leaves); an UNKNOWN request is settled only by the venue's lists.
 */
import {
  canFollowWithdrawalState,
  isFinalWithdrawalState,
  WithdrawalErrorCode,
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
  /** When it was REJECTED (epoch ms): a 401's watch runs from then (records of before: `view.updatedAt`). */
  rejectedAt?: number;
  /**
   * Its send is guarded by a send mark (`sent.{requestId}`, created right before the request leaves): while
   * SUBMITTING with no mark it was never sent, and the desk sends it. Records of before had no mark: one caught
   * SUBMITTING may have been sent, and is only looked up (UNKNOWN).
   */
  sendMarks?: true;
}

/** A row of the venue's lists that is this request's too, besides the one tracked. */
export interface DuplicateRow {
  venueUuid: string;
  amount?: string;
  state?: WithdrawalRequestState;
}

export type WithdrawalEvent =
  /** The venue's 2xx to the submit; no `venueUuid` when it named none (crypto, WD7: the lists tell it). */
  | { kind: 'submit-acknowledged'; venueUuid?: string }
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
  | { kind: 'log-duplicated'; rows: DuplicateRow[] }
  /** A request answered REJECTED on a 401 is in the venue's list after all: logged and counted once (persisted first). */
  | { kind: 'log-carried-out-after-rejection' };

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
      return moveTo(
        record,
        'PENDING_APPROVAL',
        env,
        event.venueUuid !== undefined ? { venueUuid: event.venueUuid } : {},
      );
    case 'submit-refused':
      if (current !== 'SUBMITTING') return { record, effects: NOTHING };
      return moveTo({ ...record, rejectedAt: env.now }, 'REJECTED', env, {
        rejection: { code: event.code, message: event.message },
      });
    case 'submit-unknown':
      if (current !== 'SUBMITTING') return { record, effects: NOTHING };
      return becomeUnknown(record, event.reason, env);
    case 'listed': {
      if (current === 'REJECTED') return foundAfterRejection(record, event, env);
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
          record: { ...markedOf(record), view: { ...record.view, ...learnt, updatedAt: env.now } },
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
        const moved = moveTo({ ...markedOf(record), view: record.view }, 'NOT_FOUND', env, {});
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

/**
 * A row of the venue's lists carries the reference and fields of a request answered REJECTED: only a 401 may have
 * hidden a request the venue created (any other refusal is the venue's own word that it was not). The first row
 * seen is the request's from then on (its uuid followed, a further one is a duplicate); it moves the request to
 * the state it shows, and is reported once: stored first, then logged and counted, then published. A row whose
 * state cannot be read is still reported (the request stays REJECTED, published as `…:carried-out`) and a later
 * read moves it.
 */
function foundAfterRejection(
  record: WithdrawalRecord,
  event: Extract<WithdrawalEvent, { kind: 'listed' }>,
  env: WithdrawalEnv,
): WithdrawalTransition {
  const view = record.view;
  if (!mayHaveBeenCarriedOut(view)) return { record, effects: NOTHING };
  const first = view.carriedOutAfterRejection === undefined;
  const next = event.state;
  const moves = next !== undefined && canFollowWithdrawalState(view.state, next);
  if (!first && !moves) return { record, effects: NOTHING };
  const updated: WithdrawalView = {
    ...view,
    venueUuid: view.venueUuid ?? event.venueUuid,
    ...(event.lastUpdated !== undefined ? { venueLastUpdated: event.lastUpdated } : {}),
    ...(first
      ? {
          carriedOutAfterRejection: {
            venueUuid: event.venueUuid,
            ...(next !== undefined ? { venueState: next } : {}),
            foundAt: env.now,
          },
        }
      : {}),
    ...(moves ? { state: next } : {}),
    updatedAt: env.now,
  };
  return {
    record: { ...record, view: updated },
    effects: [
      { kind: 'persist' },
      ...(first ? [{ kind: 'log-carried-out-after-rejection' } as const] : []),
      { kind: 'publish', previousState: view.state, msgSuffix: moves ? '' : 'carried-out' },
    ],
  };
}

/**
 * Whether the request's send mark (`sent.{requestId}`) can no longer decide anything, so it may be removed: its
 * record holds the venue's answer or a settled state — anything but SUBMITTING (only a SUBMITTING request is ever
 * sent, and no state goes back to it) and UNKNOWN (its mark kept until the lists settle it: a record lost meanwhile
 * and submitted again under its key still meets "may have left"). Records of before marks have none.
 */
export function sendMarkSpent(record: WithdrawalRecord): boolean {
  return record.sendMarks === true && record.view.state !== 'SUBMITTING' && record.view.state !== 'UNKNOWN';
}

/** REJECTED on a 401: the one refusal a venue may have carried out anyway (contrary to §5.5). */
export function mayHaveBeenCarriedOut(view: WithdrawalView): boolean {
  return view.state === 'REJECTED' && view.rejection?.code === WithdrawalErrorCode.Unauthorized;
}

export interface WatchEnv {
  now: number;
  /** How long a NOT_FOUND request is still looked for, from when it became NOT_FOUND. */
  notFoundWatchMs: number;
  /** How long a request REJECTED on a 401 is looked for, from its rejection. */
  rejectedWatchMs: number;
}

/**
 * Whether the venue's lists are read for this request: not final; NOT_FOUND within its watch; REJECTED on a 401
 * within its watch, or found in a list in a state not read yet (the venue holds it: followed until it shows one).
 */
export function isWatched(record: WithdrawalRecord, env: WatchEnv): boolean {
  const view = record.view;
  if (view.state === 'NOT_FOUND') return env.now - view.updatedAt < env.notFoundWatchMs;
  if (view.state === 'REJECTED') {
    if (!mayHaveBeenCarriedOut(view)) return false;
    if (view.carriedOutAfterRejection !== undefined) return true;
    return env.now - (record.rejectedAt ?? view.updatedAt) < env.rejectedWatchMs;
  }
  return !isFinalWithdrawalState(view.state);
}

/** What a record keeps when its bookkeeping is dropped: whether its send is guarded by a mark. */
function markedOf(record: WithdrawalRecord): Pick<WithdrawalRecord, 'sendMarks'> {
  return record.sendMarks === true ? { sendMarks: true } : {};
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
  // only the venue's list leaves REJECTED (foundAfterRejection): no late answer or cancel does
  if (current === 'REJECTED' || !canFollowWithdrawalState(current, next)) return { record, effects: NOTHING };
  return {
    record: { ...record, view: { ...record.view, ...changes, state: next, updatedAt: env.now } },
    effects: [{ kind: 'persist' }, { kind: 'publish', previousState: current, msgSuffix: '' }],
  };
}
