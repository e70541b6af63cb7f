import { describe, expect, it } from '@jest/globals';
import type { WithdrawalView } from '#contracts';
import { withdrawalTransition, type WithdrawalRecord } from './withdrawal-machine.js';

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
