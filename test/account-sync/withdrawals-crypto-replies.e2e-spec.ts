/**
 * Crypto withdrawals against a venue whose crypto submit and cancel answer without a uuid (§4.9: "request and
 * response fields: not shown"): the sandbox's dialect axis `cryptoWithdrawalReply` answers `{"success":true}` or a
 * 204 with no body. A submit is PENDING_APPROVAL (its uuid read from the list by our reference), a cancel is
 * CANCELLED — never OUTCOME_UNKNOWN / UNKNOWN; fiat, whose answer the spec shows, is unchanged (spec-gaps WD7).
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { WithdrawalListItem, WithdrawalListReply, WithdrawalReply, WithdrawalView } from '#contracts';
import type { CryptoWithdrawalReply } from '../../apps/sandbox-venue/src/dialect.js';
import {
  metricValue,
  request,
  startAccountSyncStack,
  withdrawalEvents,
  withdrawalSubjects,
  type AccountSyncStack,
} from './webhooks-stack.js';

describe.each<CryptoWithdrawalReply>(['success-only', 'no-content'])(
  'account-sync crypto withdrawals, the venue answering %s (sandbox venue, real nats-server)',
  (reading) => {
    let stack: AccountSyncStack;

    const submit = (body: Record<string, unknown>) => request<WithdrawalReply>(stack, withdrawalSubjects.submit, body);
    const btc = (idempotencyKey: string, amount: string) =>
      submit({
        idempotencyKey,
        kind: 'crypto',
        accountGroupUuid: stack.venue.seed.defaultGroupUuid,
        ccy: 'BTC',
        amount,
        walletUuid: stack.venue.seed.walletBtcOk,
      });
    /** The venue's crypto list, as the gateway relays it. */
    const venueRowOf = async (requestId: string): Promise<WithdrawalListItem | undefined> => {
      const reply = await request<WithdrawalListReply>(stack, withdrawalSubjects.list, { kind: 'crypto' });
      if (!reply.ok) throw new Error(reply.error.message);
      return reply.withdrawals.find((row) => row.requestId === requestId);
    };

    beforeAll(async () => {
      stack = await startAccountSyncStack({ venue: { dialect: { cryptoWithdrawalReply: reading } } });
    });
    afterAll(async () => {
      await stack?.stop();
    });

    it('a submit answered without uuid is PENDING_APPROVAL with the venue uuid the list shows, published once', async () => {
      const submitted = await btc(`wd-crypto-${reading}`, '0.25');
      expect(submitted).toMatchObject({ ok: true, withdrawal: { state: 'PENDING_APPROVAL', kind: 'crypto' } });
      const view = submitted.withdrawal as WithdrawalView;
      expect(view.venueUuid).toBeDefined();
      expect((await venueRowOf(view.requestId))?.venueUuid).toBe(view.venueUuid);
      const events = await withdrawalEvents(stack, view.requestId);
      expect(events.map((e) => [e.withdrawal.state, e.withdrawal.venueUuid])).toEqual([
        ['SUBMITTING', undefined],
        ['PENDING_APPROVAL', view.venueUuid],
      ]);
      expect(await metricValue(stack, 'account_sync_withdrawal_transitions_total', { state: 'UNKNOWN' })).toBe(0);
    });

    it('a cancel answered without uuid is CANCELLED at once, as the venue holds it', async () => {
      const submitted = await btc(`wd-crypto-cancel-${reading}`, '0.125');
      const view = submitted.withdrawal as WithdrawalView;
      const cancelled = await request<WithdrawalReply>(stack, withdrawalSubjects.cancel, {
        requestId: view.requestId,
      });
      expect(cancelled).toMatchObject({ ok: true, withdrawal: { state: 'CANCELLED', cancelRequested: true } });
      expect(await venueRowOf(view.requestId)).toMatchObject({ venueUuid: view.venueUuid, state: 'CANCELLED' });
    });

    it('fiat, whose answer the spec shows, is not affected', async () => {
      const fiat = await submit({
        idempotencyKey: `wd-fiat-${reading}`,
        kind: 'fiat',
        accountGroupUuid: stack.venue.seed.defaultGroupUuid,
        ccy: 'USD',
        amount: '10.00',
        bankAccountUuid: stack.venue.seed.bankUsdOk,
      });
      expect(fiat).toMatchObject({ ok: true, withdrawal: { state: 'PENDING_APPROVAL' } });
      expect(fiat.withdrawal?.venueUuid).toBeDefined();
    });
  },
);
