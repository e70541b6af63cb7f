/**
 * account-sync after NATS lost its store while it was down (a new nats-server with an empty store directory): the
 * withdrawal records are rebuilt from the venue's lists — every request carrying our reference, in the venue's
 * state, marked `restored` and published again — before any submit of a key not held is taken. A submit re-using
 * the key of a withdrawal carried out before the loss answers that withdrawal; the venue holds exactly one. While
 * the lists cannot be read, such a submit is refused (`WITHDRAWALS_RESTORING`), nothing sent, and operators are told
 * (a gauge, /health). A venue whose fiat rows show no account group (§2.7: not shown; R8 is our guess): the group
 * stays '' and a cancel names it, the venue's cancel needing it (spec-gaps WD9). Until restored, the desk exports no
 * count of open or stuck requests (it lacks the venue's rows).
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { WithdrawalListReply, WithdrawalReply, WithdrawalView } from '#contracts';
import { waitFor } from '#testing';
import { metricValue as seriesValue } from '../connector/connector-stack.js';
import {
  admin,
  metricValue,
  request,
  seededWithdrawal,
  startAccountSyncStack,
  withdrawalEvents,
  withdrawalSubjects,
  type AccountSyncStack,
} from './webhooks-stack.js';

/** The stack of the describe running (each starts its own). */
let stack: AccountSyncStack;

const submit = (body: Record<string, unknown>) => request<WithdrawalReply>(stack, withdrawalSubjects.submit, body);
const fiat = (idempotencyKey: string, amount: string) =>
  submit({ ...seededWithdrawal(stack, 'fiat', idempotencyKey, amount), clientComment: `payout ${idempotencyKey}` });
const btc = (idempotencyKey: string, amount: string) =>
  submit(seededWithdrawal(stack, 'crypto', idempotencyKey, amount));
const get = (requestId: string) => request<WithdrawalReply>(stack, withdrawalSubjects.get, { requestId });
const getByKey = (idempotencyKey: string) =>
  request<WithdrawalReply>(stack, withdrawalSubjects.get, { idempotencyKey });

/** How many requests the venue holds with this reference (its own lists, as the gateway relays them). */
async function venueRows(requestId: string): Promise<number> {
  const reply = await request<WithdrawalListReply>(stack, withdrawalSubjects.list, {});
  if (!reply.ok) throw new Error(reply.error.message);
  return reply.withdrawals.filter((row) => row.requestId === requestId).length;
}

/** The `withdrawals` check of account-sync's /health (503 while any check is down). */
async function withdrawalsHealth(): Promise<{ up: boolean; detail?: string } | undefined> {
  const body = (await (await fetch(`${stack.app?.httpUrl}/health`)).json()) as {
    checks?: Record<string, { up: boolean; detail?: string }>;
  };
  return body.checks?.['withdrawals'];
}
/** A series' value on account-sync's /metrics; undefined when it exports none (not 0). */
const series = (name: string, labels: Record<string, string> = {}) =>
  seriesValue(stack.app?.httpUrl ?? '', name, labels);
const restoringSeconds = () => metricValue(stack, 'account_sync_withdrawals_restoring_seconds');

/** account-sync stopped, nats-server replaced by one on a new, empty store directory, account-sync started. */
async function loseTheStore(beforeStart?: () => Promise<void>): Promise<void> {
  await stack.stopApp();
  await stack.restartNats({ emptyStore: true });
  await beforeStart?.();
  await stack.startApp();
}

