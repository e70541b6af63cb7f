/**
 * Withdrawals over NATS against the sandbox venue: submit → approve → processed, cancel then 409, a 500 on
 * submit found again by our id with no second request, typed refusals, and the list without names while the
 * venue's participants service is down.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import {
  AccountSyncSubjects,
  Subjects,
  type BalanceState,
  type StateQueryReply,
  type TransactionLeg,
  type WithdrawalListReply,
  type WithdrawalReply,
  type WithdrawalView,
} from '#contracts';
import { waitFor } from '#testing';
import { requestIdOf } from '../../apps/account-sync/src/withdrawals/withdrawal-identity.js';
import { metricSum } from '../connector/connector-stack.js';
import {
  ACCOUNT,
  admin,
  metricValue,
  request,
  startAccountSyncStack,
  withdrawalEvents,
  withdrawalSubjects,
  type AccountSyncStack,
} from './webhooks-stack.js';

const queries = new AccountSyncSubjects(new Subjects('gw.v1', ACCOUNT));

describe('account-sync withdrawals (sandbox venue, real nats-server)', () => {
  let stack: AccountSyncStack;
  let seed: AccountSyncStack['venue']['seed'];

  const submit = (body: Record<string, unknown>) => request<WithdrawalReply>(stack, withdrawalSubjects.submit, body);
  const fiat = (idempotencyKey: string, extra: Record<string, unknown> = {}) =>
    submit({
      idempotencyKey,
      kind: 'fiat',
      accountGroupUuid: seed.defaultGroupUuid,
      ccy: 'USD',
      amount: '100.50',
      bankAccountUuid: seed.bankUsdOk,
      clientComment: 'rent',
      ...extra,
    });
  const get = (requestId: string) => request<WithdrawalReply>(stack, withdrawalSubjects.get, { requestId });
  const list = (kind?: 'fiat' | 'crypto') =>
    request<WithdrawalListReply>(stack, withdrawalSubjects.list, kind === undefined ? {} : { kind });

  async function venueRowsFor(requestId: string): Promise<number> {
    const reply = await list();
    if (!reply.ok) throw new Error(reply.error.message);
    return reply.withdrawals.filter((row) => row.requestId === requestId).length;
  }

  beforeAll(async () => {
    stack = await startAccountSyncStack();
    seed = stack.venue.seed;
  });
  afterAll(async () => {
    await stack?.stop();
  });

  it('submit → approve → processed, every change published once; a repeat returns the same request', async () => {
    const first = await fiat('wd-lifecycle-1');
    expect(first).toMatchObject({ ok: true, withdrawal: { state: 'PENDING_APPROVAL', amount: '100.50' } });
    const view = first.withdrawal as WithdrawalView;
    expect(view.venueUuid).toBeDefined();
    const repeat = await fiat('wd-lifecycle-1');
    expect(repeat.withdrawal).toMatchObject({ requestId: view.requestId, venueUuid: view.venueUuid });
    expect(await venueRowsFor(view.requestId)).toBe(1);

    await admin(stack.venue, `/withdrawals/${view.venueUuid}/approve`);
    await waitFor(async () => (await get(view.requestId)).withdrawal?.state === 'PENDING', 'PENDING from the list');
    await admin(stack.venue, `/withdrawals/${view.venueUuid}/process`);
    await waitFor(async () => (await get(view.requestId)).withdrawal?.state === 'PROCESSED', 'PROCESSED');
    const events = await withdrawalEvents(stack, view.requestId);
    expect(events.map((e) => e.withdrawal.state)).toEqual(['SUBMITTING', 'PENDING_APPROVAL', 'PENDING', 'PROCESSED']);
    // the caller's comment comes back without the gateway's reference
    const rows = await list('fiat');
    expect(rows.ok && rows.withdrawals.find((row) => row.requestId === view.requestId)?.clientComment).toBe('rent');
  });

  it('the same idempotency key with other parameters is refused, never a second request', async () => {
    await fiat('wd-key-reuse');
    const other = await fiat('wd-key-reuse', { amount: '200.00' });
    expect(other).toMatchObject({ ok: false, error: { code: 'IDEMPOTENCY_CONFLICT' } });
    // the refusal carries the request the key names (its amount is the first one's)
    expect(other.withdrawal).toMatchObject({ idempotencyKey: 'wd-key-reuse', amount: '100.50' });
    // the same amount written otherwise is the same request
    const same = await fiat('wd-key-reuse', { amount: '100.5' });
    expect(same).toMatchObject({ ok: true, withdrawal: { requestId: other.withdrawal?.requestId, amount: '100.50' } });
  });

  it('get and cancel name their request by exactly one of requestId and idempotencyKey', async () => {
    const submitted = await fiat('wd-naming', { amount: '10.00' });
    const requestId = submitted.withdrawal?.requestId as string;
    for (const subject of [withdrawalSubjects.get, withdrawalSubjects.cancel]) {
      expect(await request<WithdrawalReply>(stack, subject, {})).toMatchObject({
        ok: false,
        error: { code: 'INVALID_REQUEST', message: 'give requestId or idempotencyKey' },
      });
      expect(
        await request<WithdrawalReply>(stack, subject, { requestId, idempotencyKey: 'wd-key-reuse' }),
      ).toMatchObject({
        ok: false,
        error: { code: 'INVALID_REQUEST', message: 'give requestId or idempotencyKey, not both' },
      });
    }
    expect(await request<WithdrawalReply>(stack, withdrawalSubjects.get, { requestId })).toMatchObject({ ok: true });
  });

  it('cancel is allowed in PENDING_APPROVAL, then the venue answers 409: NOT_CANCELLABLE', async () => {
    const submitted = await fiat('wd-cancel-1', { amount: '10.00' });
    const requestId = submitted.withdrawal?.requestId as string;
    const cancelled = await request<WithdrawalReply>(stack, withdrawalSubjects.cancel, { requestId });
    expect(cancelled).toMatchObject({ ok: true, withdrawal: { state: 'CANCELLED', cancelRequested: true } });
    const again = await request<WithdrawalReply>(stack, withdrawalSubjects.cancel, { requestId });
    expect(again).toMatchObject({ ok: false, error: { code: 'NOT_CANCELLABLE' } });
    const events = await withdrawalEvents(stack, requestId);
    expect(events.map((e) => e.withdrawal.state)).toEqual([
      'SUBMITTING',
      'PENDING_APPROVAL',
      'PENDING_APPROVAL',
      'CANCELLED',
    ]);
  });

  it('a cancel of a request known to be PENDING is refused at once: the venue is not asked, nothing published', async () => {
    const submitted = await fiat('wd-cancel-late', { amount: '11.00' });
    const view = submitted.withdrawal as WithdrawalView;
    await admin(stack.venue, `/withdrawals/${view.venueUuid}/approve`);
    await waitFor(async () => (await get(view.requestId)).withdrawal?.state === 'PENDING', 'PENDING from the list');
    const refused = await request<WithdrawalReply>(stack, withdrawalSubjects.cancel, { requestId: view.requestId });
    expect(refused).toMatchObject({ ok: false, error: { code: 'NOT_CANCELLABLE' }, withdrawal: { state: 'PENDING' } });
    expect(refused.withdrawal?.cancelRequested ?? false).toBe(false);
    const events = await withdrawalEvents(stack, view.requestId);
    expect(events.map((e) => [e.withdrawal.state, e.withdrawal.cancelRequested ?? false])).toEqual([
      ['SUBMITTING', false],
      ['PENDING_APPROVAL', false],
      ['PENDING', false],
    ]);
  });

  it('a cancel the venue refuses (approved there, not yet seen here: 409) leaves no cancel pending', async () => {
    const submitted = await fiat('wd-cancel-lag', { amount: '12.00' });
    const view = submitted.withdrawal as WithdrawalView;
    await admin(stack.venue, `/withdrawals/${view.venueUuid}/approve`);
    // at once: the gateway still holds PENDING_APPROVAL (or, polled meanwhile, PENDING: refused here as above)
    const refused = await request<WithdrawalReply>(stack, withdrawalSubjects.cancel, { requestId: view.requestId });
    expect(refused).toMatchObject({ ok: false, error: { code: 'NOT_CANCELLABLE' } });
    expect(refused.withdrawal?.cancelRequested ?? false).toBe(false);
    await waitFor(async () => (await get(view.requestId)).withdrawal?.state === 'PENDING', 'PENDING from the list');
    expect((await get(view.requestId)).withdrawal).toMatchObject({ state: 'PENDING', cancelRequested: false });
    const events = await withdrawalEvents(stack, view.requestId);
    expect(events.at(-1)?.withdrawal).toMatchObject({ state: 'PENDING', cancelRequested: false });
  });

  it('a 500 on submit (the venue created it): found in the list by our id, no second request', async () => {
    await admin(stack.venue, '/faults/rest', {
      status: 500,
      count: 1,
      path: '/api/3/withdrawal/fiat',
      applyThenFail: true,
    });
    const reply = await fiat('wd-500-created', { amount: '20.00' });
    expect(reply).toMatchObject({ ok: true, withdrawal: { state: 'PENDING_APPROVAL' } });
    const requestId = reply.withdrawal?.requestId as string;
    expect(reply.withdrawal?.venueUuid).toBeDefined();
    expect(await venueRowsFor(requestId)).toBe(1);
    const events = await withdrawalEvents(stack, requestId);
    expect(events.map((e) => e.withdrawal.state)).toEqual(['SUBMITTING', 'UNKNOWN', 'PENDING_APPROVAL']);
    // a repeat is the same request, still one at the venue
    await fiat('wd-500-created', { amount: '20.00' });
    expect(await venueRowsFor(requestId)).toBe(1);
  });

  it('a 500 on submit (nothing created): UNKNOWN, never re-sent, NOT_FOUND once the lists settle it', async () => {
    await admin(stack.venue, '/faults/rest', { status: 500, count: 1, path: '/api/3/withdrawal/fiat' });
    const reply = await fiat('wd-500-lost', { amount: '30.00' });
    expect(reply).toMatchObject({ ok: true, withdrawal: { state: 'UNKNOWN' } });
    const requestId = reply.withdrawal?.requestId as string;
    await waitFor(async () => (await get(requestId)).withdrawal?.state === 'NOT_FOUND', 'settled as NOT_FOUND');
    expect(await venueRowsFor(requestId)).toBe(0);
    const repeat = await fiat('wd-500-lost', { amount: '30.00' });
    expect(repeat.withdrawal?.state).toBe('NOT_FOUND');
    expect(await venueRowsFor(requestId)).toBe(0);
  });

  it('every refusal is a typed result: checked before sending, and §7.2 answers from the venue', async () => {
    expect(await fiat('wd-bad-scale', { amount: '1.005' })).toMatchObject({
      ok: false,
      error: { code: 'INVALID_REQUEST' },
    });
    expect(await fiat('wd-disabled', { bankAccountUuid: seed.bankGbpDisabled, ccy: 'GBP' })).toMatchObject({
      ok: false,
      error: { code: 'BANK_ACCOUNT_UNUSABLE' },
    });
    expect(await fiat('wd-unverified', { bankAccountUuid: seed.bankUsdUnverified })).toMatchObject({
      ok: false,
      error: { code: 'BANK_ACCOUNT_UNUSABLE' },
    });
    const crypto = (key: string, walletUuid: string, ccy: string, amount = '0.5') =>
      submit({ idempotencyKey: key, kind: 'crypto', accountGroupUuid: seed.defaultGroupUuid, ccy, amount, walletUuid });
    expect(await crypto('wd-eth-open', seed.walletEthNotWhitelisted, 'ETH')).toMatchObject({
      ok: false,
      error: { code: 'WALLET_UNUSABLE' },
    });
    const insufficient = await fiat('wd-too-much', { amount: '99999999.00' });
    expect(insufficient).toMatchObject({
      ok: false,
      error: { code: 'INSUFFICIENT_FUNDS' },
      withdrawal: { state: 'REJECTED' },
    });
    const btc = await crypto('wd-btc-1', seed.walletBtcOk, 'BTC', '0.12345678');
    expect(btc).toMatchObject({ ok: true, withdrawal: { state: 'PENDING_APPROVAL', kind: 'crypto' } });
    // More decimals than the crypto scale (8; R6, WD4): refused before anything is stored, sent or published,
    // so the key is not burnt — the same key with a usable amount is then submitted.
    for (const amount of ['0.123456789', '0.123456789012345678', '0.1234567890123456789']) {
      const refused = await crypto('wd-btc-scale', seed.walletBtcOk, 'BTC', amount);
      expect(refused).toMatchObject({ ok: false, error: { code: 'INVALID_REQUEST' } });
      expect(refused.withdrawal).toBeUndefined();
      expect(refused.ok === false && refused.error.message).toMatch(/^amount has \d+ decimals/);
    }
    expect(await withdrawalEvents(stack, requestIdOf(ACCOUNT, 'wd-btc-scale'))).toEqual([]);
    expect(
      await request<WithdrawalReply>(stack, withdrawalSubjects.get, { idempotencyKey: 'wd-btc-scale' }),
    ).toMatchObject({
      ok: false,
      error: { code: 'NOT_FOUND' },
    });
    expect(await crypto('wd-btc-scale', seed.walletBtcOk, 'BTC', '0.12345678')).toMatchObject({
      ok: true,
      withdrawal: { state: 'PENDING_APPROVAL' },
    });
    const invalid = await request<WithdrawalReply>(stack, withdrawalSubjects.submit, {
      idempotencyKey: 'x',
      kind: 'wire',
    });
    expect(invalid).toMatchObject({ ok: false, error: { code: 'INVALID_REQUEST' } });
  });

  it("an account group that is no UUID, or not one of the account's, is refused before any venue call, counted as a bad request (tester t2 F2)", async () => {
    const app = stack.app;
    if (app === undefined) throw new Error('app not running');
    const runs = (resource: string) =>
      metricSum(app.httpUrl, 'account_sync_runs_total', { resource, mode: 'full', result: 'ok' });
    // the groups are known once the sync's first balances read is done (and its first account details read with it)
    await waitFor(async () => (await runs('balances')) >= 1 && (await runs('accountDetails')) >= 1, 'first reads');
    const venueCalls = () => metricSum(app.httpUrl, 'venue_rest_calls_total', { operation: 'getAccountDetails' });
    const badRequests = () => metricValue(stack, 'bus_bad_requests_total', { subject_kind: 'acct.withdrawal.submit' });
    const [callsBefore, badBefore] = [await venueCalls(), await badRequests()];

    const malformed = ['a\u0000b', '\u202Eabc', 'Infinity', '0x10', '-0', 'a\ud800', `${seed.defaultGroupUuid}\u0000`];
    for (const [i, accountGroupUuid] of malformed.entries()) {
      expect(await fiat(`wd-bad-group-${i}`, { accountGroupUuid })).toMatchObject({
        ok: false,
        error: { code: 'INVALID_REQUEST', message: 'accountGroupUuid must be a UUID (8-4-4-4-12 hexadecimal digits)' },
      });
    }
    for (const [i, bankAccountUuid] of ['b\u0000', '\u202Eb', 'b\u200b'].entries()) {
      expect(await fiat(`wd-bad-bank-${i}`, { bankAccountUuid })).toMatchObject({
        ok: false,
        error: { code: 'INVALID_REQUEST', message: expect.stringMatching(/^bankAccountUuid must be/) },
      });
    }
    // a flood of well-formed groups the account does not have: each refused naming the field, none sent to the venue
    const unknown = Array.from({ length: 100 }, (_, i) => `0bad0000-0000-4000-8000-${String(i).padStart(12, '0')}`);
    const replies = await Promise.all(
      unknown.map((accountGroupUuid, i) => fiat(`wd-unknown-group-${i}`, { accountGroupUuid })),
    );
    for (const reply of replies) {
      expect(reply).toMatchObject({
        ok: false,
        error: { code: 'INVALID_REQUEST', message: expect.stringMatching(/^accountGroupUuid is not one of/) },
      });
      expect(reply.withdrawal).toBeUndefined();
    }
    expect(await venueCalls()).toBe(callsBefore);
    expect(await badRequests()).toBe(badBefore + malformed.length + 3 + unknown.length);
    expect(await withdrawalEvents(stack, requestIdOf(ACCOUNT, 'wd-unknown-group-0'))).toEqual([]);
    // the account's own group is taken as before
    expect(await fiat('wd-after-bad-groups', { amount: '1.00' })).toMatchObject({
      ok: true,
      withdrawal: { state: 'PENDING_APPROVAL' },
    });
  });

  it("the account's group UUID in capitals is that group: taken, sent, stored and repeated as the venue spells it (WD10)", async () => {
    const app = stack.app;
    if (app === undefined) throw new Error('app not running');
    const runs = () =>
      metricSum(app.httpUrl, 'account_sync_runs_total', { resource: 'balances', mode: 'full', result: 'ok' });
    await waitFor(async () => (await runs()) >= 1, 'first balances read');
    const venueSpelling = seed.defaultGroupUuid;
    const capitals = venueSpelling.toUpperCase();
    expect(capitals).not.toBe(venueSpelling);

    const first = await fiat('wd-group-capitals', { accountGroupUuid: capitals, amount: '2.00' });
    expect(first).toMatchObject({
      ok: true,
      withdrawal: { state: 'PENDING_APPROVAL', accountGroupUuid: venueSpelling },
    });
    const view = first.withdrawal as WithdrawalView;
    // the same request in small letters is a repeat (no IDEMPOTENCY_CONFLICT), still one row at the venue
    const repeat = await fiat('wd-group-capitals', { amount: '2.00' });
    expect(repeat).toMatchObject({ ok: true, withdrawal: { requestId: view.requestId, venueUuid: view.venueUuid } });
    expect(await venueRowsFor(view.requestId)).toBe(1);
    const rows = await list('fiat');
    expect(rows.ok && rows.withdrawals.find((row) => row.requestId === view.requestId)?.accountGroupUuid).toBe(
      venueSpelling,
    );
    // a cancel naming the group in capitals is the request's own group
    const cancelled = await request<WithdrawalReply>(stack, withdrawalSubjects.cancel, {
      requestId: view.requestId,
      accountGroupUuid: capitals,
    });
    expect(cancelled).toMatchObject({ ok: true, withdrawal: { state: 'CANCELLED' } });
    const events = await withdrawalEvents(stack, view.requestId);
    expect(new Set(events.map((e) => e.withdrawal.accountGroupUuid))).toEqual(new Set([venueSpelling]));
    // a query's group filter in capitals reads that group's records
    const balances = await request<StateQueryReply<BalanceState>>(stack, queries.query('balance'), {
      accountGroupUuid: capitals,
    });
    expect(balances.ok && balances.records.length).toBeGreaterThan(0);
  });

  it('a currency filter that is no currency code is refused naming the field, never echoed, counted as a bad request', async () => {
    const badRequests = (kind: string) => metricValue(stack, 'bus_bad_requests_total', { subject_kind: kind });
    const cases = [
      ['balance', 'acct.balance.query'],
      ['transaction-list', 'acct.transaction-list.query'],
    ] as const;
    for (const [resource, kind] of cases) {
      const before = await badRequests(kind);
      for (const ccy of ['a\u0000b', '\u202EUSD', 'US D', '', 'X'.repeat(17)]) {
        const reply = await request<StateQueryReply<BalanceState | TransactionLeg>>(stack, queries.query(resource), {
          ccy,
        });
        expect(reply).toMatchObject({ ok: false, error: { code: 'INVALID_REQUEST' } });
        const message = reply.ok ? '' : reply.error.message;
        expect(message).toMatch(/^ccy must be a currency code/);
        if (ccy.length > 0) expect(message).not.toContain(ccy);
      }
      expect(await badRequests(kind)).toBe(before + 5);
      expect(
        await request<StateQueryReply<BalanceState>>(stack, queries.query(resource), { ccy: 'USD' }),
      ).toMatchObject({
        ok: true,
      });
    }
  });

  it('participants service down: the list is still served, without names, uuids kept', async () => {
    await fiat('wd-names', { amount: '1.00' });
    await admin(stack.venue, '/faults/participants', { available: false });
    try {
      const reply = await list('fiat');
      expect(reply.ok).toBe(true);
      if (!reply.ok) return;
      expect(reply.withdrawals.length).toBeGreaterThan(0);
      for (const row of reply.withdrawals) {
        expect(row.bankAccount?.uuid).toBeDefined();
        expect(row.bankAccount?.name).toBeUndefined();
      }
    } finally {
      await admin(stack.venue, '/faults/participants', { available: true });
    }
  });
});
