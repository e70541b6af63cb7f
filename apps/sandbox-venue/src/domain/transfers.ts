/** spec-gaps R10: internal transfers between a user's account groups, settled at once. */
import { randomUUID } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import type { Decimal } from '../money.js';
import { VENUE_CLOCK, type VenueClock } from '../ports.js';
import { Ledger } from './ledger.js';

export interface TransferRecord {
  uuid: string;
  userUuid: string;
  fromAccountGroupUuid: string;
  toAccountGroupUuid: string;
  ccy: string;
  amount: Decimal;
  state: 'PROCESSED';
  createdAt: number;
}

@Injectable()
export class TransferBook {
  private readonly transfers: TransferRecord[] = [];

  constructor(
    @Inject(VENUE_CLOCK) private readonly clock: VenueClock,
    @Inject(Ledger) private readonly ledger: Ledger,
  ) {}

  transfer(userUuid: string, from: string, to: string, ccy: string, amount: Decimal): TransferRecord {
    this.ledger.debitSettled(from, ccy, amount);
    this.ledger.creditSettled(to, ccy, amount);
    const record: TransferRecord = {
      uuid: randomUUID(),
      userUuid,
      fromAccountGroupUuid: from,
      toAccountGroupUuid: to,
      ccy,
      amount,
      state: 'PROCESSED',
      createdAt: this.clock.now(),
    };
    this.transfers.push(record);
    return record;
  }

  ofUser(userUuid: string): TransferRecord[] {
    return this.transfers.filter((t) => t.userUuid === userUuid).sort((a, b) => b.createdAt - a.createdAt);
  }
}
