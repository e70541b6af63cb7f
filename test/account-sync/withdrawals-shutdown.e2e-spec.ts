/**
 * A withdrawal submit that reaches account-sync while it stops (SIGTERM; here its in-process close) — routed to it
 * by the server before the unsubscribe, read after it — is answered at once — `ACCOUNT_SYNC_STOPPING`, nothing stored or sent — never left to wait out the caller's timeout (outside
 * tester: 35 s and OUTCOME_UNKNOWN for a request never stored). The same key after the restart creates exactly one
 * venue request.
 */
import type { Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { BusConnection } from '#bus';
import type { WithdrawalListReply, WithdrawalReply } from '#contracts';
import type { RunningAccountSync } from '../../apps/account-sync/src/bootstrap.js';
import { requestIdOf } from '../../apps/account-sync/src/withdrawals/withdrawal-identity.js';
import {
  ACCOUNT,
  request,
  startAccountSyncStack,
  withdrawalEvents,
  withdrawalSubjects,
  type AccountSyncStack,
} from './webhooks-stack.js';

/**
 * The app's NATS socket, read no more until `resume` (writes still go out): what the server routes to the app
 * meanwhile waits in the socket, as when its event loop was busy at SIGTERM (the outside tester's case).
 */
function pauseReading(app: RunningAccountSync): { resume(): void } {
  const client = app.app.get(BusConnection).client as unknown as { protocol: { transport: { socket: Socket } } };
  const socket = client.protocol.transport.socket;
  socket.pause();
  return { resume: () => socket.resume() };
}

describe('account-sync withdrawals: a submit arriving during the stop', () => {
  let stack: AccountSyncStack;
  let attempt = 0;

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
    const key = `wd-during-stop-${(attempt += 1)}`;
    const requestId = requestIdOf(ACCOUNT, key);
    const app = stack.app ?? (await stack.startApp());
    // The server routes the submit to the app (it answered our flush after routing it); the app reads it only
    // once its stop began: the withdrawal subjects are unsubscribed before the submit is read.
    const reading = pauseReading(app);
    const answer = stack.client.request(withdrawalSubjects.submit, body(key), { timeout: 20_000 });
    await stack.client.flush();
    const closing = stack.stopApp();
    await new Promise((resolve) => setTimeout(resolve, 100)); // the intakes' stop has begun (no assertion on time)
    reading.resume();
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
