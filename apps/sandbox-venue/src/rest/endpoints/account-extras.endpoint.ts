/**
 * The operations §4.11 names without shapes, per spec-gaps R10–R12: transfer list, initiate transfer,
 * credit limits, available pairs.
 */
import { Inject, Injectable, Optional } from '@nestjs/common';
import { SANDBOX_CONFIG, type SandboxConfig } from '../../config.js';
import { Decimal } from '../../money.js';
import { RestPath } from '#venue-api';
import { VenueDirectory } from '../../domain/directory.js';
import { Ledger } from '../../domain/ledger.js';
import { TransferBook } from '../../domain/transfers.js';
import { WithdrawalBook } from '../../domain/withdrawals.js';
import { currencyInfo } from '../../reference/currencies.js';
import { INSTRUMENTS } from '../../reference/instruments.js';
import { optionalString } from '../body-fields.js';
import { invalidAccountGroupReply, invalidParameterReply } from '../replies.js';
import { exactPath, type SignedCall, type VenueEndpoints, type VenueReply, type VenueRoute } from '../venue-route.js';

/** Credit limit per account group, in USD (sandbox constant). */
const CREDIT_LIMIT_USD = new Decimal('1000000.00');

@Injectable()
export class AccountExtrasEndpoint implements VenueEndpoints {
  constructor(
    @Inject(VenueDirectory) private readonly directory: VenueDirectory,
    @Inject(Ledger) private readonly ledger: Ledger,
    @Inject(TransferBook) private readonly transfers: TransferBook,
    @Inject(WithdrawalBook) private readonly withdrawals: WithdrawalBook,
    @Optional() @Inject(SANDBOX_CONFIG) private readonly config?: SandboxConfig,
  ) {}

  /** The §4.11 shapes of this dialect (dialect.ts `accountExtras`). */
  private get renamed(): boolean {
    return this.config?.dialect.accountExtras === 'renamed';
  }

  routes(): VenueRoute[] {
    const route = (path: string, handle: (c: SignedCall) => VenueReply): VenueRoute => ({
      template: path,
      pattern: exactPath(path),
      family: 'general',
      handle,
    });
    return [
      route(RestPath.TransferList, (c) => this.transferList(c)),
      route(RestPath.Transfer, (c) => this.transfer(c)),
      route(RestPath.UserLimit, (c) => this.limits(c)),
      route(RestPath.Pairs, (c) => this.pairs(c)),
    ];
  }

  private transferList(call: SignedCall): VenueReply {
    const all = this.transfers.ofUser(call.user.uuid);
    return {
      status: 200,
      body: {
        data: all.map((t) => ({
          uuid: t.uuid,
          fromAccountGroupUuid: t.fromAccountGroupUuid,
          toAccountGroupUuid: t.toAccountGroupUuid,
          ccy: t.ccy,
          amount: t.amount.toFixed(),
          state: t.state,
          createdAt: new Date(t.createdAt).toISOString(),
          ...(this.renamed ? { direction: 'INTERNAL', reference: `TRF-${t.uuid.slice(0, 8)}` } : {}),
        })),
        total: all.length,
      },
    };
  }

  private transfer(call: SignedCall): VenueReply {
    if (!call.key.rights.includes('withdraw')) {
      return { status: 403, body: { error: 'PERMISSION_DENIED', message: 'MOVE FUNDS permission required' } };
    }
    const bad = (message: string): VenueReply => invalidParameterReply('general', message, call.now);
    const from = optionalString(call.body, 'accountGroupUuid');
    const to = optionalString(call.body, 'toAccountGroupUuid');
    const ccy = optionalString(call.body, 'ccy');
    const amountText = optionalString(call.body, 'amount');
    if (!from.ok || !to.ok || !ccy.ok || !amountText.ok) return bad('fields must be strings');
    if (
      from.value === undefined ||
      to.value === undefined ||
      ccy.value === undefined ||
      amountText.value === undefined
    ) {
      return bad('accountGroupUuid, toAccountGroupUuid, ccy and amount are required');
    }
    const info = currencyInfo(ccy.value);
    if (info === undefined) return bad('unsupported currency');
    if (!/^\d+(\.\d+)?$/.test(amountText.value)) return bad('amount must be a positive decimal string');
    const amount = new Decimal(amountText.value);
    if (amount.lte(0) || amount.decimalPlaces() > info.precision)
      return bad('amount must be positive at the currency precision');
    for (const g of [from.value, to.value]) {
      if (!this.directory.canAccessGroup(call.user.uuid, g)) return invalidAccountGroupReply();
    }
    if (from.value === to.value) return bad('source and destination groups must differ');
    if (!this.directory.hasOperationsRole(call.user.uuid, from.value)) {
      return {
        status: 403,
        body: { error: 'PERMISSION_DENIED', message: 'You do not have permission to perform this action' },
      };
    }
    if (amount.gt(this.withdrawals.headroom(from.value, ccy.value))) {
      return { status: 422, body: { error: 'INSUFFICIENT_FUNDS', message: 'Insufficient funds' } };
    }
    const record = this.transfers.transfer(call.user.uuid, from.value, to.value, ccy.value, amount);
    return { status: 200, body: { success: true, uuid: record.uuid } };
  }

  private limits(call: SignedCall): VenueReply {
    const data = this.directory.groupsOf(call.user.uuid).map((g) => {
      const used = this.ledger.position(g.uuid, 'USD').unsettledSell;
      if (this.renamed) {
        return {
          accountGroup: { uuid: g.uuid, name: g.name },
          currency: 'USD',
          creditLimit: CREDIT_LIMIT_USD.toFixed(2),
          utilised: used.toFixed(2),
          remaining: Decimal.max(0, CREDIT_LIMIT_USD.minus(used)).toFixed(2),
        };
      }
      return {
        accountGroupUuid: g.uuid,
        ccy: 'USD',
        limit: CREDIT_LIMIT_USD.toFixed(2),
        used: used.toFixed(2),
        available: Decimal.max(0, CREDIT_LIMIT_USD.minus(used)).toFixed(2),
      };
    });
    return { status: 200, body: { data, resultCode: 'OK', timestamp: String(Math.trunc(call.now)) } };
  }

  private pairs(call: SignedCall): VenueReply {
    const enabled = INSTRUMENTS.filter((i) => this.directory.isPairEnabled(call.user.uuid, i.instrument));
    if (this.renamed) {
      const pairs = enabled.map((i) => ({
        symbol: `${i.base}/${i.quote}`,
        baseCurrency: i.base,
        quoteCurrency: i.quote,
        minSize: i.minQuantity,
        maxSize: i.maxQuantity,
      }));
      return { status: 200, body: { data: pairs } };
    }
    const data = enabled.map((i) => ({
      instrument: i.instrument,
      base: i.base,
      quote: i.quote,
      minQuantity: i.minQuantity,
      maxQuantity: i.maxQuantity,
      quotePrecision: currencyInfo(i.quote)?.precision ?? 8,
    }));
    return { status: 200, body: { data } };
  }
}
