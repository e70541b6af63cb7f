import { describe, it, expect } from '@jest/globals';
import type { AccountGroupEntry } from '#venue-api';
import type { UserDirectory } from '../../ports.js';
import { Market } from '../market/market.js';
import { validateSubscribe, type SubscribeContext } from './subscribe-validation.js';

const GROUP = '8d6f5a4e-0000-4000-8000-000000000001';
const BENEFICIARY = 'b0000000-0000-4000-8000-000000000001';
const SENDER = 'c0000000-0000-4000-8000-000000000001';

/** A directory of one user with one group; EUR.USD disabled. */
const directory: UserDirectory = {
  accountGroupsOf: (): AccountGroupEntry[] => [{ uuid: GROUP, name: 'Default', natural: true }],
  isPairEnabled: (_user, instrument) => instrument !== 'EUR.USD',
  findCounterparty: (_user, kind, uuid) =>
    (kind === 'BENEFICIARY' && uuid === BENEFICIARY) || (kind === 'SENDER' && uuid === SENDER)
      ? { uuid, name: 'x' }
      : undefined,
};

// A Wednesday, 10:00 UTC.
const NOW = Date.UTC(2026, 0, 7, 10, 0, 0);

function context(overrides: Partial<SubscribeContext> = {}): SubscribeContext {
  return {
    userUuid: 'u1',
    market: new Market(1),
    directory,
    now: NOW,
    cutoffHourUtc: 22,
    isHeld: () => false,
    takeInjectedFailure: () => false,
    ...overrides,
  };
}

const valid = {
  messageType: 'subscribe',
  instrument: 'BTC.USD',
  quantity: '1.5',
  currency: 'BTC',
  accountGrpUuid: GROUP,
  tenor: 'T',
};

function codeOf(request: Record<string, unknown>, ctx = context()): string {
  const verdict = validateSubscribe(request, ctx);
  return verdict.ok ? '' : verdict.code;
}

