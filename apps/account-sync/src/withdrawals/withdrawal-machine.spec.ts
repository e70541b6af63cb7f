import { describe, expect, it } from '@jest/globals';
import type { WithdrawalView } from '#contracts';
import { isWatched, sendMarkSpent, withdrawalTransition, type WithdrawalRecord } from './withdrawal-machine.js';

const env = { now: 1_000, unknownSettleMs: 60_000 };

function record(state: WithdrawalView['state'], extra: Partial<WithdrawalView> = {}): WithdrawalRecord {
  return {
    view: {
      requestId: 'abc',
      idempotencyKey: 'k1',
      kind: 'fiat',
      state,
      accountGroupUuid: 'g',
      ccy: 'USD',
      amount: '10.00',
      bankAccountUuid: 'b',
      createdAt: 0,
      updatedAt: 0,
      ...extra,
    },
  };
}

describe('withdrawalTransition', () => {
  it('an acknowledged submit is PENDING_APPROVAL with the venue uuid, persisted then published', () => {
    const next = withdrawalTransition(record('SUBMITTING'), { kind: 'submit-acknowledged', venueUuid: 'v1' }, env);
    expect(next.record.view).toMatchObject({ state: 'PENDING_APPROVAL', venueUuid: 'v1', updatedAt: 1_000 });
    expect(next.effects).toEqual([
      { kind: 'persist' },
      { kind: 'publish', previousState: 'SUBMITTING', msgSuffix: '' },
    ]);
  });

  it('a submit acknowledged without uuid (crypto: answer not shown, WD7) is PENDING_APPROVAL; the list tells its uuid', () => {
    const acked = withdrawalTransition(record('SUBMITTING', { kind: 'crypto' }), { kind: 'submit-acknowledged' }, env);
    expect(acked.record.view.state).toBe('PENDING_APPROVAL');
    expect(acked.record.view.venueUuid).toBeUndefined();
    expect(acked.effects).toEqual([
      { kind: 'persist' },
      { kind: 'publish', previousState: 'SUBMITTING', msgSuffix: '' },
    ]);
    // not shown by a list yet: it stays as the venue acknowledged it, never taken as absent (only UNKNOWN is)
    const absent = withdrawalTransition(acked.record, { kind: 'absent-from-list' }, { ...env, now: 1_000_000 });
    expect(absent.effects).toEqual([]);
    const found = withdrawalTransition(
      acked.record,
      { kind: 'listed', venueUuid: 'v7', state: 'PENDING_APPROVAL' },
      { ...env, now: 2_000 },
    );
    expect(found.record.view).toMatchObject({ state: 'PENDING_APPROVAL', venueUuid: 'v7' });
    expect(found.effects).toEqual([{ kind: 'persist' }]);
  });

  it('a refused submit is REJECTED with its code; a refusal after anything else changes nothing', () => {
    const refused = withdrawalTransition(
      record('SUBMITTING'),
      { kind: 'submit-refused', code: 'INSUFFICIENT_FUNDS', message: 'Insufficient funds' },
      env,
    );
    expect(refused.record.view.state).toBe('REJECTED');
    expect(refused.record.view.rejection).toEqual({ code: 'INSUFFICIENT_FUNDS', message: 'Insufficient funds' });
    const late = withdrawalTransition(
      record('PENDING_APPROVAL'),
      { kind: 'submit-refused', code: 'x', message: 'y' },
      env,
    );
    expect(late.effects).toEqual([]);
  });

  it('an undefined outcome is UNKNOWN until a list shows the request (found by its id)', () => {
    const unknown = withdrawalTransition(record('SUBMITTING'), { kind: 'submit-unknown', reason: 'HTTP 500' }, env);
    expect(unknown.record.view.state).toBe('UNKNOWN');
    expect(unknown.record.unknownSince).toBe(1_000);
    const found = withdrawalTransition(
      unknown.record,
      { kind: 'listed', venueUuid: 'v9', state: 'PENDING_APPROVAL' },
      { ...env, now: 2_000 },
    );
    expect(found.record.view).toMatchObject({ state: 'PENDING_APPROVAL', venueUuid: 'v9' });
    expect(found.record.unknownSince).toBeUndefined();
  });

  it('an UNKNOWN request absent from two lists over the settle time is NOT_FOUND; a later sighting still counts', () => {
    const unknown = withdrawalTransition(record('SUBMITTING'), { kind: 'submit-unknown', reason: '500' }, env).record;
    const once = withdrawalTransition(unknown, { kind: 'absent-from-list' }, { ...env, now: 70_000 });
    expect(once.record.view.state).toBe('UNKNOWN');
    const early = withdrawalTransition(unknown, { kind: 'absent-from-list' }, { ...env, now: 2_000 });
    const earlyTwice = withdrawalTransition(early.record, { kind: 'absent-from-list' }, { ...env, now: 3_000 });
    expect(earlyTwice.record.view.state).toBe('UNKNOWN');
    const twice = withdrawalTransition(once.record, { kind: 'absent-from-list' }, { ...env, now: 75_000 });
    expect(twice.record.view.state).toBe('NOT_FOUND');
    const late = withdrawalTransition(twice.record, { kind: 'listed', venueUuid: 'v', state: 'PENDING' }, env);
    expect(late.record.view.state).toBe('PENDING');
  });

  it('a request still SUBMITTING when a list is applied (its submit result was not stored) is UNKNOWN, then settles', () => {
    // Polls reach a request through its mailbox only after its submit ended: SUBMITTING then means the result
    // (an acknowledgement, a refusal, an unknown outcome) could not be stored, as after a restart mid-submit.
    const unknown = withdrawalTransition(record('SUBMITTING'), { kind: 'absent-from-list' }, env);
    expect(unknown.record).toMatchObject({ view: { state: 'UNKNOWN' }, unknownSince: 1_000, absentLists: 0 });
    expect(unknown.effects).toContainEqual({ kind: 'persist' });
    expect(unknown.effects).toContainEqual(expect.objectContaining({ kind: 'log-unknown' }));
    const once = withdrawalTransition(unknown.record, { kind: 'absent-from-list' }, { ...env, now: 30_000 });
    const twice = withdrawalTransition(once.record, { kind: 'absent-from-list' }, { ...env, now: 70_000 });
    expect(twice.record.view.state).toBe('NOT_FOUND');
  });

  it('moves only forward with the lists: PENDING → PROCESSED, never back to PENDING_APPROVAL', () => {
    const pending = record('PENDING', { venueUuid: 'v1' });
    expect(
      withdrawalTransition(pending, { kind: 'listed', venueUuid: 'v1', state: 'PENDING_APPROVAL' }, env).effects,
    ).toEqual([]);
    const processed = withdrawalTransition(pending, { kind: 'listed', venueUuid: 'v1', state: 'PROCESSED' }, env);
    expect(processed.record.view.state).toBe('PROCESSED');
    expect(
      withdrawalTransition(processed.record, { kind: 'listed', venueUuid: 'v1', state: 'FAILED' }, env).effects,
    ).toEqual([]);
  });

  it('a cancel acknowledged by the venue is CANCELLED; a cancel in flight is published once as requested', () => {
    const open = record('PENDING_APPROVAL', { venueUuid: 'v1' });
    const sent = withdrawalTransition(open, { kind: 'cancel-sent' }, env);
    expect(sent.record.view.cancelRequested).toBe(true);
    expect(sent.effects).toContainEqual({
      kind: 'publish',
      previousState: 'PENDING_APPROVAL',
      msgSuffix: 'cancel-requested',
    });
    expect(withdrawalTransition(sent.record, { kind: 'cancel-sent' }, env).effects).toEqual([]);
    const cancelled = withdrawalTransition(sent.record, { kind: 'cancel-acknowledged' }, env);
    expect(cancelled.record.view.state).toBe('CANCELLED');
  });

  it('a refused cancel clears the request; a second cancel is published under its own message id', () => {
    const open = record('PENDING', { venueUuid: 'v1' });
    const sent = withdrawalTransition(open, { kind: 'cancel-sent' }, env);
    const refused = withdrawalTransition(sent.record, { kind: 'cancel-refused' }, env);
    expect(refused.record.view).toMatchObject({ state: 'PENDING', cancelRequested: false });
    expect(refused.effects).toEqual([
      { kind: 'persist' },
      { kind: 'publish', previousState: 'PENDING', msgSuffix: 'cancel-refused-1' },
    ]);
    expect(withdrawalTransition(refused.record, { kind: 'cancel-refused' }, env).effects).toEqual([]);
    const again = withdrawalTransition(refused.record, { kind: 'cancel-sent' }, env);
    expect(again.record.view.cancelRequested).toBe(true);
    expect(again.effects).toContainEqual({
      kind: 'publish',
      previousState: 'PENDING',
      msgSuffix: 'cancel-requested-2',
    });
    const refusedAgain = withdrawalTransition(again.record, { kind: 'cancel-refused' }, env);
    expect(refusedAgain.effects).toContainEqual({
      kind: 'publish',
      previousState: 'PENDING',
      msgSuffix: 'cancel-refused-2',
    });
  });

  it('a refusal after the request ended changes nothing', () => {
    const cancelled = record('CANCELLED', { venueUuid: 'v1', cancelRequested: true });
    expect(withdrawalTransition(cancelled, { kind: 'cancel-refused' }, env).effects).toEqual([]);
  });

  it('a duplicate row is remembered, logged and published once; the state still follows the tracked request', () => {
    const held = record('PENDING_APPROVAL', { venueUuid: 'v1' });
    const first = withdrawalTransition(
      held,
      { kind: 'duplicates-listed', rows: [{ venueUuid: 'v2', amount: '10.00', state: 'PENDING_APPROVAL' }] },
      env,
    );
    expect(first.record.view).toMatchObject({ state: 'PENDING_APPROVAL', venueUuid: 'v1', duplicates: ['v2'] });
    expect(first.effects).toEqual([
      { kind: 'persist' },
      { kind: 'log-duplicated', rows: [{ venueUuid: 'v2', amount: '10.00', state: 'PENDING_APPROVAL' }] },
      { kind: 'publish', previousState: 'PENDING_APPROVAL', msgSuffix: 'duplicated-1' },
    ]);
    // read again by the next poll (and the tracked row, or the same row twice): nothing
    const again = withdrawalTransition(
      first.record,
      { kind: 'duplicates-listed', rows: [{ venueUuid: 'v2' }, { venueUuid: 'v1' }] },
      { ...env, now: 2_000 },
    );
    expect(again).toEqual({ record: first.record, effects: [] });
    // a third request with the reference: only it is new
    const third = withdrawalTransition(
      first.record,
      { kind: 'duplicates-listed', rows: [{ venueUuid: 'v2' }, { venueUuid: 'v3' }, { venueUuid: 'v3' }] },
      env,
    );
    expect(third.record.view.duplicates).toEqual(['v2', 'v3']);
    expect(third.effects).toContainEqual({ kind: 'log-duplicated', rows: [{ venueUuid: 'v3' }] });
    expect(third.effects).toContainEqual({
      kind: 'publish',
      previousState: 'PENDING_APPROVAL',
      msgSuffix: 'duplicated-2',
    });
    // the tracked request moves on with its duplicates kept
    const moved = withdrawalTransition(third.record, { kind: 'listed', venueUuid: 'v1', state: 'PENDING' }, env);
    expect(moved.record.view).toMatchObject({ state: 'PENDING', venueUuid: 'v1', duplicates: ['v2', 'v3'] });
  });
});

