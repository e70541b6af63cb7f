/**
 * Withdrawal requests and their state machine (§3.1):
 *   submit → PENDING_APPROVAL; cancel (client) or decline (operator) → CANCELLED;
 *   operator approval → PENDING (crypto: `accept` closes the cancel window, then `approve`);
 *   operator process → PROCESSED (funds leave); crypto only: operator fail → FAILED.
 * Going PENDING raises the CASH/COIN WITHDRAWAL transaction leg (and its webhook); its final state follows.
 */
import { randomUUID } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import { Decimal } from '../money.js';
import { VENUE_CLOCK, type VenueClock } from '../ports.js';
import { Ledger } from './ledger.js';
import { TransactionBook } from './transactions.js';

export type WithdrawalKind = 'fiat' | 'crypto';
export type WithdrawalState = 'PENDING_APPROVAL' | 'PENDING' | 'PROCESSED' | 'FAILED' | 'CANCELLED';

export interface WithdrawalRequest {
  uuid: string;
  kind: WithdrawalKind;
  amount: Decimal;
  ccy: string;
  state: WithdrawalState;
  accountGroupUuid: string;
  requestorUuid: string;
  bankAccountUuid: string | undefined;
  walletUuid: string | undefined;
  coinAddress: string | undefined;
  clientComment: string | undefined;
  dateCreated: number;
  lastUpdated: number;
  /** Crypto: the operator's first step happened; the cancel window is closed. */
  accepted: boolean;
  transactionUuid: string | undefined;
  /** Raised by the venue's operations staff on the client's behalf: counts as in flight, never listed (§2.7). */
  raisedByStaff: boolean;
}

export type NewWithdrawal = Pick<
  WithdrawalRequest,
  | 'kind'
  | 'amount'
  | 'ccy'
  | 'accountGroupUuid'
  | 'requestorUuid'
  | 'bankAccountUuid'
  | 'walletUuid'
  | 'coinAddress'
  | 'clientComment'
> & { raisedByStaff?: boolean };

export type OperatorAction = 'accept' | 'approve' | 'decline' | 'process' | 'fail';

export type ActionResult = { ok: true; request: WithdrawalRequest } | { ok: false; reason: string };

@Injectable()
export class WithdrawalBook {
  private readonly requests: WithdrawalRequest[] = [];

  constructor(
    @Inject(VENUE_CLOCK) private readonly clock: VenueClock,
    @Inject(Ledger) private readonly ledger: Ledger,
    @Inject(TransactionBook) private readonly transactions: TransactionBook,
  ) {}

  /** §7.2: total balance less in-flight (PENDING_APPROVAL, PENDING) requests; equal is accepted. */
  headroom(groupUuid: string, ccy: string): Decimal {
    return this.ledger.total(groupUuid, ccy).minus(this.inFlight(groupUuid, ccy));
  }

  inFlight(groupUuid: string, ccy: string): Decimal {
    return this.requests
      .filter(
        (r) =>
          r.accountGroupUuid === groupUuid &&
          r.ccy === ccy &&
          (r.state === 'PENDING_APPROVAL' || r.state === 'PENDING'),
      )
      .reduce((sum, r) => sum.plus(r.amount), new Decimal(0));
  }

  submit(input: NewWithdrawal): WithdrawalRequest {
    const now = this.clock.now();
    const request: WithdrawalRequest = {
      ...input,
      uuid: randomUUID(),
      state: 'PENDING_APPROVAL',
      dateCreated: now,
      lastUpdated: now,
      accepted: false,
      transactionUuid: undefined,
      raisedByStaff: input.raisedByStaff ?? false,
    };
    this.requests.push(request);
    return request;
  }

  find(uuid: string): WithdrawalRequest | undefined {
    return this.requests.find((r) => r.uuid === uuid);
  }

  /** Newest first (§2.7). */
  list(kind: WithdrawalKind, groupUuids: ReadonlySet<string>): WithdrawalRequest[] {
    return this.requests
      .filter((r) => r.kind === kind && !r.raisedByStaff && groupUuids.has(r.accountGroupUuid))
      .sort((a, b) => b.dateCreated - a.dateCreated);
  }

  /** §3.1: cancellable only in PENDING_APPROVAL (crypto: before the operator's first step). */
  isCancellable(r: WithdrawalRequest): boolean {
    return r.state === 'PENDING_APPROVAL' && !r.accepted;
  }

  cancel(r: WithdrawalRequest): void {
    this.move(r, 'CANCELLED');
  }

  operate(uuid: string, action: OperatorAction): ActionResult {
    const r = this.find(uuid);
    if (r === undefined) return { ok: false, reason: 'not found' };
    const refuse = (): ActionResult => ({ ok: false, reason: `cannot ${action} a ${r.kind} request in ${r.state}` });
    switch (action) {
      case 'accept':
        if (r.kind !== 'crypto' || r.state !== 'PENDING_APPROVAL' || r.accepted) return refuse();
        r.accepted = true;
        r.lastUpdated = this.clock.now();
        return { ok: true, request: r };
      case 'approve':
        if (r.state !== 'PENDING_APPROVAL' || (r.kind === 'crypto' && !r.accepted)) return refuse();
        this.move(r, 'PENDING');
        r.transactionUuid = this.transactions.create({
          userUuid: r.requestorUuid,
          accountGroupUuid: r.accountGroupUuid,
          transactionClass: r.kind === 'fiat' ? 'CASH' : 'COIN',
          transactionType: 'WITHDRAWAL',
          ccy: r.ccy,
          amount: r.amount,
          balanceBefore: this.ledger.total(r.accountGroupUuid, r.ccy),
          balanceAfter: this.ledger.total(r.accountGroupUuid, r.ccy).minus(r.amount),
          customRef: r.uuid,
          quoteId: undefined,
          tradeId: undefined,
          tradeRef: undefined,
          executedPrice: undefined,
          settleDate: undefined,
          beneficiaryUuid: null,
          effect: { kind: 'withdrawal' },
        }).uuid;
        return { ok: true, request: r };
      case 'decline':
        if (r.state !== 'PENDING_APPROVAL') return refuse();
        this.move(r, 'CANCELLED');
        return { ok: true, request: r };
      case 'process':
        if (r.state !== 'PENDING') return refuse();
        this.move(r, 'PROCESSED');
        if (r.transactionUuid !== undefined) this.transactions.transition(r.transactionUuid, 'PROCESSED');
        return { ok: true, request: r };
      case 'fail':
        if (r.kind !== 'crypto' || r.state !== 'PENDING') return refuse();
        this.move(r, 'FAILED');
        if (r.transactionUuid !== undefined) this.transactions.transition(r.transactionUuid, 'REVERSED');
        return { ok: true, request: r };
    }
  }

  private move(r: WithdrawalRequest, state: WithdrawalState): void {
    r.state = state;
    r.lastUpdated = this.clock.now();
  }
}
