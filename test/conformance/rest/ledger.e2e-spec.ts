/**
 * §2.4, §2.6, §2.9, §4.4, §4.5, §4.10, spec-gaps R9/R15: trades (RFS over the real WebSocket and desk OTC),
 * their two transaction legs, and balances that move with trades, settlement and withdrawals.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { RestPath } from '#venue-api';
import { admin, numberTexts, raw, SpecClient } from '../spec-client.js';
import { startWsVenue, subscribeRequest, type WsVenue } from '../ws/ws-harness.js';
import { isType } from '../ws/ws-test-client.js';

interface Detail {
  value: string;
}
interface Account {
  Balance: Detail;
  Available_Balance: Detail;
  Unsettled_Buy_Balance: Detail;
  Unsettled_Sell_Balance: Detail;
}

describe('trades, transactions and balances', () => {
  let v: WsVenue;
  let client: SpecClient;

  const account = async (group: string, ccy: string): Promise<Account> => {
    const res = await client.post(RestPath.Balances, { accountGroupUuid: group });
    const body = res.json as { data: { Account_Groups: { Accounts: Record<string, Account> }[] } };
    const found = body.data.Account_Groups[0]?.Accounts[ccy];
    if (found === undefined) throw new Error(`no ${ccy} account`);
    return found;
  };

  beforeAll(async () => {
    v = await startWsVenue();
    client = new SpecClient(v.venue.restBaseUrl, v.venue.credentials.primary);
  });
  afterAll(() => v.close());

  it('a desk (OTC) trade: unsettled balances, trade record with exact JSON-number amounts, settle moves them', async () => {
    const sub = v.venue.seed.subGroupUuid;
    const booked = await admin(v.venue.adminUrl, '/trades/otc', {
      accountGroupUuid: sub,
      instrument: 'BTC.USD',
      side: 'BUY',
      baseAmount: '0.12345678',
      quoteAmount: '7932.10',
      price: '64250.5',
      settleDate: '20260105',
      clientRef: 'otc-ledger-1',
    });
    const { tradeUuid } = booked.json as { tradeUuid: string };

    const btc = await account(sub, 'BTC');
    expect(btc.Unsettled_Buy_Balance.value).toBe('0.12345678');
    expect(btc.Balance.value).toBe('1.12345678');
    expect(btc.Available_Balance.value).toBe('1.00000000');
    const usd = await account(sub, 'USD');
    expect(usd.Unsettled_Sell_Balance.value).toBe('7932.10');
    expect(usd.Balance.value).toBe('42067.90');

    const trades = await client.post(RestPath.Trades, { clientRef: 'otc-ledger-1' });
    expect(trades.json).toMatchObject({
      total: 1,
      data: [
        {
          uuid: tradeUuid,
          tradeRef: expect.stringMatching(/^SBX-OTC-/),
          clientRef: 'otc-ledger-1',
          tradeSide: 'BUY',
          tradeClass: 'OTC',
          state: 'PENDING_SETTLEMENT',
          settlementDate: '2026-01-05',
          accountGroup: { uuid: sub, name: 'Acme Sub-account' },
          executedPrice: '[BTC/USD] 64250.5',
          user: 'ACME001',
        },
      ],
    });
    const otc = (trades.json as { data: Record<string, unknown>[] }).data[0];
    expect(otc).not.toHaveProperty('quoteId');
    // §2.4: executorLogin is who entered the trade: for OTC the desk trader, not the client's user.
    expect(typeof otc?.['executorLogin']).toBe('string');
    expect(otc?.['executorLogin']).not.toBe('acme.trader@example.com');
    expect(otc?.['createdAt']).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}/);
    expect(otc?.['updatedAt']).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}/);
    // Standard settlement: no beneficiary, sender or networkId.
    for (const f of ['beneficiary', 'sender', 'networkId']) expect(otc).not.toHaveProperty(f);
    expect(numberTexts(trades.text, 'amount')).toEqual(['7932.1', '0.12345678']);

    await admin(v.venue.adminUrl, `/trades/${tradeUuid}/settle`);
    const settled = await account(sub, 'BTC');
    expect(settled.Unsettled_Buy_Balance.value).toBe('0.00000000');
    expect(settled.Balance.value).toBe('1.12345678');
    expect(settled.Available_Balance.value).toBe('1.12345678');
    expect((await client.post(RestPath.Trades, { clientRef: 'otc-ledger-1' })).json).toMatchObject({
      data: [{ state: 'SETTLED' }],
    });
    expect((await admin(v.venue.adminUrl, `/trades/${tradeUuid}/cancel`)).status).toBe(409);
  });

  it('a cancelled trade unwinds its unsettled amounts; its legs become CANCELLED', async () => {
    const def = v.venue.seed.defaultGroupUuid;
    const before = await account(def, 'EUR');
    const booked = await admin(v.venue.adminUrl, '/trades/otc', {
      accountGroupUuid: def,
      instrument: 'EUR.USD',
      side: 'SELL',
      baseAmount: '1000',
      quoteAmount: '1085.25',
      price: '1.08525',
    });
    const { tradeUuid } = booked.json as { tradeUuid: string };
    expect((await account(def, 'EUR')).Unsettled_Sell_Balance.value).toBe('1000.00');
    await admin(v.venue.adminUrl, `/trades/${tradeUuid}/cancel`);
    expect((await account(def, 'EUR')).Balance.value).toBe(before.Balance.value);
    const legs = (await (await fetch(`${v.venue.adminUrl}/trades/${tradeUuid}/transactions`)).json()) as {
      transactionState: string;
    }[];
    expect(legs.map((l) => l.transactionState)).toEqual(['CANCELLED', 'CANCELLED']);
  });

  it('an RFS order over the WebSocket books one trade with clientRef and quoteId, and two RFSTRADE legs', async () => {
    const ws = await v.connect();
    ws.send(subscribeRequest(v.venue, { instrument: 'ETH.USD', currency: 'ETH', quantity: '2', tag: 'ledger' }));
    await ws.take(isType('subscribe', { tag: 'ledger' }));
    const price = await ws.take(isType('pricestream', { tag: 'ledger' }));
    const quoteId = price.json['quoteId'];
    ws.send({ messageType: 'order', quoteId, side: 'SELL', clientRequestId: 'rfs-ledger-1' });
    await ws.take((f) => f['messageType'] === 'order' && f['orderStatus'] === 'SUCCESS');

    const trades = await client.post(RestPath.Trades, { clientRef: 'rfs-ledger-1', tradeClass: 'RFS' });
    const trade = (trades.json as { data: Record<string, unknown>[] }).data[0];
    expect(trade).toMatchObject({ tradeSide: 'SELL', tradeClass: 'RFS', quoteId, state: 'PENDING_SETTLEMENT' });
    expect(trade?.['tradedAmount']).toEqual({ amount: 2, currency: 'ETH' });
    expect(trade?.['executorLogin']).toBe('acme.trader@example.com');

    const txs = await client.post(RestPath.TransactionList, { transactionClass: 'RFSTRADE' });
    const legs = (txs.json as { data: Record<string, unknown>[] }).data.filter((t) => t['tradeId'] === trade?.['uuid']);
    expect(legs.map((l) => `${String(l['transactionType'])}/${String(l['ccy'])}`).sort()).toEqual([
      'TRADE_CREDIT/USD',
      'TRADE_DEBIT/ETH',
    ]);
    expect(legs.every((l) => l['transactionState'] === 'PENDING' && l['quoteId'] === quoteId)).toBe(true);
    expect(legs.every((l) => l['customRef'] === 'rfs-ledger-1')).toBe(true);
    // the USD leg's amount is the offer/bid quoteAmount as exact text
    const bidQuoteAmount = /"bid":\{[^}]*"quoteAmount":"([^"]+)"/.exec(price.text)?.[1];
    expect(numberTexts(txs.text, 'amount')).toContain(bidQuoteAmount);

    expect((await account(v.venue.seed.defaultGroupUuid, 'ETH')).Unsettled_Sell_Balance.value).toBe('2.00000000');

    // §4.10: the owner reads its order; another account gets an empty array, not 403/404
    const mine = await client.post(RestPath.OrderState, {}, { query: 'clientRequestId=rfs-ledger-1' });
    expect(mine.json).toEqual([
      expect.objectContaining({ messageType: 'orderState', orderStatus: 'SUCCESS', clientRequestId: 'rfs-ledger-1' }),
    ]);
    const theirs = await client
      .withCredentials(v.venue.credentials.secondUser)
      .post(RestPath.OrderState, {}, { query: 'clientRequestId=rfs-ledger-1' });
    expect(theirs.status).toBe(200);
    expect(theirs.json).toEqual([]);
  });

  it('a processed fiat withdrawal lowers the total balance; a pending one lowers only what is available', async () => {
    const sub = v.venue.seed.subGroupUuid;
    const before = await account(sub, 'USD');
    const res = await client.post(RestPath.WithdrawalFiat, {
      accountGroupUuid: sub,
      ccy: 'USD',
      amount: raw('100.25'),
      withdrawalMethod: 'BANK_WIRE',
      bankAccountUuid: v.venue.seed.bankSubUsdOk,
    });
    const { uuid } = res.json as { uuid: string };
    const pending = await account(sub, 'USD');
    expect(pending.Balance.value).toBe(before.Balance.value);
    await admin(v.venue.adminUrl, `/withdrawals/${uuid}/approve`);
    await admin(v.venue.adminUrl, `/withdrawals/${uuid}/process`);
    const after = await account(sub, 'USD');
    expect(after.Balance.value).toBe('41967.65');
    const cash = await client.post(RestPath.TransactionList, { transactionClass: 'CASH' });
    expect(cash.json).toMatchObject({
      data: [{ transactionType: 'WITHDRAWAL', transactionState: 'PROCESSED', ccy: 'USD', customRef: uuid }],
    });
    expect(numberTexts(cash.text, 'amount')).toEqual(['100.25']);
  });

  it('an operator deposit raises a PENDING CASH DEPOSIT leg; processing it credits the balance', async () => {
    const group = v.venue.seed.noRoleGroup;
    const res = await admin(v.venue.adminUrl, '/deposits', { accountGroupUuid: group, ccy: 'USD', amount: '500.05' });
    const leg = res.json as { uuid: string; transactionState: string; transactionClass: string };
    expect(leg).toMatchObject({ transactionState: 'PENDING', transactionClass: 'CASH', transactionType: 'DEPOSIT' });
    expect((await account(group, 'USD')).Balance.value).toBe('25000.00');
    await admin(v.venue.adminUrl, `/transactions/${leg.uuid}/process`);
    expect((await account(group, 'USD')).Balance.value).toBe('25500.05');
  });

  it('adds amounts of any size exactly: a deposit of 1e20 keeps the cents of the balance it lands on', async () => {
    const group = v.venue.seed.noRoleGroup;
    const before = (await account(group, 'EUR')).Balance.value;
    const res = await admin(v.venue.adminUrl, '/deposits', {
      accountGroupUuid: group,
      ccy: 'EUR',
      amount: '100000000000000000000.01',
    });
    const leg = res.json as { uuid: string };
    await admin(v.venue.adminUrl, `/transactions/${leg.uuid}/process`);
    const after = (await account(group, 'EUR')).Balance.value;
    // decimal.js as imported keeps 20 significant digits: the cents of both were lost
    const [whole = '', cents = ''] = before.split('.');
    expect(after).toBe(`${BigInt(whole) + 100000000000000000000n}.${String(Number(cents) + 1).padStart(2, '0')}`);
  });

  it('§4.5 filters and pagination: total counts matches, pages hold at most max', async () => {
    for (let i = 0; i < 3; i++) {
      await admin(v.venue.adminUrl, '/trades/otc', {
        accountGroupUuid: v.venue.seed.defaultGroupUuid,
        instrument: 'GBP.USD',
        side: 'BUY',
        baseAmount: '10',
        quoteAmount: '12.71',
        price: '1.2714',
        clientRef: 'page',
      });
    }
    const page1 = await client.post(RestPath.Trades, { clientRef: 'page', max: 2 });
    const page2 = await client.post(RestPath.Trades, { clientRef: 'page', max: 2, offset: 2 });
    expect(page1.json).toMatchObject({ total: 3 });
    expect((page1.json as { data: unknown[] }).data).toHaveLength(2);
    expect((page2.json as { data: unknown[] }).data).toHaveLength(1);
    expect((await client.post(RestPath.Trades, { clientRef: 'page', tradeSide: 'SELL' })).json).toMatchObject({
      total: 0,
    });
    expect((await client.post(RestPath.Trades, { clientRef: 'page', to: '2000-01-01T00:00:00Z' })).json).toMatchObject({
      total: 0,
    });
    expect(
      (await client.post(RestPath.Trades, { accountGrpUuid: v.venue.seed.subGroupUuid, clientRef: 'page' })).json,
    ).toMatchObject({ total: 0 });
  });
  it('a trade reference is never reused by a later life of the sandbox (it starts afresh in memory each time)', async () => {
    const otc = (venue: WsVenue['venue']): Promise<{ tradeRef: string }> =>
      admin(venue.adminUrl, '/trades/otc', {
        accountGroupUuid: venue.seed.subGroupUuid,
        instrument: 'BTC.USD',
        side: 'BUY',
        baseAmount: '0.01',
        quoteAmount: '642.50',
        price: '64250',
        settleDate: '20260105',
      }).then((res) => res.json as { tradeRef: string });
    const earlier = await otc(v.venue);
    const later = await startWsVenue();
    try {
      const first = await otc(later.venue);
      expect(first.tradeRef).toMatch(/^SBX-OTC-/);
      expect(first.tradeRef).not.toBe(earlier.tradeRef);
      // within one life the references still run in order
      expect((await otc(later.venue)).tradeRef > first.tradeRef).toBe(true);
    } finally {
      await later.close();
    }
  });
});