describe('a request answered REJECTED on a 401 that the venue carried out (contrary to §5.5)', () => {
  const DAY = 24 * 3_600_000;
  const watch = { now: 1_000, notFoundWatchMs: 7 * DAY, rejectedWatchMs: 7 * DAY };
  const unauthorized = { code: 'VENUE_UNAUTHORIZED', message: 'Unauthorized' };
  const rejectedOn401 = (): WithdrawalRecord =>
    withdrawalTransition(record('SUBMITTING'), { kind: 'submit-refused', ...unauthorized }, env).record;

  it('is watched from its rejection for the watch time; any other refusal is not watched at all', () => {
    const rejected = rejectedOn401();
    expect(rejected.rejectedAt).toBe(1_000);
    expect(isWatched(rejected, { ...watch, now: 1_000 + 7 * DAY - 1 })).toBe(true);
    expect(isWatched(rejected, { ...watch, now: 1_000 + 7 * DAY })).toBe(false);
    expect(isWatched(rejected, { ...watch, rejectedWatchMs: 0 })).toBe(false);
    // a record of before the watch existed: from its last change
    const { rejectedAt: _r, ...older } = rejected;
    expect(isWatched(older, { ...watch, now: 1_000 + DAY })).toBe(true);
    for (const code of ['VENUE_FORBIDDEN', 'INSUFFICIENT_FUNDS', 'VENUE_REJECTED', 'INVALID_REQUEST']) {
      const refused = withdrawalTransition(record('SUBMITTING'), { kind: 'submit-refused', code, message: 'no' }, env);
      expect(isWatched(refused.record, watch)).toBe(false);
    }
    // the other states as before
    expect(isWatched(record('PENDING'), watch)).toBe(true);
    expect(isWatched(record('PROCESSED'), watch)).toBe(false);
    expect(isWatched(record('NOT_FOUND'), { ...watch, now: 7 * DAY - 1 })).toBe(true);
    expect(isWatched(record('NOT_FOUND'), { ...watch, now: 7 * DAY })).toBe(false);
  });

  it("moves to the venue's state when a list shows it: stored, reported once, then published", () => {
    const found = withdrawalTransition(
      rejectedOn401(),
      { kind: 'listed', venueUuid: 'v1', state: 'PENDING_APPROVAL', lastUpdated: 't1' },
      { ...env, now: 5_000 },
    );
    expect(found.record.view).toMatchObject({
      state: 'PENDING_APPROVAL',
      venueUuid: 'v1',
      venueLastUpdated: 't1',
      rejection: unauthorized,
      carriedOutAfterRejection: { venueUuid: 'v1', venueState: 'PENDING_APPROVAL', foundAt: 5_000 },
    });
    expect(found.effects).toEqual([
      { kind: 'persist' },
      { kind: 'log-carried-out-after-rejection' },
      { kind: 'publish', previousState: 'REJECTED', msgSuffix: '' },
    ]);
    // followed from then on like any request, never reported again
    const next = withdrawalTransition(found.record, { kind: 'listed', venueUuid: 'v1', state: 'PROCESSED' }, env);
    expect(next.record.view.state).toBe('PROCESSED');
    expect(next.record.view.carriedOutAfterRejection).toEqual(found.record.view.carriedOutAfterRejection);
    expect(next.effects.map((effect) => effect.kind)).toEqual(['persist', 'publish']);
    expect(
      withdrawalTransition(found.record, { kind: 'listed', venueUuid: 'v1', state: 'PENDING_APPROVAL' }, env),
    ).toEqual({ record: found.record, effects: [] });
  });

  it('a row whose state cannot be read is reported at once (still REJECTED); a later read moves it, not reported again', () => {
    const found = withdrawalTransition(rejectedOn401(), { kind: 'listed', venueUuid: 'v1', state: undefined }, env);
    expect(found.record.view).toMatchObject({
      state: 'REJECTED',
      venueUuid: 'v1',
      carriedOutAfterRejection: { venueUuid: 'v1', foundAt: 1_000 },
    });
    expect(found.effects).toEqual([
      { kind: 'persist' },
      { kind: 'log-carried-out-after-rejection' },
      { kind: 'publish', previousState: 'REJECTED', msgSuffix: 'carried-out' },
    ]);
    // the venue holds it: watched past the watch time, until it shows a state
    expect(isWatched(found.record, { ...watch, now: 30 * 24 * 3_600_000 })).toBe(true);
    expect(
      withdrawalTransition(found.record, { kind: 'listed', venueUuid: 'v1', state: undefined }, env).effects,
    ).toEqual([]);
    const moved = withdrawalTransition(found.record, { kind: 'listed', venueUuid: 'v1', state: 'PENDING' }, env);
    expect(moved.record.view.state).toBe('PENDING');
    expect(moved.effects).toEqual([{ kind: 'persist' }, { kind: 'publish', previousState: 'REJECTED', msgSuffix: '' }]);
  });

  it('any other rejection is the venue’s word: a listed row changes nothing; no late answer or cancel leaves REJECTED', () => {
    const forbidden = record('REJECTED', { rejection: { code: 'VENUE_FORBIDDEN', message: 'no' } });
    expect(withdrawalTransition(forbidden, { kind: 'listed', venueUuid: 'v1', state: 'PENDING' }, env).effects).toEqual(
      [],
    );
    const rejected = rejectedOn401();
    for (const event of [
      { kind: 'submit-acknowledged', venueUuid: 'v1' },
      { kind: 'cancel-acknowledged' },
      { kind: 'absent-from-list' },
    ] as const) {
      expect(withdrawalTransition(rejected, event, env).effects).toEqual([]);
    }
  });
});

