/**
 * Trades (§2.4) and their booking: an executed RFS order becomes one trade, two transaction legs
 * (TRADE_CREDIT of what the client receives, TRADE_DEBIT of what it pays) and unsettled balances.
 * Implements the trading half's `TradeBooking` seam. Settlement is an operator action (R17).
 */
import { randomUUID } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import { Decimal } from '../money.js';
import { JsonNumber, type WireValue } from '../http/json.js';
import { instrumentInfo } from '../reference/instruments.js';
import { VENUE_CLOCK, type BookedTrade, type RfsTradeInput, type TradeBooking, type VenueClock } from '../ports.js';
import { VenueDirectory } from './directory.js';
import { assertHeld, Ledger, type LegDirection } from './ledger.js';
import { dashedDate, isoUtc } from './time-format.js';
import { TransactionBook, type TransactionState } from './transactions.js';
import { WithdrawalBook } from './withdrawals.js';

export type TradeState = 'PENDING_SETTLEMENT' | 'SETTLED' | 'CANCELLED' | 'FAILED';

export interface TradeRecord {
  uuid: string;
  createdAt: number;
  updatedAt: number;
  tradeRef: string;
  clientRef: string | undefined;
  tradeSide: 'BUY' | 'SELL';
  settlementAmount: { amount: Decimal; currency: string };
  tradedAmount: { amount: Decimal; currency: string };
  userUuid: string;
  accountGroupUuid: string;
  tradeClass: 'OTC' | 'RFS';
  state: TradeState;
  settlementDate: string;
  quoteId: string | undefined;
  beneficiary: { uuid: string; name: string } | undefined;
  sender: { uuid: string; name: string } | undefined;
  networkId: string | undefined;
  executedPrice: string;
  executorLogin: string;
  paymentReason: string | undefined;
}

/** A trade's next state and what its legs become. */
const LEG_STATE_FOR: Record<Exclude<TradeState, 'PENDING_SETTLEMENT'>, Exclude<TransactionState, 'PENDING'>> = {
  SETTLED: 'PROCESSED',
  CANCELLED: 'CANCELLED',
  FAILED: 'REVERSED',
};

/** Who entered an OTC trade when the operator names nobody (§2.4 executorLogin). */
export const DESK_TRADER_LOGIN = 'desk.trader@sandbox-venue.example';

/** Trade books made in this process (several sandboxes may start within one millisecond in a test). */
let lives = 0;

@Injectable()
export class TradeBook implements TradeBooking {
  private readonly trades: TradeRecord[] = [];
  private refSeq = 0;
  /**
   * This life of the sandbox (it starts afresh in memory): part of every reference, so a restarted sandbox never
   * hands out a reference an earlier life gave another trade (a gateway keeps what it read across the restart).
   */
  private readonly life: string;

  constructor(
    @Inject(VENUE_CLOCK) private readonly clock: VenueClock,
    @Inject(VenueDirectory) private readonly directory: VenueDirectory,
    @Inject(Ledger) private readonly ledger: Ledger,
    @Inject(TransactionBook) private readonly transactions: TransactionBook,
    @Inject(WithdrawalBook) private readonly withdrawals: WithdrawalBook,
  ) {
    lives += 1;
    this.life = `${clock.now().toString(36)}${lives.toString(36)}`.toUpperCase();
  }

  bookRfsTrade(input: RfsTradeInput): BookedTrade {
    return this.book(input, 'RFS');
  }

  /**
   * A desk-entered trade (operator API): OTC class, no quoteId, OTCTRADE legs. §2.4: its executorLogin is
   * the desk trader who entered it, not the client's user.
   */
  bookOtcTrade(input: Omit<RfsTradeInput, 'quoteId'> & { deskTraderLogin?: string }): BookedTrade {
    const { deskTraderLogin, ...trade } = input;
    return this.book({ ...trade, quoteId: '' }, 'OTC', deskTraderLogin ?? DESK_TRADER_LOGIN);
  }

