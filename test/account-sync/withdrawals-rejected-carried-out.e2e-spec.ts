/**
 * A withdrawal reported REJECTED (401 to the send and to its re-send) that the venue carried out all the same is
 * found and reported, against the sandbox venue over HTTP and a real nats-server, with account-sync as a child
 * process (its log is its real stdout). §5.5 makes a 401 "not processed"; a venue that processes a submit and then
 * answers 401 (the sandbox's `applyThenFail` fault) leaves a request with our reference in its list while the
 * gateway answered `VENUE_UNAUTHORIZED`. Such a request is watched for `WITHDRAWAL_REJECTED_WATCH_MS`, across a
 * restart (another instance taking over reads the same record); the row found moves it to the venue's state,
 * reported once: one error line, `account_sync_withdrawals_carried_out_after_rejection_total` 1,
 * `carriedOutAfterRejection` on the request's view, one change published. Never re-sent, never cancelled by the
 * gateway. A 401 the venue did not act on stays REJECTED, nothing reported.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { WithdrawalListReply, WithdrawalReply, WithdrawalView } from '#contracts';
import { eventually, waitFor } from '#testing';
import { RestPath } from '#venue-api';
import { metricValue } from '../connector/connector-stack.js';
import { startAccountSyncProcess, type AccountSyncProcess } from '../monitoring/gateway-stack.js';
import {
  admin,
  request,
  startAccountSyncStack,
  withdrawalEvents,
  withdrawalSubjects,
  type AccountSyncStack,
} from './webhooks-stack.js';

const CARRIED_OUT = 'account_sync_withdrawals_carried_out_after_rejection_total';
const CARRIED_OUT_LOG = 'withdrawal reported REJECTED was carried out at the venue';
const DUPLICATED = 'account_sync_withdrawals_duplicated_total';
/** Polls that never come by themselves: only the one at start reads the lists. */
const NO_POLLS = { WITHDRAWAL_POLL_MS: '3600000' };

