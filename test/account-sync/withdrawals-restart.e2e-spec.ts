/**
 * A crash between storing a withdrawal's intent and learning the venue's answer: the next life of the app
 * never sends it again. It looks the request up in the venue's list by the id in clientComment — found, it
 * carries on from the venue's state; absent, it settles as NOT_FOUND — and no second request reaches the venue.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { connect } from '@nats-io/transport-node';
import { Kvm } from '@nats-io/kv';
import { AccountLedgerName } from '#bus';
import { withdrawalComment, type WithdrawalListReply, type WithdrawalReply } from '#contracts';
import { waitFor } from '#testing';
import { TonceSource, VenueRestClient } from '#venue-api';
import { requestIdOf } from '../../apps/account-sync/src/withdrawals/withdrawal-identity.js';
import {
  ACCOUNT,
  request,
  startAccountSyncStack,
  withdrawalSubjects,
  type AccountSyncStack,
} from './webhooks-stack.js';

describe('account-sync withdrawals across a crash mid-submit', () => {
  let stack: AccountSyncStack;

  /** What a crash right after the intent was stored leaves behind. */
  async function intentLeftBehind(idempotencyKey: string, amount: string): Promise<string> {
    const requestId = requestIdOf(ACCOUNT, idempotencyKey);
    const nc = await connect({ servers: stack.nats.url });
    const kv = await new Kvm(nc).open(AccountLedgerName.withdrawalRequests(ACCOUNT));
    const now = Date.now();
    await kv.create(
      requestId,
      JSON.stringify({
        view: {
          requestId,
          idempotencyKey,
          kind: 'fiat',
          state: 'SUBMITTING',
          accountGroupUuid: stack.venue.seed.defaultGroupUuid,
          ccy: 'USD',
          amount,
          bankAccountUuid: stack.venue.seed.bankUsdOk,
          createdAt: now,
          updatedAt: now,
        },
      }),
    );
    await nc.close();
    return requestId;
  }

  async function venueRows(requestId: string): Promise<number> {
    const reply = await request<WithdrawalListReply>(stack, withdrawalSubjects.list, { kind: 'fiat' });
    if (!reply.ok) throw new Error(reply.error.message);
    return reply.withdrawals.filter((row) => row.requestId === requestId).length;
  }

  const get = (requestId: string) => request<WithdrawalReply>(stack, withdrawalSubjects.get, { requestId });

  beforeAll(async () => {
    stack = await startAccountSyncStack();
  });
  afterAll(async () => {
    await stack?.stop();
  });

  it('the request the venue did create is found by its id; the one it did not is NOT_FOUND; neither is re-sent', async () => {
    await stack.stopApp();
    const created = await intentLeftBehind('crash-created', '11.00');
    const lost = await intentLeftBehind('crash-lost', '12.00');
    // the first one reached the venue before the crash (sent as the desk sends it: our id in clientComment)
    const client = new VenueRestClient({
      baseUrl: stack.venue.restBaseUrl,
      apiKey: stack.venue.credentials.primary.apiKey,
      apiSecret: stack.venue.credentials.primary.apiSecret,
      antiReplay: new TonceSource(),
    });
    await client.submitFiatWithdrawal({
      accountGroupUuid: stack.venue.seed.defaultGroupUuid,
      ccy: 'USD',
      amount: '11.00',
      bankAccountUuid: stack.venue.seed.bankUsdOk,
      clientComment: withdrawalComment(created, undefined),
    });

    await stack.startApp();
    await waitFor(
      async () => (await get(created)).ok && (await get(created)).withdrawal?.state === 'PENDING_APPROVAL',
      'found',
    );
    await waitFor(async () => (await get(lost)).ok && (await get(lost)).withdrawal?.state === 'NOT_FOUND', 'settled');
    expect(await venueRows(created)).toBe(1);
    expect(await venueRows(lost)).toBe(0);
  });
});