  private book(input: RfsTradeInput, tradeClass: 'RFS' | 'OTC', deskTraderLogin?: string): BookedTrade {
    const info = instrumentInfo(input.instrument);
    const [base, quote] = info === undefined ? input.instrument.split('.') : [info.base, info.quote];
    if (base === undefined || quote === undefined) throw new Error(`unknown instrument ${input.instrument}`);
    const user = this.directory.user(input.userUuid);
    const group = this.directory.group(input.accountGroupUuid);
    if (user === undefined || group === undefined) throw new Error('unknown user or account group');
    const now = this.clock.now();
    const baseAmount = new Decimal(input.baseAmount);
    const quoteAmount = new Decimal(input.quoteAmount);
    const beneficiary =
      input.beneficiaryUuid === undefined
        ? undefined
        : this.directory.findCounterparty(input.userUuid, 'BENEFICIARY', input.beneficiaryUuid);
    const sender =
      input.senderUuid === undefined
        ? undefined
        : this.directory.findCounterparty(input.userUuid, 'SENDER', input.senderUuid);
    const buying = input.side === 'BUY';
    const legs: { ccy: string; amount: Decimal; direction: LegDirection }[] = [
      { ccy: base, amount: baseAmount, direction: buying ? 'credit' : 'debit' },
      { ccy: quote, amount: quoteAmount, direction: buying ? 'debit' : 'credit' },
    ];
    for (const leg of legs) assertHeld(leg.ccy, leg.amount);
    if (tradeClass === 'RFS' && sender === undefined) {
      // W39: what the client pays must be there (Brokerage_Available_Balance, §2.6); a sender pays a collection
      const paid = buying ? legs[1] : legs[0];
      if (paid !== undefined && paid.amount.gt(this.withdrawals.headroom(group.uuid, paid.ccy))) {
        throw new Error('Insufficient funds');
      }
    }
    const trade: TradeRecord = {
      uuid: randomUUID(),
      createdAt: now,
      updatedAt: now,
      tradeRef: this.nextRef(tradeClass),
      clientRef: input.clientRequestId === '' ? undefined : input.clientRequestId,
      tradeSide: input.side,
      tradedAmount: { amount: baseAmount, currency: base },
      settlementAmount: { amount: quoteAmount, currency: quote },
      userUuid: user.uuid,
      accountGroupUuid: group.uuid,
      tradeClass,
      state: 'PENDING_SETTLEMENT',
      settlementDate: dashedDate(input.settleDate),
      quoteId: tradeClass === 'RFS' ? input.quoteId : undefined,
      beneficiary,
      sender,
      networkId: beneficiary !== undefined || sender !== undefined ? input.networkId : undefined,
      executedPrice: `[${base}/${quote}] ${input.price}`,
      executorLogin: deskTraderLogin ?? user.login,
      paymentReason: beneficiary !== undefined || sender !== undefined ? 'Third-party settlement' : undefined,
    };
    this.trades.push(trade);

    for (const leg of legs) {
      // Third-party delivery: what the client receives goes to the beneficiary; collection: what it pays
      // comes from the sender. Those legs do not touch the client's own balance.
      const thirdParty =
        (leg.direction === 'credit' && beneficiary !== undefined) ||
        (leg.direction === 'debit' && sender !== undefined);
      const before = this.ledger.total(group.uuid, leg.ccy);
      if (!thirdParty) this.ledger.bookTradeLeg(group.uuid, leg.ccy, leg.direction, leg.amount);
      this.transactions.create({
        userUuid: user.uuid,
        accountGroupUuid: group.uuid,
        transactionClass: tradeClass === 'RFS' ? 'RFSTRADE' : 'OTCTRADE',
        transactionType: leg.direction === 'credit' ? 'TRADE_CREDIT' : 'TRADE_DEBIT',
        ccy: leg.ccy,
        amount: leg.amount,
        balanceBefore: before,
        balanceAfter: this.ledger.total(group.uuid, leg.ccy),
        customRef: input.clientRequestId,
        quoteId: trade.quoteId,
        tradeId: trade.uuid,
        tradeRef: trade.tradeRef,
        executedPrice: trade.executedPrice,
        settleDate: trade.settlementDate,
        beneficiaryUuid: leg.direction === 'credit' ? (beneficiary?.uuid ?? null) : null,
        effect: thirdParty ? { kind: 'none' } : { kind: 'trade', direction: leg.direction },
      });
    }
    return { tradeUuid: trade.uuid, tradeRef: trade.tradeRef };
  }

  find(uuid: string): TradeRecord | undefined {
    return this.trades.find((t) => t.uuid === uuid);
  }

  all(): readonly TradeRecord[] {
    return this.trades;
  }

  private newestFirstCache: { length: number; list: TradeRecord[] } | undefined;

  /** Every trade, newest first (§4.5 list order); the sorted list is kept until a trade is booked. */
  newestFirst(): readonly TradeRecord[] {
    if (this.newestFirstCache?.length !== this.trades.length) {
      const list = [...this.trades].sort((x, y) => y.createdAt - x.createdAt);
      this.newestFirstCache = { length: this.trades.length, list };
    }
    return this.newestFirstCache.list;
  }

  /** R17: PENDING_SETTLEMENT → SETTLED / CANCELLED / FAILED, moving every still-pending leg with it. */
  transition(uuid: string, next: Exclude<TradeState, 'PENDING_SETTLEMENT'>): TradeRecord | undefined {
    const trade = this.find(uuid);
    if (trade === undefined || trade.state !== 'PENDING_SETTLEMENT') return undefined;
    trade.state = next;
    trade.updatedAt = this.clock.now();
    for (const leg of this.transactions.byTrade(uuid)) {
      if (leg.transactionState === 'PENDING') this.transactions.transition(leg.uuid, LEG_STATE_FOR[next]);
    }
    return trade;
  }

  private nextRef(kind: 'RFS' | 'OTC'): string {
    this.refSeq += 1;
    return `SBX-${kind}-${this.life}-${String(this.refSeq).padStart(6, '0')}`;
  }
}

/** §2.4 wire record; amounts are JSON numbers written as exact decimal text (R15). */
export function tradeWire(t: TradeRecord, directory: VenueDirectory): WireValue {
  const group = directory.group(t.accountGroupUuid);
  const user = directory.user(t.userUuid);
  return {
    uuid: t.uuid,
    createdAt: isoUtc(t.createdAt),
    updatedAt: isoUtc(t.updatedAt),
    tradeRef: t.tradeRef,
    clientRef: t.clientRef,
    tradeSide: t.tradeSide,
    settlementAmount: {
      amount: new JsonNumber(t.settlementAmount.amount.toFixed()),
      currency: t.settlementAmount.currency,
    },
    tradedAmount: { amount: new JsonNumber(t.tradedAmount.amount.toFixed()), currency: t.tradedAmount.currency },
    user: user?.shortcode,
    accountGroup: { uuid: t.accountGroupUuid, name: group?.name },
    tradeClass: t.tradeClass,
    state: t.state,
    settlementDate: t.settlementDate,
    quoteId: t.quoteId,
    beneficiary: t.beneficiary,
    sender: t.sender,
    networkId: t.networkId,
    executedPrice: t.executedPrice,
    executorLogin: t.executorLogin,
    paymentReason: t.paymentReason,
  };
}