describe('sendMarkSpent: when a send mark can no longer decide anything (and is removed)', () => {
  const marked = (state: WithdrawalView['state'], extra: Partial<WithdrawalView> = {}): WithdrawalRecord => ({
    ...record(state, extra),
    sendMarks: true,
  });

  it('kept while SUBMITTING (it decides whether to send) and UNKNOWN (it may have left; the lists settle it)', () => {
    expect(sendMarkSpent(marked('SUBMITTING'))).toBe(false);
    expect(sendMarkSpent(marked('UNKNOWN'))).toBe(false);
  });

  it("spent once the record holds the venue's answer or a settled state", () => {
    for (const state of [
      'PENDING_APPROVAL',
      'PENDING',
      'PROCESSED',
      'CANCELLED',
      'FAILED',
      'REJECTED',
      'NOT_FOUND',
    ] as const) {
      expect(sendMarkSpent(marked(state))).toBe(true);
    }
  });

  it('a record of before send marks has none to remove', () => {
    expect(sendMarkSpent(record('PENDING_APPROVAL'))).toBe(false);
  });

  it('follows the transitions: acknowledged, refused and settled from the lists spend it; the way through UNKNOWN keeps it', () => {
    const acked = withdrawalTransition(marked('SUBMITTING'), { kind: 'submit-acknowledged', venueUuid: 'v1' }, env);
    expect(sendMarkSpent(acked.record)).toBe(true);
    const refused = withdrawalTransition(
      marked('SUBMITTING'),
      { kind: 'submit-refused', code: 'VENUE_FORBIDDEN', message: 'no' },
      env,
    );
    expect(sendMarkSpent(refused.record)).toBe(true);
    const unknown = withdrawalTransition(marked('SUBMITTING'), { kind: 'submit-unknown', reason: '500' }, env);
    expect(sendMarkSpent(unknown.record)).toBe(false);
    const once = withdrawalTransition(unknown.record, { kind: 'absent-from-list' }, { ...env, now: 70_000 });
    const notFound = withdrawalTransition(once.record, { kind: 'absent-from-list' }, { ...env, now: 75_000 });
    expect(notFound.record.view.state).toBe('NOT_FOUND');
    expect(sendMarkSpent(notFound.record)).toBe(true); // the record keeps that its send had a mark
    const found = withdrawalTransition(
      unknown.record,
      { kind: 'listed', venueUuid: 'v2', state: 'PENDING_APPROVAL' },
      { ...env, now: 2_000 },
    );
    expect(sendMarkSpent(found.record)).toBe(true);
  });

  it('a SUBMITTING record the lists showed in a state not read keeps its mark and its guard', () => {
    const seen = withdrawalTransition(marked('SUBMITTING'), { kind: 'listed', venueUuid: 'v3', state: undefined }, env);
    expect(seen.record).toMatchObject({ sendMarks: true, view: { state: 'SUBMITTING', venueUuid: 'v3' } });
    expect(sendMarkSpent(seen.record)).toBe(false);
  });
});
