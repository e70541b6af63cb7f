/**
 * A withdrawal the venue carries out twice is seen, against the sandbox venue and a real nats-server, with
 * account-sync as a child process (its log is its real stdout): the venue processes a submit and then answers
 * 401 (contrary to §5.5), the REST client re-sends it once (C6), and the venue holds two requests with our
 * reference. The poll finds the second row: one error line naming both venue uuids and the amounts,
 * `account_sync_withdrawals_duplicated_total` 1, `duplicates` on the request's view, one change published — and
 * none of them again on the next polls nor after a restart (another instance taking over reads the same record).
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { WithdrawalListReply, WithdrawalReply, WithdrawalView } from '#contracts';
import { eventually, waitFor } from '#testing';
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

const DUPLICATED = 'account_sync_withdrawals_duplicated_total';
const DUPLICATE_LOG = 'withdrawal carried out twice at the venue';

describe('a withdrawal the venue carried out twice (401 after processing it, re-sent once)', () => {
  let stack: AccountSyncStack;
  let app: AccountSyncProcess | undefined;

  const startApp = async () => {
    app = await startAccountSyncProcess({ ...stack.env, LOG_LEVEL: 'info' });
  };
  const appUrl = () => app?.httpUrl ?? '';
  /** The app's log lines about a duplicate, parsed. */
  const duplicateLines = () =>
    (app?.process.lines ?? [])
      .filter((line) => line.includes(DUPLICATE_LOG))
      .map((line) => JSON.parse(line) as Record<string, unknown>);
  const okPolls = async () =>
    (await metricValue(appUrl(), 'account_sync_withdrawal_polls_total', { result: 'ok' })) ?? 0;
  const get = (body: { requestId: string } | { idempotencyKey: string }) =>
    request<WithdrawalReply>(stack, withdrawalSubjects.get, body);

  beforeAll(async () => {
    stack = await startAccountSyncStack({ startApp: false });
    await startApp();
  });
  afterAll(async () => {
    await app?.close();
    await stack?.stop();
  });

  it('is logged once with both venue uuids, counted once, shown on the request, published once', async () => {
    // exported at 0 from the start: an alert's increase() sees the first one
    expect(await metricValue(appUrl(), DUPLICATED)).toBe(0);

    await admin(stack.venue, '/faults/rest', {
      status: 401,
      count: 1,
      path: '/api/3/withdrawal/fiat',
      applyThenFail: true,
    });
    const reply = await request<WithdrawalReply>(stack, withdrawalSubjects.submit, {
      idempotencyKey: 'wd-twice',
      kind: 'fiat',
      accountGroupUuid: stack.venue.seed.defaultGroupUuid,
      ccy: 'USD',
      amount: '1.41',
      bankAccountUuid: stack.venue.seed.bankUsdOk,
    });
    expect(reply).toMatchObject({ ok: true, withdrawal: { state: 'PENDING_APPROVAL' } });
    const view = reply.withdrawal as WithdrawalView;
    const tracked = view.venueUuid as string;

    // the venue's own list: two requests with our reference
    const listed = await request<WithdrawalListReply>(stack, withdrawalSubjects.list, { kind: 'fiat' });
    if (!listed.ok) throw new Error(listed.error.message);
    const ours = listed.withdrawals.filter((row) => row.requestId === view.requestId);
    expect(ours.map((row) => row.amount)).toEqual(['1.41', '1.41']);
    const second = ours.map((row) => row.venueUuid).find((uuid) => uuid !== tracked) as string;
    expect(second).toBeDefined();

    const shown = await eventually(
      async () => {
        const current = (await get({ requestId: view.requestId })).withdrawal;
        return current?.duplicates !== undefined ? current : undefined;
      },
      { what: 'duplicates on the request', timeoutMs: 10_000 },
    );
    // still the request it was: its own venue uuid, its state
    expect(shown).toMatchObject({ state: 'PENDING_APPROVAL', venueUuid: tracked, duplicates: [second] });
    expect(await metricValue(appUrl(), DUPLICATED)).toBe(1);
    expect(duplicateLines()).toEqual([
      expect.objectContaining({
        level: 'error',
        requestId: view.requestId,
        venueUuid: tracked,
        duplicateVenueUuid: second,
        amount: '1.41',
        duplicateAmount: '1.41',
        ccy: 'USD',
      }),
    ]);
    expect(app?.process.lines.join('\n')).not.toContain(stack.env['VENUE_API_SECRET']);

    // more polls: nothing again
    const polls = await okPolls();
    await waitFor(async () => (await okPolls()) >= polls + 5, 'five more polls');
    expect(await metricValue(appUrl(), DUPLICATED)).toBe(1);
    expect(duplicateLines()).toHaveLength(1);
    const events = await withdrawalEvents(stack, view.requestId);
    expect(events.map((e) => [e.previousState, e.withdrawal.state, e.withdrawal.duplicates])).toEqual([
      [null, 'SUBMITTING', undefined],
      ['SUBMITTING', 'PENDING_APPROVAL', undefined],
      ['PENDING_APPROVAL', 'PENDING_APPROVAL', [second]],
    ]);
  }, 60_000);

  it('after a restart the same duplicate is neither logged nor counted again; the request follows its own row', async () => {
    await app?.close();
    await startApp();
    const view = (await get({ idempotencyKey: 'wd-twice' })).withdrawal as WithdrawalView;
    expect(view.duplicates).toHaveLength(1);
    const polls = await okPolls();
    await waitFor(async () => (await okPolls()) >= polls + 3, 'three polls after the restart');
    expect(await metricValue(appUrl(), DUPLICATED)).toBe(0);
    expect(duplicateLines()).toEqual([]);

    await admin(stack.venue, `/withdrawals/${view.venueUuid}/approve`);
    await waitFor(async () => (await get({ requestId: view.requestId })).withdrawal?.state === 'PENDING', 'PENDING');
    expect((await get({ requestId: view.requestId })).withdrawal?.duplicates).toEqual(view.duplicates);
    const events = await withdrawalEvents(stack, view.requestId);
    expect(events.map((e) => e.withdrawal.state)).toEqual([
      'SUBMITTING',
      'PENDING_APPROVAL',
      'PENDING_APPROVAL',
      'PENDING',
    ]);
  }, 60_000);
});