describe('subscribe validation (W16 order and codes)', () => {
  it('accepts a valid request and normalises the quantity to 8 decimals half-even (W17)', () => {
    const verdict = validateSubscribe({ ...valid, quantity: '0.123456785', tag: 'a' }, context());
    expect(verdict.ok).toBe(true);
    if (verdict.ok) {
      expect(verdict.spec.quantity.toFixed(8)).toBe('0.12345678');
      expect(verdict.spec.tag).toBe('a');
      expect(verdict.spec.networkId).toBeNull();
    }
  });

  it.each([
    [{ instrument: '' }, 'RFS100004'],
    [{ instrument: undefined }, 'RFS100004'],
    [{ instrument: 'BTCUSD' }, 'RFS100005'],
    [{ instrument: 'BTC.USD.X' }, 'RFS100005'],
    [{ currency: 'EUR' }, 'RFS100008'],
    [{ currency: 'btc' }, 'RFS100008'],
    [{ quantity: '-1' }, 'RFS100009'],
    [{ quantity: 'abc' }, 'RFS100009'],
    [{ quantity: '0' }, 'RFS100009'],
    [{ quantity: '0.000000001' }, 'RFS100009'],
    [{ quantity: 1 }, 'RFS100009'],
    [{ quantity: '1e3' }, 'RFS100009'],
    [{ quantity: '0.' + '1'.repeat(40) }, 'RFS100009'],
    [{ tenor: ' ' }, 'RFS100021'],
    [{ accountGrpUuid: '' }, 'RFS600004'],
    [{ beneficiaryDetails: {}, senderDetails: {} }, 'INVALID_SETTLEMENT_DETAILS'],
    [{ beneficiaryDetails: { beneficiaryId: 'nobody' } }, 'INVALID_SETTLEMENT_DETAILS'],
    [{ senderDetails: { payinCurrency: 'USD' } }, 'INVALID_SETTLEMENT_DETAILS'],
    [{ instrument: 'BTC.EUR', currency: 'BTC' }, 'RFS100011'],
    [{ instrument: 'btc.usd', currency: 'btc' }, 'RFS100011'],
    [{ tenor: 'NEVER' }, 'RFS100011'],
    [{ quantity: '100000' }, 'RFS100011'],
    [{ accountGrpUuid: 'not-mine' }, 'RFS600004'],
    [{ instrument: 'EUR.USD', currency: 'EUR', quantity: '1000' }, 'PRE200035'],
  ])('%j → %s', (change, code) => {
    expect(codeOf({ ...valid, ...change })).toBe(code);
  });

  it('checks the currency on the string halves before the pair lookup (RFS100008 before RFS100011)', () => {
    expect(codeOf({ ...valid, instrument: 'XXX.YYY', currency: 'BTC' })).toBe('RFS100008');
  });

  it('takes the first failure when several rules break', () => {
    expect(codeOf({ ...valid, instrument: 'BTCUSD', quantity: 'x', tenor: '' })).toBe('RFS100005');
    expect(codeOf({ ...valid, quantity: 'x', tenor: '', accountGrpUuid: '' })).toBe('RFS100009');
  });

  it('refuses a subscription already held with RFS100017, before an injected failure', () => {
    expect(codeOf(valid, context({ isHeld: () => true, takeInjectedFailure: () => true }))).toBe('RFS100017');
    expect(codeOf(valid, context({ takeInjectedFailure: () => true }))).toBe('RFS100013');
  });

  it('refuses a halted instrument with RFS100011', () => {
    const market = new Market(1);
    market.halt('BTC.USD');
    expect(codeOf(valid, context({ market }))).toBe('RFS100011');
  });

  it('resolves networkId: echo, SVC_TRANSFER for crypto payout, corridor for fiat, SVC_SENDER', () => {
    const net = (extra: Record<string, unknown>): string | null => {
      const v = validateSubscribe({ ...valid, ...extra }, context());
      return v.ok ? v.spec.networkId : v.networkId;
    };
    expect(net({ beneficiaryDetails: { beneficiaryId: BENEFICIARY, networkId: 'MINE' } })).toBe('MINE');
    expect(net({ beneficiaryDetails: { beneficiaryId: BENEFICIARY, payoutCurrency: 'BTC' } })).toBe('SVC_TRANSFER');
    expect(net({ beneficiaryDetails: { beneficiaryId: BENEFICIARY, payoutCurrency: 'USD' } })).toBe('FEDWIRE');
    expect(net({ senderDetails: { senderId: SENDER, payinCurrency: 'BTC' } })).toBe('SVC_SENDER');
    expect(net({})).toBeNull();
  });

  it('refuses a quantity finer than its currency can hold with RFS100009, in either currency (t1 F3)', () => {
    const shib = { ...valid, instrument: 'SHIB.USD', currency: 'SHIB' };
    expect(codeOf({ ...shib, quantity: '12345.5' })).toBe('RFS100009');
    expect(codeOf({ ...shib, quantity: '12345' })).toBe('');
    expect(codeOf({ ...shib, quantity: '12345.000' })).toBe(''); // zeros are no finer
    expect(codeOf({ ...valid, instrument: 'USD.JPY', currency: 'JPY', quantity: '1000.5' })).toBe('RFS100009');
    expect(codeOf({ ...valid, currency: 'USD', quantity: '1000.005' })).toBe('RFS100009');
    expect(codeOf({ ...valid, currency: 'USD', quantity: '1000.05' })).toBe('');
    // BTC holds 8 decimals: a 9th is rounded as before (W17), not refused
    expect(codeOf({ ...valid, quantity: '0.123456785' })).toBe('');
    // before the tenor check (W16: the quantity's own rule)
    expect(codeOf({ ...shib, quantity: '1.5', tenor: '' })).toBe('RFS100009');
  });

  it('treats different sizes as different streams', () => {
    const a = validateSubscribe(valid, context());
    const b = validateSubscribe({ ...valid, quantity: '2' }, context());
    expect(a.ok && b.ok && a.spec.streamKey !== b.spec.streamKey).toBe(true);
  });
});
