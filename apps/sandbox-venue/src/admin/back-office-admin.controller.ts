/**
 * Operator actions on the back office (R16, R17): withdrawal approval flow, trade settlement, transaction
 * leg state changes, desk (OTC) trades.
 */
import {
  BadRequestException,
  Body,
  ConflictException,
  Controller,
  Get,
  HttpCode,
  Inject,
  NotFoundException,
  Param,
  Post,
} from '@nestjs/common';
import { Decimal } from '../money.js';
import type { Side } from '#venue-api';
import { VenueDirectory } from '../domain/directory.js';
import { Ledger } from '../domain/ledger.js';
import { TradeBook, type TradeState } from '../domain/trades.js';
import { TransactionBook, transactionWire, type TransactionState } from '../domain/transactions.js';
import { WithdrawalBook, type OperatorAction } from '../domain/withdrawals.js';
import { withdrawalRow } from '../rest/endpoints/withdrawal-rows.js';
import type { WireValue } from '../http/json.js';
import { currencyInfo } from '../reference/currencies.js';
import { instrumentInfo } from '../reference/instruments.js';
import { asBody, decimalString, heldAmount, optionalText, requiredString } from './admin-input.js';

const WITHDRAWAL_ACTIONS: readonly OperatorAction[] = ['accept', 'approve', 'decline', 'process', 'fail'];
const TRADE_ACTIONS: Record<string, Exclude<TradeState, 'PENDING_SETTLEMENT'>> = {
  settle: 'SETTLED',
  cancel: 'CANCELLED',
  fail: 'FAILED',
};
const LEG_ACTIONS: Record<string, Exclude<TransactionState, 'PENDING'>> = {
  process: 'PROCESSED',
  reverse: 'REVERSED',
  cancel: 'CANCELLED',
};

@Controller('admin')
export class BackOfficeAdminController {
  constructor(
    @Inject(WithdrawalBook) private readonly withdrawals: WithdrawalBook,
    @Inject(TradeBook) private readonly trades: TradeBook,
    @Inject(TransactionBook) private readonly transactions: TransactionBook,
    @Inject(VenueDirectory) private readonly directory: VenueDirectory,
    @Inject(Ledger) private readonly ledger: Ledger,
  ) {}

  /**
   * A request raised by operations staff on the client's behalf (§2.7: never returned by the lists, but in
   * flight for the insufficient-funds rule). `{kind, accountGroupUuid, ccy, amount, bankAccountUuid|walletUuid}`.
   */
  @Post('withdrawals/staff')
  @HttpCode(200)
  staffWithdrawal(@Body() raw: unknown): { uuid: string } {
    const body = asBody(raw);
    const kind = requiredString(body, 'kind');
    if (kind !== 'fiat' && kind !== 'crypto') throw new BadRequestException('kind must be fiat or crypto');
    const group = this.directory.group(requiredString(body, 'accountGroupUuid'));
    if (group === undefined) throw new NotFoundException('account group not found');
    const originator = this.directory.originatorOf(group.uuid);
    const walletUuid = kind === 'crypto' ? requiredString(body, 'walletUuid') : undefined;
    const request = this.withdrawals.submit({
      kind,
      amount: new Decimal(decimalString(body, 'amount')),
      ccy: requiredString(body, 'ccy'),
      accountGroupUuid: group.uuid,
      requestorUuid: group.ownerUuid,
      bankAccountUuid: kind === 'fiat' ? requiredString(body, 'bankAccountUuid') : undefined,
      walletUuid,
      coinAddress: originator?.wallets.find((w) => w.uuid === walletUuid)?.walletAddress,
      clientComment: undefined,
      raisedByStaff: true,
    });
    return { uuid: request.uuid };
  }

  @Post('withdrawals/:uuid/:action')
  @HttpCode(200)
  withdrawal(@Param('uuid') uuid: string, @Param('action') action: string): WireValue {
    const op = WITHDRAWAL_ACTIONS.find((a) => a === action);
    if (op === undefined) throw new NotFoundException(`unknown action ${action}; use ${WITHDRAWAL_ACTIONS.join(', ')}`);
    const result = this.withdrawals.operate(uuid, op);
    if (!result.ok) {
      if (result.reason === 'not found') throw new NotFoundException('withdrawal request not found');
      throw new ConflictException(result.reason);
    }
    return {
      ...(withdrawalRow(result.request, this.directory) as Record<string, WireValue>),
      transactionUuid: result.request.transactionUuid,
    };
  }

  @Get('trades')
  listTrades(): WireValue {
    return this.trades
      .all()
      .map((t) => ({ uuid: t.uuid, tradeRef: t.tradeRef, state: t.state, clientRef: t.clientRef }));
  }

  @Post('trades/otc')
  @HttpCode(200)
  bookOtc(@Body() raw: unknown): WireValue {
    const booked = this.trades.bookOtcTrade(this.otcInput(raw));
    return { ...booked, legs: this.transactions.byTrade(booked.tradeUuid).map((l) => l.uuid) };
  }