describe('account-sync withdrawals after NATS lost its store', () => {
  beforeAll(async () => {
    // /health tells a restoration failing at once here (60 s as shipped)
    stack = await startAccountSyncStack({ env: { WITHDRAWAL_RESTORE_GRACE_MS: '0' } });
  });
  afterAll(async () => {
    await stack?.stop();
  });

  it('restores the withdrawals from the venue; a repeat of a key answers its withdrawal, never a second one', async () => {
    const open = (await fiat('lost-open', '100.50')).withdrawal as WithdrawalView;
    const done = (await fiat('lost-done', '20.00')).withdrawal as WithdrawalView;
    const coin = (await btc('lost-coin', '0.01')).withdrawal as WithdrawalView;
    for (const view of [open, done, coin]) expect(view.state).toBe('PENDING_APPROVAL');
    await admin(stack.venue, `/withdrawals/${done.venueUuid}/approve`);
    await admin(stack.venue, `/withdrawals/${done.venueUuid}/process`);
    await waitFor(async () => (await get(done.requestId)).withdrawal?.state === 'PROCESSED', 'PROCESSED before');

    await loseTheStore();

    // the history is back, in the venue's states, marked restored; the key itself is not held by the venue
    const restoredOpen = await get(open.requestId);
    expect(restoredOpen).toMatchObject({
      ok: true,
      withdrawal: {
        requestId: open.requestId,
        idempotencyKey: '',
        kind: 'fiat',
        state: 'PENDING_APPROVAL',
        accountGroupUuid: stack.venue.seed.defaultGroupUuid,
        ccy: 'USD',
        amount: '100.50',
        bankAccountUuid: stack.venue.seed.bankUsdOk,
        clientComment: 'payout lost-open',
        venueUuid: open.venueUuid,
      },
    });
    expect(restoredOpen.withdrawal?.restored?.at).toEqual(expect.any(Number));
    expect((await get(done.requestId)).withdrawal).toMatchObject({ state: 'PROCESSED', venueUuid: done.venueUuid });
    expect((await get(coin.requestId)).withdrawal).toMatchObject({ kind: 'crypto', state: 'PENDING_APPROVAL' });
    // found by the key too (its digest is the requestId), and published again for treasury
    expect((await getByKey('lost-done')).withdrawal).toMatchObject({
      requestId: done.requestId,
      idempotencyKey: 'lost-done',
    });
    const events = await withdrawalEvents(stack, done.requestId);
    expect(events.map((e) => [e.previousState, e.withdrawal.state, e.withdrawal.restored !== undefined])).toEqual([
      [null, 'PROCESSED', true],
    ]);
    expect(await metricValue(stack, 'account_sync_withdrawals_restored_total', { kind: 'fiat' })).toBe(2);
    expect(await metricValue(stack, 'account_sync_withdrawals_restored_total', { kind: 'crypto' })).toBe(1);

    // the same request again: answered with the restored one, nothing sent
    const again = await fiat('lost-open', '100.50');
    expect(again).toMatchObject({
      ok: true,
      withdrawal: { requestId: open.requestId, venueUuid: open.venueUuid, idempotencyKey: 'lost-open' },
    });
    // the key of a processed withdrawal with other parameters: refused, nothing sent
    const reused = await fiat('lost-done', '35.00');
    expect(reused).toMatchObject({
      ok: false,
      error: { code: 'IDEMPOTENCY_CONFLICT' },
      withdrawal: { requestId: done.requestId, state: 'PROCESSED' },
    });
    expect((await btc('lost-coin', '0.01')).withdrawal).toMatchObject({ venueUuid: coin.venueUuid });
    for (const view of [open, done, coin]) expect(await venueRows(view.requestId)).toBe(1);

    // a new key is sent as ever; the restored open one still moves with the venue
    const fresh = await fiat('after-loss', '5.00');
    expect(fresh).toMatchObject({ ok: true, withdrawal: { state: 'PENDING_APPROVAL', idempotencyKey: 'after-loss' } });
    expect(fresh.withdrawal?.restored).toBeUndefined();
    expect(await venueRows(fresh.withdrawal?.requestId ?? '')).toBe(1);
    await admin(stack.venue, `/withdrawals/${open.venueUuid}/approve`);
    await waitFor(async () => (await get(open.requestId)).withdrawal?.state === 'PENDING', 'PENDING after the loss');
  });

  it('refuses a submit of a key not held while the lists cannot be read; restores them once they can', async () => {
    const held = (await fiat('lost-again', '7.00')).withdrawal as WithdrawalView;
    expect(held.state).toBe('PENDING_APPROVAL');
    // requests the suite's earlier cases left open count too: the same count must come back once restored
    const openBefore = await series('account_sync_withdrawals_open', { state: 'PENDING_APPROVAL' });
    expect(openBefore).toBeGreaterThanOrEqual(1);
    const path = '/api/3/withdrawal/fiat/list';
    await loseTheStore(() => admin(stack.venue, '/faults/rest', { status: 503, count: 100_000, path }));

    const refused = await fiat('lost-again', '7.00');
    expect(refused).toMatchObject({ ok: false, error: { code: 'WITHDRAWALS_RESTORING' } });
    expect((await get(held.requestId)).ok).toBe(false); // not restored yet: unknown, and nothing was sent
    // operators are told: how long it has been pending, and /health names the check and why
    await waitFor(async () => (await restoringSeconds()) > 0, 'restoring seconds counted');
    const told = await withdrawalsHealth();
    expect(told?.up).toBe(false);
    expect(told?.detail).toContain('WITHDRAWALS_RESTORING');
    expect(told?.detail).toContain('503');
    // what it follows lacks the venue's rows meanwhile: no count of open or stuck requests rather than a short one
    expect(await series('account_sync_withdrawals_open', { state: 'PENDING_APPROVAL' })).toBeUndefined();
    expect(await series('account_sync_withdrawals_stuck')).toBeUndefined();

    await fetch(`${stack.venue.adminUrl}/faults/rest`, { method: 'DELETE' });
    await waitFor(async () => (await get(held.requestId)).withdrawal?.restored !== undefined, 'restored by a poll');
    // the pass ends after its last record (the ledger mark written): the gauge reads 0 from then on (CI: read 1 between)
    await waitFor(async () => (await restoringSeconds()) === 0, 'restoring seconds back to 0');
    await waitFor(async () => (await withdrawalsHealth())?.up === true, 'the withdrawals check up again');
    expect(await series('account_sync_withdrawals_open', { state: 'PENDING_APPROVAL' })).toBe(openBefore);
    expect(await series('account_sync_withdrawals_stuck')).toBe(0);
    expect(await fiat('lost-again', '7.00')).toMatchObject({ ok: true, withdrawal: { venueUuid: held.venueUuid } });
    expect(await venueRows(held.requestId)).toBe(1);
  });
});

