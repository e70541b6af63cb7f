/** §4.4 `POST /api/3/account`: balances of every account group of the caller (§2.6). */
import { Inject, Injectable } from '@nestjs/common';
import { Decimal } from '../../money.js';
import { RestPath } from '#venue-api';
import { balanceDetail } from '../../domain/balance-format.js';
import { VenueDirectory } from '../../domain/directory.js';
import { Ledger } from '../../domain/ledger.js';
import type { AccountGroupRecord } from '../../domain/model.js';
import { WithdrawalBook } from '../../domain/withdrawals.js';
import type { WireValue } from '../../http/json.js';
import { optionalBoolean, optionalString } from '../body-fields.js';
import { invalidAccountGroupReply, invalidParameterReply } from '../replies.js';
import { exactPath, type SignedCall, type VenueEndpoints, type VenueReply, type VenueRoute } from '../venue-route.js';

const ZERO = new Decimal(0);

@Injectable()
export class BalancesEndpoint implements VenueEndpoints {
  constructor(
    @Inject(VenueDirectory) private readonly directory: VenueDirectory,
    @Inject(Ledger) private readonly ledger: Ledger,
    @Inject(WithdrawalBook) private readonly withdrawals: WithdrawalBook,
  ) {}

  routes(): VenueRoute[] {
    return [
      {
        template: RestPath.Balances,
        pattern: exactPath(RestPath.Balances),
        family: 'general',
        handle: (c) => this.balances(c),
      },
    ];
  }

  private balances(call: SignedCall): VenueReply {
    const filterZero = optionalBoolean(call.body, 'filterZeroBalanceAccounts');
    const groupUuid = optionalString(call.body, 'accountGroupUuid');
    if (!filterZero.ok)
      return invalidParameterReply('general', 'filterZeroBalanceAccounts must be a boolean', call.now);
    if (!groupUuid.ok) return invalidParameterReply('general', 'accountGroupUuid must be a string', call.now);
    let groups = this.directory.groupsOf(call.user.uuid);
    if (groupUuid.value !== undefined) {
      groups = groups.filter((g) => g.uuid === groupUuid.value);
      if (groups.length === 0) return invalidAccountGroupReply();
    }
    const user = call.user;
    return {
      status: 200,
      body: {
        data: {
          Created: user.created,
          Language: user.language,
          Login: user.login,
          Rights: call.key.rights,
          Wallets: {},
          Secondary_Wallets: {},
          Account_Groups: groups.map((g) => this.group(g, filterZero.value ?? false)),
        },
        userUuid: user.uuid,
        timestamp: String(Math.trunc(call.now)),
        resultCode: 'OK',
      },
    };
  }

  private group(g: AccountGroupRecord, filterZero: boolean): WireValue {
    const owner = this.directory.ownerOf(g);
    const accounts: Record<string, WireValue> = {};
    for (const ccy of this.ledger.currencies()) {
      const p = this.ledger.position(g.uuid, ccy);
      const total = this.ledger.total(g.uuid, ccy);
      if (filterZero && total.isZero()) continue;
      const inFlight = this.withdrawals.inFlight(g.uuid, ccy);
      const available = Decimal.max(ZERO, p.settled.minus(p.unsettledSell).minus(inFlight));
      const brokerage = Decimal.max(ZERO, this.withdrawals.headroom(g.uuid, ccy)); // what a trade may pay (W39)
      accounts[ccy] = {
        Balance: balanceDetail(total, ccy),
        Available_Balance: balanceDetail(available, ccy),
        Brokerage_Available_Balance: balanceDetail(brokerage, ccy),
        Unsettled_Sell_Balance: balanceDetail(p.unsettledSell, ccy),
        Unsettled_Buy_Balance: balanceDetail(p.unsettledBuy, ccy),
        ccy,
        Owner_Uuid: g.ownerUuid,
        Uuid: this.ledger.accountUuid(g.uuid, ccy),
      };
    }
    return {
      AccountGroup_Uuid: g.uuid,
      AccountGroup_Name: g.name,
      Owner_Uuid: g.ownerUuid,
      Owner_Name: owner?.name,
      Owner_Shortcode: owner?.shortcode,
      Natural: g.natural,
      Accounts: accounts,
    };
  }
}
