/**
 * A withdrawal's transaction leg arriving by webhook makes the gateway read the venue's withdrawal lists at
 * once: with the poll schedule set to 10 minutes, approve and process still show within seconds.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { WithdrawalReply, WithdrawalView } from '#contracts';
import { waitFor } from '#testing';
import { admin, request, startAccountSyncStack, withdrawalSubjects, type AccountSyncStack } from './webhooks-stack.js';

describe('account-sync withdrawals follow their transaction legs (webhooks)', () => {
  let stack: AccountSyncStack;

  beforeAll(async () => {
    stack = await startAccountSyncStack({ env: { WITHDRAWAL_POLL_MS: '600000' } });
  });
  afterAll(async () => {
    await stack?.stop();
  });

  it('approve → PENDING and process → PROCESSED without waiting for the poll', async () => {
    const submitted = await request<WithdrawalReply>(stack, withdrawalSubjects.submit, {
      idempotencyKey: 'wd-by-webhook',
      kind: 'fiat',
      accountGroupUuid: stack.venue.seed.defaultGroupUuid,
      ccy: 'USD',
      amount: '15.00',
      bankAccountUuid: stack.venue.seed.bankUsdOk,
    });
    expect(submitted.ok).toBe(true);
    const view = submitted.withdrawal as WithdrawalView;
    const state = async () =>
      (await request<WithdrawalReply>(stack, withdrawalSubjects.get, { requestId: view.requestId })).withdrawal?.state;
    await admin(stack.venue, `/withdrawals/${view.venueUuid}/approve`);
    await waitFor(async () => (await state()) === 'PENDING', 'PENDING after the leg webhook');
    await admin(stack.venue, `/withdrawals/${view.venueUuid}/process`);
    await waitFor(async () => (await state()) === 'PROCESSED', 'PROCESSED after the leg webhook');
  });
});