describe('account-sync withdrawals after NATS lost its store, on a venue whose fiat rows show no account group (§2.7)', () => {
  beforeAll(async () => {
    stack = await startAccountSyncStack({ venue: { dialect: { fiatWithdrawalRow: 'shown-fields' } } });
  });
  afterAll(async () => {
    await stack?.stop();
  });

  it("restores the request with '' for its group; a cancel names the group the venue needs, none is refused unsent", async () => {
    const held = (await fiat('no-group', '3.00')).withdrawal as WithdrawalView;
    expect(held).toMatchObject({ state: 'PENDING_APPROVAL', accountGroupUuid: stack.venue.seed.defaultGroupUuid });
    await loseTheStore();

    const restored = (await get(held.requestId)).withdrawal;
    expect(restored).toMatchObject({
      accountGroupUuid: '', // not shown by the venue's row: never guessed
      bankAccountUuid: stack.venue.seed.bankUsdOk,
      state: 'PENDING_APPROVAL',
      restored: { at: expect.any(Number) },
    });
    // a repeat by its key agrees with the group it names (the row showed none), and sends nothing
    expect(await fiat('no-group', '3.00')).toMatchObject({ ok: true, withdrawal: { venueUuid: held.venueUuid } });

    // the venue's cancel needs the group (§4.9): unnamed, the cancel is refused and nothing is sent
    const cancel = (body: Record<string, unknown>) => request<WithdrawalReply>(stack, withdrawalSubjects.cancel, body);
    const unnamed = await cancel({ requestId: held.requestId });
    expect(unnamed).toMatchObject({ ok: false, error: { code: 'INVALID_REQUEST' } });
    expect(unnamed.ok ? '' : unnamed.error.message).toContain('accountGroupUuid');
    expect((await get(held.requestId)).withdrawal).toMatchObject({ state: 'PENDING_APPROVAL' });
    expect((await get(held.requestId)).withdrawal?.cancelRequested).toBeUndefined();

    const named = await cancel({ requestId: held.requestId, accountGroupUuid: stack.venue.seed.defaultGroupUuid });
    expect(named).toMatchObject({ ok: true, withdrawal: { state: 'CANCELLED', venueUuid: held.venueUuid } });
    expect(await venueRows(held.requestId)).toBe(1);
  });
});