describe('a withdrawal reported REJECTED (401, re-sent once, 401) that the venue carried out', () => {
  let stack: AccountSyncStack;
  let app: AccountSyncProcess | undefined;

  const startApp = async (env: Record<string, string> = {}) => {
    app = await startAccountSyncProcess({ ...stack.env, LOG_LEVEL: 'info', ...env });
  };
  const appUrl = () => app?.httpUrl ?? '';
  const reportLines = () =>
    (app?.process.lines ?? [])
      .filter((line) => line.includes(CARRIED_OUT_LOG))
      .map((line) => JSON.parse(line) as Record<string, unknown>);
  const okPolls = async () =>
    (await metricValue(appUrl(), 'account_sync_withdrawal_polls_total', { result: 'ok' })) ?? 0;
  const get = async (body: { requestId: string } | { idempotencyKey: string }) =>
    (await request<WithdrawalReply>(stack, withdrawalSubjects.get, body)).withdrawal as WithdrawalView;
  /** The venue's rows carrying the request's reference. */
  const venueRows = async (requestId: string) => {
    const listed = await request<WithdrawalListReply>(stack, withdrawalSubjects.list, { kind: 'fiat' });
    if (!listed.ok) throw new Error(listed.error.message);
    return listed.withdrawals.filter((row) => row.requestId === requestId);
  };
  /** 401 to the submit; `processed`: the venue carried out that many of the send and its re-send first. */
  async function submitAnswered401(
    idempotencyKey: string,
    amount: string,
    processed: 0 | 1 | 2,
  ): Promise<WithdrawalView> {
    const path = RestPath.WithdrawalFiat;
    expect((await fetch(`${stack.venue.adminUrl}/faults/rest`, { method: 'DELETE' })).ok).toBe(true);
    if (processed > 0) {
      await admin(stack.venue, '/faults/rest', { status: 401, count: processed, path, applyThenFail: true });
    }
    if (processed < 2) await admin(stack.venue, '/faults/rest', { status: 401, count: 2 - processed, path });
    const reply = await request<WithdrawalReply>(stack, withdrawalSubjects.submit, {
      idempotencyKey,
      kind: 'fiat',
      accountGroupUuid: stack.venue.seed.defaultGroupUuid,
      ccy: 'USD',
      amount,
      bankAccountUuid: stack.venue.seed.bankUsdOk,
    });
    expect(reply).toMatchObject({
      ok: false,
      error: { code: 'VENUE_UNAUTHORIZED' },
      withdrawal: { state: 'REJECTED', rejection: { code: 'VENUE_UNAUTHORIZED' } },
    });
    return reply.withdrawal as WithdrawalView;
  }

  beforeAll(async () => {
    stack = await startAccountSyncStack({ startApp: false });
    await startApp(NO_POLLS);
  });
  afterAll(async () => {
    await app?.close();
    await stack?.stop();
  });

  it('is still watched after a restart: found, moved to the venue state, reported once with its venue uuid', async () => {
    // exported at 0 from the start: an alert's increase() sees the first one
    expect(await metricValue(appUrl(), CARRIED_OUT)).toBe(0);
    const rejected = await submitAnswered401('wd-401-done', '2.01', 1);
    const [row] = await venueRows(rejected.requestId);
    expect(row).toMatchObject({ state: 'PENDING_APPROVAL', amount: rejected.amount });
    expect(await venueRows(rejected.requestId)).toHaveLength(1); // the re-send was refused: one request

    // another instance takes over before any poll read the lists: the watch is in the stored request
    await app?.close();
    await startApp();
    const found = await eventually(
      async () => {
        const current = await get({ requestId: rejected.requestId });
        return current.carriedOutAfterRejection !== undefined ? current : undefined;
      },
      { what: 'the venue row found', timeoutMs: 15_000 },
    );
    expect(found).toMatchObject({
      state: 'PENDING_APPROVAL',
      venueUuid: row?.venueUuid,
      rejection: { code: 'VENUE_UNAUTHORIZED' },
      carriedOutAfterRejection: { venueUuid: row?.venueUuid, venueState: 'PENDING_APPROVAL' },
    });
    expect(found.duplicates).toBeUndefined();
    expect(await metricValue(appUrl(), CARRIED_OUT)).toBe(1);
    expect(reportLines()).toEqual([
      expect.objectContaining({
        level: 'error',
        requestId: rejected.requestId,
        venueUuid: row?.venueUuid,
        venueState: 'PENDING_APPROVAL',
        amount: rejected.amount,
        ccy: 'USD',
        rejection: 'VENUE_UNAUTHORIZED',
      }),
    ]);
    expect(app?.process.lines.join('\n')).not.toContain(stack.env['VENUE_API_SECRET']);
    // a repeat of the submit answers the truth, and sends nothing
    const repeat = await request<WithdrawalReply>(stack, withdrawalSubjects.submit, {
      idempotencyKey: 'wd-401-done',
      kind: 'fiat',
      accountGroupUuid: stack.venue.seed.defaultGroupUuid,
      ccy: 'USD',
      amount: rejected.amount,
      bankAccountUuid: stack.venue.seed.bankUsdOk,
    });
    expect(repeat).toMatchObject({ ok: true, withdrawal: { state: 'PENDING_APPROVAL' } });

    // more polls: not reported again, neither re-sent nor cancelled
    const polls = await okPolls();
    await waitFor(async () => (await okPolls()) >= polls + 5, 'five more polls');
    expect(await metricValue(appUrl(), CARRIED_OUT)).toBe(1);
    expect(reportLines()).toHaveLength(1);
    expect(await venueRows(rejected.requestId)).toEqual([expect.objectContaining({ state: 'PENDING_APPROVAL' })]);
    const events = await withdrawalEvents(stack, rejected.requestId);
    expect(events.map((e) => [e.previousState, e.withdrawal.state, e.withdrawal.carriedOutAfterRejection])).toEqual([
      [null, 'SUBMITTING', undefined],
      ['SUBMITTING', 'REJECTED', undefined],
      ['REJECTED', 'PENDING_APPROVAL', found.carriedOutAfterRejection],
    ]);
  }, 60_000);

  it('after a restart it is not reported again, and follows the venue row', async () => {
    const view = await get({ idempotencyKey: 'wd-401-done' });
    await app?.close();
    await startApp();
    const polls = await okPolls();
    await waitFor(async () => (await okPolls()) >= polls + 3, 'three polls after the restart');
    expect(await metricValue(appUrl(), CARRIED_OUT)).toBe(0);
    expect(reportLines()).toEqual([]);

    await admin(stack.venue, `/withdrawals/${view.venueUuid}/approve`);
    await waitFor(async () => (await get({ requestId: view.requestId })).state === 'PENDING', 'PENDING');
    expect((await get({ requestId: view.requestId })).carriedOutAfterRejection).toEqual(view.carriedOutAfterRejection);
    const events = await withdrawalEvents(stack, view.requestId);
    expect(events.map((e) => e.withdrawal.state)).toEqual(['SUBMITTING', 'REJECTED', 'PENDING_APPROVAL', 'PENDING']);
  }, 60_000);

  it('both the send and its re-send carried out: one row followed, the other reported as a duplicate', async () => {
    const duplicatedBefore = (await metricValue(appUrl(), DUPLICATED)) ?? 0;
    const rejected = await submitAnswered401('wd-401-twice', '2.02', 2);
    const rows = await venueRows(rejected.requestId);
    expect(rows).toHaveLength(2);
    const found = await eventually(
      async () => {
        const current = await get({ requestId: rejected.requestId });
        return current.duplicates !== undefined ? current : undefined;
      },
      { what: 'found and its duplicate', timeoutMs: 15_000 },
    );
    expect(found.state).toBe('PENDING_APPROVAL');
    expect([found.venueUuid, ...(found.duplicates ?? [])].sort()).toEqual(rows.map((r) => r.venueUuid).sort());
    expect(found.carriedOutAfterRejection?.venueUuid).toBe(found.venueUuid);
    expect(await metricValue(appUrl(), CARRIED_OUT)).toBe(1);
    expect(await metricValue(appUrl(), DUPLICATED)).toBe(duplicatedBefore + 1);
    expect(reportLines().filter((line) => line['requestId'] === rejected.requestId)).toHaveLength(1);
  }, 60_000);

  it('a 401 the venue did not act on stays REJECTED: nothing reported', async () => {
    const before = (await metricValue(appUrl(), CARRIED_OUT)) ?? 0;
    const rejected = await submitAnswered401('wd-401-refused', '2.03', 0);
    expect(await venueRows(rejected.requestId)).toEqual([]);
    const polls = await okPolls();
    await waitFor(async () => (await okPolls()) >= polls + 5, 'five more polls');
    expect(await get({ requestId: rejected.requestId })).toMatchObject({ state: 'REJECTED' });
    expect((await get({ requestId: rejected.requestId })).carriedOutAfterRejection).toBeUndefined();
    expect(await metricValue(appUrl(), CARRIED_OUT)).toBe(before);
    expect((await withdrawalEvents(stack, rejected.requestId)).map((e) => e.withdrawal.state)).toEqual([
      'SUBMITTING',
      'REJECTED',
    ]);
  }, 60_000);
});
