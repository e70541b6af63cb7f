/**
 * Balances per account group and currency (§2.6). Balance = settled + Unsettled_Buy − Unsettled_Sell.
 * Trade legs book into the unsettled columns and move into `settled` when processed; withdrawals take
 * from `settled` when processed. Exact decimals only, and never finer than the currency holds (W38): so the
 * balance shown at the currency's precision (R20) and a leg's balanceBefore/After are always the same figure.
 */
import { createHash } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import { Decimal } from '../money.js';
import { CURRENCIES, fitsPrecision } from '../reference/currencies.js';
import { SEED_BALANCES } from './seed.js';

export interface AccountPosition {
  settled: Decimal;
  unsettledBuy: Decimal;
  unsettledSell: Decimal;
}

export type LegDirection = 'credit' | 'debit';

@Injectable()
export class Ledger {
  private readonly positions = new Map<string, AccountPosition>();

  constructor() {
    for (const [group, balances] of Object.entries(SEED_BALANCES)) {
      for (const [ccy, amount] of Object.entries(balances)) this.position(group, ccy).settled = new Decimal(amount);
    }
  }

  position(groupUuid: string, ccy: string): AccountPosition {
    const id = `${groupUuid}/${ccy}`;
    let p = this.positions.get(id);
    if (p === undefined) {
      p = { settled: new Decimal(0), unsettledBuy: new Decimal(0), unsettledSell: new Decimal(0) };
      this.positions.set(id, p);
    }
    return p;
  }

  /** Currencies shown for a group: every supported one (§4.4 filterZeroBalanceAccounts=false). */
  currencies(): string[] {
    return [...CURRENCIES.keys()];
  }

  total(groupUuid: string, ccy: string): Decimal {
    const p = this.position(groupUuid, ccy);
    return p.settled.plus(p.unsettledBuy).minus(p.unsettledSell);
  }

  bookTradeLeg(groupUuid: string, ccy: string, direction: LegDirection, amount: Decimal): void {
    assertHeld(ccy, amount);
    const p = this.position(groupUuid, ccy);
    if (direction === 'credit') p.unsettledBuy = p.unsettledBuy.plus(amount);
    else p.unsettledSell = p.unsettledSell.plus(amount);
  }

  settleTradeLeg(groupUuid: string, ccy: string, direction: LegDirection, amount: Decimal): void {
    const p = this.position(groupUuid, ccy);
    if (direction === 'credit') {
      p.unsettledBuy = p.unsettledBuy.minus(amount);
      p.settled = p.settled.plus(amount);
    } else {
      p.unsettledSell = p.unsettledSell.minus(amount);
      p.settled = p.settled.minus(amount);
    }
  }

  unwindTradeLeg(groupUuid: string, ccy: string, direction: LegDirection, amount: Decimal): void {
    const p = this.position(groupUuid, ccy);
    if (direction === 'credit') p.unsettledBuy = p.unsettledBuy.minus(amount);
    else p.unsettledSell = p.unsettledSell.minus(amount);
  }

  debitSettled(groupUuid: string, ccy: string, amount: Decimal): void {
    assertHeld(ccy, amount);
    const p = this.position(groupUuid, ccy);
    p.settled = p.settled.minus(amount);
  }

  creditSettled(groupUuid: string, ccy: string, amount: Decimal): void {
    assertHeld(ccy, amount);
    const p = this.position(groupUuid, ccy);
    p.settled = p.settled.plus(amount);
  }

  /** Stable account uuid per group and currency. */
  accountUuid(groupUuid: string, ccy: string): string {
    const h = createHash('sha256').update(`${groupUuid}/${ccy}`).digest('hex');
    return `${h.slice(0, 8)}-${h.slice(8, 12)}-4${h.slice(13, 16)}-8${h.slice(17, 20)}-${h.slice(20, 32)}`;
  }
}

/** A ledger entry finer than its currency holds: refused (its callers check first; this is the last line). */
export function assertHeld(ccy: string, amount: Decimal): void {
  if (!fitsPrecision(ccy, amount)) throw new Error(`${ccy} amount ${amount.toFixed()} is finer than ${ccy} holds`);
}
