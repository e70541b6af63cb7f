import { describe, expect, it } from '@jest/globals';
import { parseContract, WithdrawalSubmitRequest } from '#contracts';
import type { Participant } from '#venue-api';
import { checkAccountGroup, checkDestination, checkRequestShape, knownGroupSpelling } from './withdrawal-checks.js';

const GROUP = '9a000000-0000-4000-8000-000000000001';

function fiat(fields: Partial<WithdrawalSubmitRequest> = {}): WithdrawalSubmitRequest {
  return Object.assign(new WithdrawalSubmitRequest(), {
    idempotencyKey: 'k',
    kind: 'fiat',
    accountGroupUuid: GROUP,
    ccy: 'USD',
    amount: '100.50',
    bankAccountUuid: 'ba-usd',
    ...fields,
  });
}

const entity: Participant = {
  uuid: 'e',
  type: 'ENTITY',
  kind: 'ORIGINATOR',
  bankAccounts: [
    { uuid: 'ba-usd', currency: 'USD', enabled: true, verified: true },
    { uuid: 'ba-gbp-off', currency: 'GBP', enabled: false, verified: true },
    { uuid: 'ba-usd-unverified', currency: 'USD', enabled: true, verified: false },
  ],
  wallets: [
    { uuid: 'w-btc', asset: 'BTC', enabled: true, whitelisted: true },
    { uuid: 'w-eth-open', asset: 'ETH', enabled: true, whitelisted: false },
    { uuid: 'w-btc-off', asset: 'BTC', enabled: false, whitelisted: true },
  ],
};

