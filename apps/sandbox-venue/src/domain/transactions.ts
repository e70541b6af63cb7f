/**
 * Transactions, one per leg (§2.9, §3.3): created PENDING, then PROCESSED, REVERSED or CANCELLED exactly
 * once. Each state (including the initial PENDING) is announced to the webhook dispatcher (§6.1 rule 2).
 * Money fields are written as exact decimal text in JSON-number position (spec-gaps R15).
 */
import { randomUUID } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import { Decimal } from '../money.js';
import { JsonNumber, type WireValue } from '../http/json.js';
import { VENUE_CLOCK, type VenueClock } from '../ports.js';
import { WebhookDispatcher } from '../webhooks/webhook-dispatcher.js';
import { Ledger, type LegDirection } from './ledger.js';

export type TransactionState = 'PENDING' | 'PROCESSED' | 'REVERSED' | 'CANCELLED';
export type TransactionClass = 'OTCTRADE' | 'RFSTRADE' | 'COIN' | 'CASH';
export type TransactionType = 'TRADE_CREDIT' | 'TRADE_DEBIT' | 'DEPOSIT' | 'WITHDRAWAL';

/** What a leg does to the ledger when it reaches a final state. */
export type LegEffect =
  { kind: 'trade'; direction: LegDirection } | { kind: 'withdrawal' } | { kind: 'deposit' } | { kind: 'none' };

export interface TransactionRecord {
  uuid: string;
  userUuid: string;
  accountGroupUuid: string;
  transactionClass: TransactionClass;
  transactionType: TransactionType;
  ccy: string;
  amount: Decimal;
  fee: Decimal;
  balanceBefore: Decimal;
  balanceAfter: Decimal;
  transactionState: TransactionState;
  received: number;
  processed: number | undefined;
  timestampMillis: number;
  customRef: string;
  quoteId: string | undefined;
  tradeId: string | undefined;
  tradeRef: string | undefined;
  executedPrice: string | undefined;
  settleDate: string | undefined;
  beneficiaryUuid: string | null;
  effect: LegEffect;
}

export type NewTransaction = Omit<
  TransactionRecord,
  'uuid' | 'transactionState' | 'received' | 'processed' | 'timestampMillis' | 'fee'
>;

@Injectable()
export class TransactionBook {
  private readonly records: TransactionRecord[] = [];

  constructor(
    @Inject(VENUE_CLOCK) private readonly clock: VenueClock,
    @Inject(Ledger) private readonly ledger: Ledger,
    @Inject(WebhookDispatcher) private readonly webhooks: WebhookDispatcher,
  ) {}

  create(input: NewTransaction): TransactionRecord {
    const now = this.clock.now();
    const record: TransactionRecord = {
      ...input,
      uuid: randomUUID(),
      fee: new Decimal(0),
      transactionState: 'PENDING',
      received: now,
      processed: undefined,
      timestampMillis: now,
    };
    this.records.push(record);
    this.webhooks.notify(record.uuid, transactionWire(record));
    return record;
  }

  /** Every leg, oldest first. */
  all(): readonly TransactionRecord[] {
    return this.records;
  }

  find(uuid: string): TransactionRecord | undefined {
    return this.records.find((r) => r.uuid === uuid);
  }

  byTrade(tradeId: string): TransactionRecord[] {
    return this.records.filter((r) => r.tradeId === tradeId);
  }

  ofUser(userUuid: string): TransactionRecord[] {
    return this.records.filter((r) => r.userUuid === userUuid);
  }

  /** §3.3: only PENDING moves, once. False when the leg is already final. */
  transition(uuid: string, next: Exclude<TransactionState, 'PENDING'>): boolean {
    const record = this.find(uuid);
    if (record === undefined || record.transactionState !== 'PENDING') return false;
    const now = this.clock.now();
    this.applyEffect(record, next);
    record.transactionState = next;
    record.processed = now;
    record.timestampMillis = now;
    this.webhooks.notify(record.uuid, transactionWire(record));
    return true;
  }

  private applyEffect(record: TransactionRecord, next: Exclude<TransactionState, 'PENDING'>): void {
    const { effect, accountGroupUuid: group, ccy, amount } = record;
    if (effect.kind === 'trade') {
      if (next === 'PROCESSED') this.ledger.settleTradeLeg(group, ccy, effect.direction, amount);
      else this.ledger.unwindTradeLeg(group, ccy, effect.direction, amount);
    } else if (effect.kind === 'withdrawal' && next === 'PROCESSED') {
      this.ledger.debitSettled(group, ccy, amount);
    } else if (effect.kind === 'deposit' && next === 'PROCESSED') {
      this.ledger.creditSettled(group, ccy, amount);
    }
  }
}

/** §2.9 body; also the transaction-list record (R9). */
export function transactionWire(r: TransactionRecord): WireValue {
  return {
    transactionClass: r.transactionClass,
    uuid: r.uuid,
    userUuid: r.userUuid,
    accountGroupUuid: r.accountGroupUuid,
    amount: new JsonNumber(r.amount.toFixed()),
    fee: new JsonNumber(r.fee.toFixed()),
    balanceBefore: new JsonNumber(r.balanceBefore.toFixed()),
    balanceAfter: new JsonNumber(r.balanceAfter.toFixed()),
    ccy: r.ccy,
    transactionState: r.transactionState,
    transactionType: r.transactionType,
    received: r.received,
    processed: r.processed,
    timestampMillis: r.timestampMillis,
    displayTitle: null,
    displayDescription: null,
    paymentTransferType: null,
    customRef: r.customRef,
    quoteId: r.quoteId,
    tradeId: r.tradeId,
    tradeRef: r.tradeRef,
    executedPrice: r.executedPrice,
    settleDate: r.settleDate,
    beneficiaryUuid: r.beneficiaryUuid,
  };
}
