import { describe, expect, it } from '@jest/globals';
import { AccountGroupCheck } from './account-group-check.js';

const LISTED = '9a000000-0000-4000-8000-000000000001';

function checkWith(lists: Array<readonly string[] | Error>) {
  let now = 0;
  let asked = 0;
  const check = new AccountGroupCheck(
    async () => {
      const next = lists[Math.min(asked, lists.length - 1)] as readonly string[] | Error;
      asked += 1;
      if (next instanceof Error) throw next;
      return next;
    },
    () => now,
  );
  return { check, asked: () => asked, advance: (ms: number) => (now += ms) };
}

describe('AccountGroupCheck', () => {
  it('a group the venue lists passes, in any case; the list is asked once while fresh', async () => {
    const { check, asked, advance } = checkWith([[LISTED]]);
    expect(await check.warningFor(LISTED.toUpperCase())).toBeUndefined();
    expect(await check.warningFor(LISTED)).toBeUndefined();
    expect(asked()).toBe(1);
    advance(60_000);
    expect(await check.warningFor(LISTED)).toBeUndefined();
    expect(asked()).toBe(2);
  });

  it('a group the venue does not list is told; the list is asked again first (a group may just be added)', async () => {
    const added = '9a000000-0000-4000-8000-000000000002';
    const { check, asked } = checkWith([[LISTED], [LISTED, added]]);
    expect(await check.warningFor(LISTED)).toBeUndefined();
    expect(await check.warningFor(added)).toBeUndefined();
    expect(asked()).toBe(2);
    expect(await check.warningFor('not-a-group')).toEqual({
      reason: 'unlisted-account-group',
      text: 'accountGroup is not one of the 2 account groups the venue lists for this account: it applies to no order unless one names it',
    });
  });

  it('a connector that cannot be asked leaves the change unchecked, said with a bounded reason', async () => {
    const { check } = checkWith([new Error(`NOT_CONNECTED ${'x'.repeat(5_000)}`)]);
    const warning = await check.warningFor(LISTED);
    expect(warning?.reason).toBe('account-groups-unchecked');
    expect(warning?.text).toMatch(
      /^accountGroup not checked against the venue's account groups \(the connector did not list them: NOT_CONNECTED x+\)$/,
    );
    expect(warning?.text.length).toBeLessThan(400);
  });
});
