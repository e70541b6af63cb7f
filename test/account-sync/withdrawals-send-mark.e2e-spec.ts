/**
 * A crash (kill -9) between a withdrawal's intent and its send no longer burns the key: right before the request
 * leaves, its send mark is created (create-if-absent; only its creator sends). Killed before the mark, the request
 * was never sent, and the next life sends it, exactly once, and it ends in the venue's state; killed after the mark,
 * it may have left: UNKNOWN, looked up in the venue's lists, never sent again (as before). Once the request's record
 * holds the venue's answer (or NOT_FOUND) its mark is removed; killed before that removal, the next start removes it.
 * account-sync runs as a child process (`FAULT_CRASH_AT` SIGKILLs it at that step).
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from '@jest/globals';
import type { WithdrawalListReply, WithdrawalReply } from '#contracts';
import { waitFor } from '#testing';
import { requestIdOf } from '../../apps/account-sync/src/withdrawals/withdrawal-identity.js';
import { AppProcess } from '../kit/app-process.js';
import {
  ACCOUNT,
  request,
  sendMarkHeld,
  startAccountSyncStack,
  withdrawalEvents,
  withdrawalSubjects,
  type AccountSyncStack,
} from './webhooks-stack.js';

describe('account-sync withdrawals: a crash between the intent and the send (child process)', () => {
  let stack: AccountSyncStack;
  let app: AppProcess | undefined;

  const start = async (env: Record<string, string> = {}) => {
    app = AppProcess.start('account-sync', { ...stack.env, LOG_LEVEL: 'info', ...env });
    await app.waitForLine('webhook receiver listening');
  };
  const body = (idempotencyKey: string, amount: string) => ({
    idempotencyKey,
    kind: 'fiat',
    accountGroupUuid: stack.venue.seed.defaultGroupUuid,
    ccy: 'USD',
    amount,
    bankAccountUuid: stack.venue.seed.bankUsdOk,
  });
  const get = (requestId: string) => request<WithdrawalReply>(stack, withdrawalSubjects.get, { requestId });

  async function venueRows(requestId: string): Promise<number> {
    const reply = await request<WithdrawalListReply>(stack, withdrawalSubjects.list, { kind: 'fiat' });
    if (!reply.ok) throw new Error(reply.error.message);
    return reply.withdrawals.filter((row) => row.requestId === requestId).length;
  }

  /** Submits with the app set to crash at `crashAt`: no answer comes, the process dies by SIGKILL. */
  async function submitIntoCrash(crashAt: string, key: string, amount: string): Promise<void> {
    await start({ FAULT_CRASH_AT: crashAt });
    const answer = stack.client
      .request(withdrawalSubjects.submit, JSON.stringify(body(key, amount)), { timeout: 5_000 })
      .then(
        () => 'answered',
        () => 'unanswered',
      );
    expect((await app?.exited)?.signal).toBe('SIGKILL');
    expect(await answer).toBe('unanswered');
  }

  beforeAll(async () => {
    stack = await startAccountSyncStack({ startApp: false });
  });
  afterEach(async () => {
    await app?.stop();
    app = undefined;
  });
  afterAll(async () => {
    await stack?.stop();
  });

  it('a completed submit leaves no send mark behind; the same key answers the request, never sends it again', async () => {
    const key = 'wd-mark-removed';
    const requestId = requestIdOf(ACCOUNT, key);
    await start();
    const submitted = await request<WithdrawalReply>(stack, withdrawalSubjects.submit, body(key, '30.00'));
    expect(submitted).toMatchObject({ ok: true, withdrawal: { requestId, state: 'PENDING_APPROVAL' } });
    expect(await sendMarkHeld(stack, requestId)).toBe(false);
    const retried = await request<WithdrawalReply>(stack, withdrawalSubjects.submit, body(key, '30.00'));
    expect(retried).toMatchObject({ ok: true, withdrawal: { requestId, state: 'PENDING_APPROVAL' } });
    await app?.stop();
    await start(); // a restart with the mark gone: the record's state decides, nothing is sent
    await request<WithdrawalReply>(stack, withdrawalSubjects.submit, body(key, '30.00'));
    await waitFor(
      async () => (await get(requestId)).withdrawal?.state === 'PENDING_APPROVAL',
      'still as the venue has it',
    );
    expect(await venueRows(requestId)).toBe(1);
    expect(await sendMarkHeld(stack, requestId)).toBe(false);
  }, 60_000);

  it('killed once the answer is stored, before its mark is removed: the next start removes it; sent once', async () => {
    const key = 'wd-crash-before-removal';
    const requestId = requestIdOf(ACCOUNT, key);
    await submitIntoCrash('before-send-mark-removal', key, '33.00');
    expect(await sendMarkHeld(stack, requestId)).toBe(true);

    await start();
    await waitFor(async () => !(await sendMarkHeld(stack, requestId)), 'the spent mark removed at start');
    expect(await get(requestId)).toMatchObject({ withdrawal: { state: 'PENDING_APPROVAL' } });
    expect(await venueRows(requestId)).toBe(1);
  }, 60_000);

  it('killed before the send mark: the next life sends it once; it ends in the venue state and the same key finds it', async () => {
    const key = 'wd-crash-before-mark';
    const requestId = requestIdOf(ACCOUNT, key);
    await submitIntoCrash('before-send-mark', key, '31.00');
    expect(await withdrawalEvents(stack, requestId)).toMatchObject([{ withdrawal: { state: 'SUBMITTING' } }]);

    await start();
    await waitFor(async () => (await get(requestId)).withdrawal?.state === 'PENDING_APPROVAL', 'sent by the next life');
    expect(await venueRows(requestId)).toBe(1);
    expect(await sendMarkHeld(stack, requestId)).toBe(false); // answered: its mark gone
    // the caller's retry with the same key gets that request; nothing is sent again
    const retried = await request<WithdrawalReply>(stack, withdrawalSubjects.submit, body(key, '31.00'));
    expect(retried).toMatchObject({ ok: true, withdrawal: { requestId, state: 'PENDING_APPROVAL' } });
    expect(await venueRows(requestId)).toBe(1);
    const states = (await withdrawalEvents(stack, requestId)).map((event) => event.withdrawal.state);
    expect(states).toEqual(['SUBMITTING', 'PENDING_APPROVAL']);
  }, 60_000);

  it('killed after the send mark: UNKNOWN, looked up, never sent again (NOT_FOUND when the venue never got it)', async () => {
    const key = 'wd-crash-after-mark';
    const requestId = requestIdOf(ACCOUNT, key);
    await submitIntoCrash('after-send-mark', key, '32.00');

    expect(await sendMarkHeld(stack, requestId)).toBe(true);
    await start();
    await waitFor(async () => (await get(requestId)).withdrawal?.state === 'NOT_FOUND', 'settled from the lists');
    await waitFor(async () => !(await sendMarkHeld(stack, requestId)), 'settled: its mark removed');
    const retried = await request<WithdrawalReply>(stack, withdrawalSubjects.submit, body(key, '32.00'));
    expect(retried).toMatchObject({ ok: true, withdrawal: { requestId, state: 'NOT_FOUND' } });
    expect(await venueRows(requestId)).toBe(0);
    const states = (await withdrawalEvents(stack, requestId)).map((event) => event.withdrawal.state);
    expect(states).toEqual(['SUBMITTING', 'UNKNOWN', 'NOT_FOUND']);
  }, 60_000);
});