describe('withdrawal checks', () => {
  it('fiat amounts: positive, at most two decimals as written', () => {
    expect(checkRequestShape(fiat())).toBeUndefined();
    expect(checkRequestShape(fiat({ amount: '100.500' }))?.message).toMatch(/3 decimals/);
    expect(checkRequestShape(fiat({ amount: '0.00' }))?.message).toMatch(/positive/);
  });

  it('names every problem of the request at once', () => {
    const request = fiat({ amount: '1.234', ccy: ' ', walletUuid: 'w', clientComment: 'x'.repeat(997) });
    expect(checkRequestShape(request)).toEqual({
      code: 'INVALID_REQUEST',
      message: [
        'amount has 3 decimals; a fiat withdrawal takes at most 2 (as written)',
        'ccy must not be blank',
        'a fiat withdrawal names bankAccountUuid (and no walletUuid)',
        "clientComment must be at most 996 characters (the gateway's reference takes the rest of 1024)",
      ].join('; '),
    });
  });

  it('crypto amounts: at most eight decimals as written (R6, WD4), refused naming the field', () => {
    const crypto = (amount: string) => {
      const request = fiat({ kind: 'crypto', ccy: 'ETH', amount, walletUuid: 'w' });
      delete request.bankAccountUuid;
      return checkRequestShape(request);
    };
    expect(crypto('0.00000001')).toBeUndefined();
    expect(crypto('1.50000000')).toBeUndefined();
    for (const amount of ['0.000000001', '0.123456789012345678', '0.1234567890123456789']) {
      expect(crypto(amount)).toEqual({
        code: 'INVALID_REQUEST',
        message: `amount has ${amount.length - 2} decimals; a crypto withdrawal takes at most 8 (as written)`,
      });
    }
  });

  it('a blank currency is refused here (the venue client would refuse it after the request was stored)', () => {
    expect(checkRequestShape(fiat({ ccy: ' ' }))?.message).toBe('ccy must not be blank');
  });

  it('the caller comment leaves room for the gateway reference', () => {
    expect(checkRequestShape(fiat({ clientComment: 'x'.repeat(996) }))).toBeUndefined();
    expect(checkRequestShape(fiat({ clientComment: 'x'.repeat(997) }))?.code).toBe('INVALID_REQUEST');
    // outside tester: the contract's own check said 1024, a limit that is not the real one
    const parsed = parseContract(
      WithdrawalSubmitRequest,
      JSON.stringify({ ...fiat(), clientComment: 'x'.repeat(1_100) }),
    );
    expect(parsed.ok).toBe(false);
    if (!parsed.ok) expect(JSON.stringify(parsed)).toContain('clientComment must be at most 996 characters');
  });

  it('bank account: on the entity, enabled, verified, same currency', () => {
    expect(checkDestination(fiat(), entity)).toBeUndefined();
    expect(checkDestination(fiat({ bankAccountUuid: 'nope' }), entity)?.code).toBe('BANK_ACCOUNT_UNUSABLE');
    expect(checkDestination(fiat({ bankAccountUuid: 'ba-gbp-off', ccy: 'GBP' }), entity)?.message).toMatch(/disabled/);
    expect(checkDestination(fiat({ bankAccountUuid: 'ba-usd-unverified' }), entity)?.message).toMatch(/verified/);
    expect(checkDestination(fiat({ ccy: 'EUR' }), entity)?.message).toMatch(/currency/);
  });

  it('wallet: on the entity, enabled, whitelisted, same asset', () => {
    const crypto = (walletUuid: string, ccy = 'BTC') => {
      const request = fiat({ kind: 'crypto', ccy, walletUuid });
      delete request.bankAccountUuid;
      return request;
    };
    expect(checkDestination(crypto('w-btc'), entity)).toBeUndefined();
    expect(checkDestination(crypto('w-eth-open', 'ETH'), entity)?.message).toMatch(/whitelisted/);
    expect(checkDestination(crypto('w-btc-off'), entity)?.message).toMatch(/disabled/);
    expect(checkDestination(crypto('w-btc', 'ETH'), entity)?.message).toMatch(/asset/);
    expect(checkDestination(crypto('missing'), entity)?.code).toBe('WALLET_UNUSABLE');
  });

  it('a currency is a code: control, format or white-space characters are refused without echoing the value (security tester)', () => {
    const submit = (ccy: string) =>
      parseContract(
        WithdrawalSubmitRequest,
        JSON.stringify({
          idempotencyKey: 'k',
          kind: 'fiat',
          accountGroupUuid: GROUP,
          ccy,
          amount: '1',
          bankAccountUuid: 'b',
        }),
      );
    for (const ccy of ['a\u0000b', 'x\u202e\u0007y', 'U SD', '\u001b[31mUSD', 'US\nD', '', 'X'.repeat(17)]) {
      const parsed = submit(ccy);
      expect(parsed).toEqual({
        ok: false,
        problems: ['ccy must be a currency code: 1-16 characters without white space, control or format characters'],
      });
    }
    for (const ccy of ['USD', 'BTC', 'usdc', 'USDC.E']) expect(submit(ccy).ok).toBe(true);
  });

  it("a destination refusal shows the venue's currency and the request's bounded, controls escaped", () => {
    const hostile: Participant = {
      ...entity,
      bankAccounts: [
        { uuid: 'ba-x', currency: 'U\u001b[2K\r\u202eSD' + 'Z'.repeat(40), enabled: true, verified: true },
      ],
      wallets: [{ uuid: 'w-x', asset: 'B\u0000TC', enabled: true, whitelisted: true }],
    };
    const bank = checkDestination(fiat({ bankAccountUuid: 'ba-x', ccy: 'a\u0000b' }), hostile)?.message ?? '';
    expect(bank).toBe('bank account currency is U\\u001b[2K\\u000d\\u202eSDZZZZZZZ…, not a\\u0000b');
    const wallet = checkDestination(fiat({ kind: 'crypto', ccy: 'ETH', walletUuid: 'w-x' }), hostile)?.message ?? '';
    expect(wallet).toBe('wallet asset is B\\u0000TC, not ETH');
  });

  it('an account group is a UUID, and so its shape is checked before any venue call (tester t2 F2)', () => {
    const submit = (fields: Record<string, unknown>) =>
      parseContract(
        WithdrawalSubmitRequest,
        JSON.stringify({ idempotencyKey: 'k', kind: 'fiat', ccy: 'USD', amount: '1', bankAccountUuid: 'b', ...fields }),
      );
    const rule = 'accountGroupUuid must be a UUID (8-4-4-4-12 hexadecimal digits)';
    for (const accountGroupUuid of [
      'a\u0000b',
      '\u202Eabc',
      'Infinity',
      '0x10',
      '-0',
      'g',
      '',
      `${GROUP}\u0000`,
      `${GROUP} `,
      '9a000000-0000-4000-8000-00000000000g',
      '9a0000000000400080000000000000001',
      'a\ud800',
      1,
      null,
    ]) {
      expect(submit({ accountGroupUuid })).toEqual({ ok: false, problems: [rule] });
    }
    expect(submit({}).ok).toBe(false);
    expect(submit({ accountGroupUuid: GROUP }).ok).toBe(true);
    expect(submit({ accountGroupUuid: GROUP.toUpperCase() }).ok).toBe(true);
  });

  it('a bank account or wallet goes into the venue body: control, format, bidi characters and lone surrogates refused', () => {
    const submit = (fields: Record<string, unknown>) =>
      parseContract(
        WithdrawalSubmitRequest,
        JSON.stringify({ idempotencyKey: 'k', accountGroupUuid: GROUP, ccy: 'USD', amount: '1', ...fields }),
      );
    for (const reference of ['a\u0000b', '\u202Eabc', 'a\u200bb', 'a\ud800', 'a b', 'a/b', '', 'x'.repeat(129)]) {
      expect(submit({ kind: 'fiat', bankAccountUuid: reference })).toEqual({
        ok: false,
        problems: ['bankAccountUuid must be 1-128 characters without white space, /, control or format characters'],
      });
      expect(submit({ kind: 'crypto', ccy: 'BTC', walletUuid: reference })).toEqual({
        ok: false,
        problems: ['walletUuid must be 1-128 characters without white space, /, control or format characters'],
      });
    }
    expect(submit({ kind: 'fiat', bankAccountUuid: 'ba-usd' }).ok).toBe(true);
    expect(submit({ kind: 'crypto', ccy: 'BTC', walletUuid: 'a1a10000-0000-4000-8000-00000000ffff' }).ok).toBe(true);
  });

  it("an account group the venue's balances do not list is refused, naming the field; before any read, the venue is asked", () => {
    const known = new Set([GROUP]);
    expect(checkAccountGroup(GROUP, known)).toBeUndefined();
    const other = '9a000000-0000-4000-8000-0000000000ff';
    expect(checkAccountGroup(other, known)).toEqual({
      code: 'INVALID_REQUEST',
      message: "accountGroupUuid is not one of the account's groups (as the venue's balances list them)",
    });
    expect(checkAccountGroup(other, new Set())).toMatchObject({ code: 'INVALID_REQUEST' });
    // not read yet in this life: the group is left to the venue's account details (404 remembered)
    expect(checkAccountGroup(other, undefined)).toBeUndefined();
  });

  it("a known group's UUID in the other case is that group, taken in the venue's spelling (WD10: either case)", () => {
    const venueSpelling = '9a000000-0000-4000-8000-0000000000ab';
    const known = new Set([GROUP, venueSpelling]);
    const upper = venueSpelling.toUpperCase();
    expect(checkAccountGroup(upper, known)).toBeUndefined();
    expect(knownGroupSpelling(upper, known)).toBe(venueSpelling);
    expect(knownGroupSpelling(venueSpelling, known)).toBe(venueSpelling);
    // a venue that writes its UUIDs in capitals is answered in capitals
    expect(knownGroupSpelling(venueSpelling, new Set([upper]))).toBe(upper);
    // another group is still no group of the account; not read yet: no spelling known
    expect(checkAccountGroup('9a000000-0000-4000-8000-0000000000AC', known)).toMatchObject({ code: 'INVALID_REQUEST' });
    expect(knownGroupSpelling('9a000000-0000-4000-8000-0000000000AC', known)).toBeUndefined();
    expect(knownGroupSpelling(upper, undefined)).toBeUndefined();
  });
});
