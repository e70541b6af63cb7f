import { describe, expect, it } from '@jest/globals';
import type { WithdrawalView } from '#contracts';
import type { WithdrawalRequest } from '#venue-api';
import { duplicatesOf, legacyRequestIdOf, requestIdOf, rowIsOf } from './withdrawal-identity.js';

const view: WithdrawalView = {
  requestId: requestIdOf('acct1', 'payout-42'),
  idempotencyKey: 'payout-42',
  kind: 'fiat',
  state: 'SUBMITTING',
  accountGroupUuid: 'group-1',
  ccy: 'EUR',
  amount: '100.50',
  bankAccountUuid: 'bank-1',
  createdAt: 0,
  updatedAt: 0,
};
const row = (fields: Partial<WithdrawalRequest>): WithdrawalRequest => ({
  uuid: 'venue-1',
  clientComment: `gw:${view.requestId} rent`,
  ...fields,
});

describe('withdrawal identity', () => {
  it('one key in two gateway accounts is two requests; the id of before was of the key alone', () => {
    expect(requestIdOf('acct1', 'payout-42')).toMatch(/^[a-f0-9]{24}$/);
    expect(requestIdOf('acct1', 'payout-42')).toBe(requestIdOf('acct1', 'payout-42'));
    expect(requestIdOf('acct2', 'payout-42')).not.toBe(requestIdOf('acct1', 'payout-42'));
    // no joining ambiguity: ("a:b", "c") is not ("a", "b:c")
    expect(requestIdOf('a:b', 'c')).not.toBe(requestIdOf('a', 'b:c'));
    expect(legacyRequestIdOf('payout-42')).not.toBe(requestIdOf('acct1', 'payout-42'));
  });

  it('a row is ours when it carries our reference and shows nothing else', () => {
    expect(rowIsOf(view, row({}))).toBe(true);
    expect(
      rowIsOf(view, row({ accountGroupUuid: 'group-1', ccy: 'EUR', amount: '100.5', bankAccount: { uuid: 'bank-1' } })),
    ).toBe(true);
  });

  it('a row with another reference, or one whose fields contradict the request, is not ours', () => {
    expect(rowIsOf(view, row({ clientComment: `gw:${requestIdOf('acct2', 'payout-42')}` }))).toBe(false);
    expect(rowIsOf(view, row({ clientComment: undefined }))).toBe(false);
    expect(rowIsOf(view, row({ accountGroupUuid: 'group-2' }))).toBe(false);
    expect(rowIsOf(view, row({ ccy: 'USD' }))).toBe(false);
    expect(rowIsOf(view, row({ amount: '100.51' }))).toBe(false);
    expect(rowIsOf(view, row({ amount: 'not a number' }))).toBe(false);
    expect(rowIsOf(view, row({ bankAccount: { uuid: 'bank-2' } }))).toBe(false);
    expect(rowIsOf({ ...view, kind: 'crypto', walletUuid: 'w-1' }, row({ wallet: { uuid: 'w-2' } }))).toBe(false);
  });

  it('a second row with our reference and fields besides the tracked one is a duplicate; others are not', () => {
    const tracked = row({ uuid: 'venue-1', amount: '100.50' });
    const second = row({ uuid: 'venue-2', amount: '100.5', ccy: 'EUR', accountGroupUuid: 'group-1' });
    const rows = [
      tracked,
      second,
      row({ uuid: 'venue-3', amount: '200.00' }), // our reference, another amount: not ours
      row({ uuid: 'venue-4', clientComment: `gw:${requestIdOf('acct2', 'payout-42')}` }), // another request
      row({ uuid: 'venue-5', clientComment: 'rent' }), // no reference
    ];
    expect(duplicatesOf(view, 'venue-1', rows)).toEqual([second]);
    // whichever row is tracked, the other is the duplicate
    expect(duplicatesOf(view, 'venue-2', rows)).toEqual([tracked]);
    expect(duplicatesOf(view, 'venue-1', [tracked])).toEqual([]);
    // the tracked row absent from this read (a lagging list): a row of ours with another uuid still is one
    expect(duplicatesOf(view, 'venue-1', [second])).toEqual([second]);
  });

  it("a row showing the request's group UUID in the other case is ours (a UUID is case-insensitive, WD10)", () => {
    const group = '9a000000-0000-4000-8000-0000000000ab';
    const upper = { ...view, accountGroupUuid: group.toUpperCase() };
    expect(rowIsOf(upper, row({ accountGroupUuid: group }))).toBe(true);
    expect(rowIsOf({ ...view, accountGroupUuid: group }, row({ accountGroupUuid: group.toUpperCase() }))).toBe(true);
    expect(rowIsOf(upper, row({ accountGroupUuid: '9a000000-0000-4000-8000-0000000000ac' }))).toBe(false);
    // not UUIDs: compared as written
    expect(rowIsOf(view, row({ accountGroupUuid: 'GROUP-1' }))).toBe(false);
  });
});