  private otcInput(raw: unknown): Parameters<TradeBook['bookOtcTrade']>[0] {
    const body = asBody(raw);
    const side = requiredString(body, 'side');
    if (side !== 'BUY' && side !== 'SELL') throw new BadRequestException('side must be BUY or SELL');
    const group = this.directory.group(requiredString(body, 'accountGroupUuid'));
    if (group === undefined) throw new NotFoundException('account group not found');
    const instrument = requiredString(body, 'instrument');
    const info = instrumentInfo(instrument);
    if (info === undefined) throw new BadRequestException(`unknown instrument ${instrument}`);
    const userUuid = optionalText(body, 'userUuid') ?? group.ownerUuid;
    if (!this.directory.canAccessGroup(userUuid, group.uuid))
      throw new BadRequestException('user cannot use that group');
    return {
      userUuid,
      accountGroupUuid: group.uuid,
      clientRequestId: optionalText(body, 'clientRef') ?? '',
      instrument,
      side: side satisfies Side,
      baseAmount: heldAmount(body, 'baseAmount', info.base).toFixed(),
      quoteAmount: heldAmount(body, 'quoteAmount', info.quote).toFixed(),
      price: decimalString(body, 'price'),
      settleDate: optionalText(body, 'settleDate') ?? '',
      deskTraderLogin: optionalText(body, 'executorLogin'),
    };
  }

  /** Seeds `count` (1–200 000) identical desk trades at once, for volume tests (each with its two legs). */
  @Post('trades/otc-bulk')
  @HttpCode(200)
  bookOtcBulk(@Body() raw: unknown): WireValue {
    const body = asBody(raw);
    const count = body['count'];
    if (typeof count !== 'number' || !Number.isInteger(count) || count < 1 || count > 200_000) {
      throw new BadRequestException('count must be an integer from 1 to 200000');
    }
    const input = this.otcInput(raw);
    for (let i = 0; i < count; i += 1) this.trades.bookOtcTrade(input);
    return { booked: count };
  }

  @Post('trades/:uuid/:action')
  @HttpCode(200)
  trade(@Param('uuid') uuid: string, @Param('action') action: string): WireValue {
    const next = TRADE_ACTIONS[action];
    if (next === undefined) throw new NotFoundException(`unknown action ${action}; use settle, cancel, fail`);
    if (this.trades.find(uuid) === undefined) throw new NotFoundException('trade not found');
    const trade = this.trades.transition(uuid, next);
    if (trade === undefined) throw new ConflictException('trade is no longer PENDING_SETTLEMENT');
    return { uuid: trade.uuid, state: trade.state };
  }

  @Get('transactions')
  listTransactions(): WireValue {
    return this.transactions.all().map((l) => ({
      uuid: l.uuid,
      transactionType: l.transactionType,
      transactionState: l.transactionState,
      tradeId: l.tradeId,
    }));
  }

  @Get('trades/:uuid/transactions')
  legs(@Param('uuid') uuid: string): WireValue {
    return this.transactions.byTrade(uuid).map(transactionWire);
  }

  /**
   * An incoming deposit (§2.9 CASH/COIN DEPOSIT): a PENDING leg and its webhook; processing it credits the
   * group. `{accountGroupUuid, ccy, amount, customRef?}`.
   */
  @Post('deposits')
  @HttpCode(200)
  deposit(@Body() raw: unknown): WireValue {
    const body = asBody(raw);
    const group = this.directory.group(requiredString(body, 'accountGroupUuid'));
    if (group === undefined) throw new NotFoundException('account group not found');
    const ccy = requiredString(body, 'ccy');
    const info = currencyInfo(ccy);
    if (info === undefined) throw new BadRequestException(`unknown currency ${ccy}`);
    const amount = heldAmount(body, 'amount', ccy);
    const total = this.ledger.total(group.uuid, ccy);
    const leg = this.transactions.create({
      userUuid: group.ownerUuid,
      accountGroupUuid: group.uuid,
      transactionClass: info.kind === 'fiat' ? 'CASH' : 'COIN',
      transactionType: 'DEPOSIT',
      ccy,
      amount,
      balanceBefore: total,
      balanceAfter: total.plus(amount),
      customRef: optionalText(body, 'customRef') ?? '',
      quoteId: undefined,
      tradeId: undefined,
      tradeRef: undefined,
      executedPrice: undefined,
      settleDate: undefined,
      beneficiaryUuid: null,
      effect: { kind: 'deposit' },
    });
    return transactionWire(leg);
  }

  @Post('transactions/:uuid/:action')
  @HttpCode(200)
  leg(@Param('uuid') uuid: string, @Param('action') action: string): WireValue {
    const next = LEG_ACTIONS[action];
    if (next === undefined) throw new NotFoundException(`unknown action ${action}; use process, reverse, cancel`);
    if (this.transactions.find(uuid) === undefined) throw new NotFoundException('transaction not found');
    if (!this.transactions.transition(uuid, next)) throw new ConflictException('transaction is no longer PENDING');
    const record = this.transactions.find(uuid);
    return record === undefined ? null : transactionWire(record);
  }
}
