import { beforeEach, describe, expect, it } from '@jest/globals';
import { Decimal } from '../money.js';
import type { RfsTradeInput } from '../ports.js';
import type { WebhookDispatcher } from '../webhooks/webhook-dispatcher.js';
import { balanceDetail } from './balance-format.js';
import { VenueDirectory } from './directory.js';
import { Ledger } from './ledger.js';
import { SeedIds } from './seed.js';
import { TradeBook } from './trades.js';
import { TransactionBook } from './transactions.js';
import { WithdrawalBook } from './withdrawals.js';

const GROUP = SeedIds.defaultGroup; // USD 1000000.00, BTC 12.5, no SHIB

describe('trade booking: balances a client can pay, amounts a balance can hold (t1 F3)', () => {
  const clock = { now: () => Date.UTC(2026, 0, 7, 10) };
  const webhooks = { notify: () => undefined } as unknown as WebhookDispatcher;
  let ledger: Ledger;
  let transactions: TransactionBook;
  let withdrawals: WithdrawalBook;
  let trades: TradeBook;

  beforeEach(() => {
    ledger = new Ledger();
    transactions = new TransactionBook(clock, ledger, webhooks);
    withdrawals = new WithdrawalBook(clock, ledger, transactions);
    trades = new TradeBook(clock, new VenueDirectory(), ledger, transactions, withdrawals);
  });

  const trade = (over: Partial<RfsTradeInput>): RfsTradeInput => ({
    userUuid: SeedIds.user1,
    accountGroupUuid: GROUP,
    clientRequestId: 'c1',
    quoteId: 'q1',
    instrument: 'BTC.USD',
    side: 'BUY',
    baseAmount: '1',
    quoteAmount: '64000.00',
    price: '64000',
    settleDate: '20260108',
    ...over,
  });

  /** What the balance endpoint shows and what the newest leg of the currency says, side by side. */
  const shown = (ccy: string): { balance: string; balanceAfter: string | undefined } => {
    const legs = transactions.all().filter((t) => t.ccy === ccy);
    return {
      balance: String((balanceDetail(ledger.total(GROUP, ccy), ccy) as { value: string }).value),
      balanceAfter: legs.at(-1)?.balanceAfter.toFixed(),
    };
  };

  it('a BUY paying more than the quote currency’s headroom is refused, nothing booked; exactly the headroom passes', () => {
    expect(() => trades.bookRfsTrade(trade({ baseAmount: '40', quoteAmount: '2446070.00' }))).toThrow(
      'Insufficient funds',
    );
    expect(trades.all()).toHaveLength(0);
    expect(transactions.all()).toHaveLength(0);
    expect(ledger.total(GROUP, 'USD').toFixed()).toBe('1000000');
    trades.bookRfsTrade(trade({ baseAmount: '15', quoteAmount: '1000000.00' }));
    expect(ledger.total(GROUP, 'USD').isZero()).toBe(true);
  });

  it('a SELL pays in the base currency; a withdrawal in flight is not there to pay with', () => {
    expect(() => trades.bookRfsTrade(trade({ side: 'SELL', baseAmount: '12.50000001' }))).toThrow('Insufficient funds');
    withdrawals.submit({
      kind: 'crypto',
      amount: new Decimal('0.5'),
      ccy: 'BTC',
      accountGroupUuid: GROUP,
      requestorUuid: SeedIds.user1,
      bankAccountUuid: undefined,
      walletUuid: 'w',
      coinAddress: 'a',
      clientComment: undefined,
    });
    expect(() => trades.bookRfsTrade(trade({ side: 'SELL', baseAmount: '12.1' }))).toThrow('Insufficient funds');
    trades.bookRfsTrade(trade({ side: 'SELL', baseAmount: '12' }));
    expect(ledger.total(GROUP, 'BTC').toFixed()).toBe('0.5');
  });

  it('an amount finer than its currency holds is refused before anything is booked', () => {
    const shib = trade({ instrument: 'SHIB.USD', baseAmount: '12345.5', quoteAmount: '0.30', price: '0.0000245' });
    expect(() => trades.bookRfsTrade(shib)).toThrow(/SHIB/);
    expect(transactions.all()).toHaveLength(0);
    expect(ledger.total(GROUP, 'USD').toFixed()).toBe('1000000');
    expect(() => ledger.bookTradeLeg(GROUP, 'SHIB', 'credit', new Decimal('0.5'))).toThrow(/SHIB/);
  });

  it('the balance shown and the newest leg’s balanceAfter are the same figure', () => {
    trades.bookRfsTrade(
      trade({ instrument: 'SHIB.USD', baseAmount: '12345', quoteAmount: '0.30', price: '0.0000245' }),
    );
    for (const ccy of ['SHIB', 'USD']) {
      const { balance, balanceAfter } = shown(ccy);
      expect(new Decimal(balance).equals(balanceAfter ?? 'missing')).toBe(true);
    }
  });
});
