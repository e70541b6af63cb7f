import { describe, expect, it } from '@jest/globals';
import type { WithdrawalRequest } from '#venue-api';
import { requestIdOf } from './withdrawal-identity.js';
import { cancelGroupOf, LEDGER_MARK_KEY, restoredFieldAgrees, restoredRequests } from './withdrawal-restore.js';

const NOW = 1_700_000_000_000;
const payout = requestIdOf('acct1', 'payout-42');
const rent = requestIdOf('acct1', 'rent-7');

describe('withdrawal records restored from the venue lists', () => {
  it('each row with our reference becomes its request as the venue shows it, marked restored, its key unknown', () => {
    const rows: WithdrawalRequest[] = [
      {
        uuid: 'v-2',
        amount: '250.00',
        ccy: 'USD',
        state: 'PROCESSED',
        accountGroupUuid: 'group-1',
        bankAccount: { uuid: 'bank-1' },
        clientComment: `gw:${rent} march rent`,
        dateCreated: '2026-03-01T10:00:00.000+00:00',
        lastUpdated: '2026-03-01T12:00:00.000+00:00',
      },
      { uuid: 'v-1', amount: '100.50', ccy: 'USD', state: 'PENDING_APPROVAL', clientComment: `gw:${payout}` },
      { uuid: 'v-0', amount: '9.00', ccy: 'USD', state: 'PENDING', clientComment: 'raised by hand, no reference' },
    ];
    const restored = restoredRequests('fiat', rows, NOW);
    expect(restored.map((r) => r.requestId)).toEqual([rent, payout]);
    expect(restored[0]?.record).toEqual({
      view: {
        requestId: rent,
        idempotencyKey: '',
        kind: 'fiat',
        state: 'PROCESSED',
        accountGroupUuid: 'group-1',
        ccy: 'USD',
        amount: '250.00',
        bankAccountUuid: 'bank-1',
        clientComment: 'march rent',
        venueUuid: 'v-2',
        venueLastUpdated: '2026-03-01T12:00:00.000+00:00',
        createdAt: Date.parse('2026-03-01T10:00:00.000+00:00'),
        updatedAt: NOW,
        restored: { at: NOW },
      },
    });
    // fields the row does not show are '' (or absent), never guessed
    expect(restored[1]?.record.view).toMatchObject({ accountGroupUuid: '', createdAt: NOW, state: 'PENDING_APPROVAL' });
    expect(restored[1]?.record.view.clientComment).toBeUndefined();
    expect(restored[1]?.record.view.bankAccountUuid).toBeUndefined();
  });

  it('a reference on two rows: the oldest is the request, the later one its duplicate', () => {
    const rows: WithdrawalRequest[] = [
      { uuid: 'v-second', state: 'PENDING_APPROVAL', clientComment: `gw:${payout}` },
      { uuid: 'v-first', state: 'PENDING', clientComment: `gw:${payout}` },
    ];
    const [only, ...rest] = restoredRequests('crypto', rows, NOW);
    expect(rest).toEqual([]);
    expect(only?.record.view).toMatchObject({ venueUuid: 'v-first', state: 'PENDING', duplicates: ['v-second'] });
  });

  it('a row whose state cannot be read is UNKNOWN: followed by the polls, never sent', () => {
    const [only] = restoredRequests('crypto', [{ uuid: 'v-1', clientComment: `gw:${payout}` }], NOW);
    expect(only?.record.view).toMatchObject({ state: 'UNKNOWN', venueUuid: 'v-1', amount: '', ccy: '' });
  });

  it('a repeat agrees with what the row showed, and with anything where it showed nothing', () => {
    expect(restoredFieldAgrees('group-1', 'group-1')).toBe(true);
    expect(restoredFieldAgrees('group-1', 'group-2')).toBe(false);
    expect(restoredFieldAgrees('', 'group-2')).toBe(true);
    expect(restoredFieldAgrees(undefined, 'bank-9')).toBe(true);
  });

  it("a fiat row showing no account group (§2.7 shows none; R8 is our guess) is restored with '' — never a group guessed", () => {
    const [only] = restoredRequests(
      'fiat',
      [
        {
          uuid: 'v-1',
          amount: '7.00',
          ccy: 'USD',
          state: 'PENDING_APPROVAL',
          bankAccount: { uuid: 'bank-1' },
          clientComment: `gw:${payout}`,
        },
      ],
      NOW,
    );
    expect(only?.record.view).toMatchObject({ accountGroupUuid: '', bankAccountUuid: 'bank-1', restored: { at: NOW } });
  });

  it("a cancel sends the group held; one restored without it takes the caller's, and none at all is refused", () => {
    expect(cancelGroupOf('group-1', undefined)).toEqual({ ok: true, group: 'group-1' });
    expect(cancelGroupOf('group-1', 'group-1')).toEqual({ ok: true, group: 'group-1' });
    expect(cancelGroupOf('', 'group-2')).toEqual({ ok: true, group: 'group-2' });
    const unnamed = cancelGroupOf('', undefined);
    expect(unnamed).toMatchObject({ ok: false, code: 'INVALID_REQUEST' });
    expect(!unnamed.ok && unnamed.message).toContain('accountGroupUuid');
    expect(cancelGroupOf('group-1', 'group-2')).toMatchObject({ ok: false, code: 'INVALID_REQUEST' });
  });

  it("a cancel naming the request's group UUID in the other case is that group: the one held is sent", () => {
    const group = '9a000000-0000-4000-8000-0000000000ab';
    expect(cancelGroupOf(group, group.toUpperCase())).toEqual({ ok: true, group });
    expect(cancelGroupOf(group, '9a000000-0000-4000-8000-0000000000AC')).toMatchObject({ ok: false });
  });

  it('the ledger mark is no request id and sits under the prefix every loader skips', () => {
    expect(LEDGER_MARK_KEY.startsWith('sent.')).toBe(true);
    expect(LEDGER_MARK_KEY).not.toMatch(/^sent\.[a-f0-9]{24}$/);
  });
});
