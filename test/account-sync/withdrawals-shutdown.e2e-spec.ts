/**
 * A withdrawal submit that reaches account-sync while it stops (SIGTERM; here its in-process close) is answered at
 * once — `ACCOUNT_SYNC_STOPPING`, nothing stored or sent — never left to wait out the caller's timeout (outside
 * tester: 35 s and OUTCOME_UNKNOWN for a request never stored). The same key after the restart creates exactly one
 * venue request.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { WithdrawalListReply, WithdrawalReply } from '#contracts';
import { requestIdOf } from '../../apps/account-sync/src/withdrawals/withdrawal-identity.js';
import {
  ACCOUNT,
  request,
  startAccountSyncStack,
  withdrawalEvents,
  withdrawalSubjects,
  type AccountSyncStack,
} from './webhooks-stack.js';

/** Blocks this thread (the app's too: it runs in-process) without yielding to the event loop. */
function blockFor(ms: number): void {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}

describe('account-sync withdrawals: a submit arriving during the stop', () => {
  let stack: AccountSyncStack;

  const body = (idempotencyKey: string) =>
    JSON.stringify({
      idempotencyKey,
      kind: 'fiat',
      accountGroupUuid: stack.venue.seed.defaultGroupUuid,
      ccy: 'USD',
      amount: '42.10',
      bankAccountUuid: stack.venue.seed.bankUsdOk,
    });

  async function venueRows(requestId: string): Promise<number> {
    const reply = await request<WithdrawalListReply>(stack, withdrawalSubjects.list, { kind: 'fiat' });
    if (!reply.ok) throw new Error(reply.error.message);
    return reply.withdrawals.filter((row) => row.requestId === requestId).length;
  }

  beforeAll(async () => {
    stack = await startAccountSyncStack();
  });
  afterAll(async () => {
    await stack?.stop();
  });

  it('is answered ACCOUNT_SYNC_STOPPING at once (nothing stored or sent); the same key after the restart is sent once', async () => {
    const key = 'wd-during-stop';
    const requestId = requestIdOf(ACCOUNT, key);
    // The request is routed to the app's connection (the server answered our flush after routing it), and the app
    // has not read it yet when its stop begins: the unsubscribe goes out before the request is read.
    const answer = stack.client.request(withdrawalSubjects.submit, body(key), { timeout: 30_000 });
    await stack.client.flush();
    blockFor(200);
    const closing = stack.stopApp();
    const reply = (await answer).json<WithdrawalReply>();
    await closing;
    expect(reply).toMatchObject({ ok: false, error: { code: 'ACCOUNT_SYNC_STOPPING' } });
    expect(await withdrawalEvents(stack, requestId)).toEqual([]); // nothing stored, nothing published

    await stack.startApp();
    const retried = await request<WithdrawalReply>(stack, withdrawalSubjects.submit, JSON.parse(body(key)));
    expect(retried).toMatchObject({ ok: true, withdrawal: { requestId, state: 'PENDING_APPROVAL' } });
    expect(await venueRows(requestId)).toBe(1);
    const again = await request<WithdrawalReply>(stack, withdrawalSubjects.submit, JSON.parse(body(key)));
    expect(again).toMatchObject({ ok: true, withdrawal: { requestId, state: 'PENDING_APPROVAL' } });
    expect(await venueRows(requestId)).toBe(1);
  });
});
