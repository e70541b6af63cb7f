/**
 * §2.7 list elements (and R8's extra fiat fields, unless the dialect plays only the fields shown: `fiatWithdrawalRow`).
 * Names and aliases vanish when the participants service is down.
 */
import { VenueDirectory, partyName } from '../../domain/directory.js';
import { isoWithOffset } from '../../domain/time-format.js';
import type { WithdrawalRequest } from '../../domain/withdrawals.js';
import type { FiatWithdrawalRow } from '../../dialect.js';
import type { WireValue } from '../../http/json.js';

export function withdrawalRow(
  r: WithdrawalRequest,
  directory: VenueDirectory,
  fiatRow: FiatWithdrawalRow = 'with-group',
): WireValue {
  const group = directory.group(r.accountGroupUuid);
  const owner = group === undefined ? undefined : directory.ownerOf(group);
  const requestor = directory.user(r.requestorUuid);
  const originator = directory.originatorOf(r.accountGroupUuid);
  const named = directory.participantsServiceUp();
  const common = {
    uuid: r.uuid,
    amount: r.kind === 'fiat' ? r.amount.toFixed(2) : r.amount.toFixed(),
    ccy: r.ccy,
    state: r.state,
  };
  if (r.kind === 'fiat') {
    const bank = originator?.bankAccounts.find((b) => b.uuid === r.bankAccountUuid);
    return {
      ...common,
      withdrawalMethod: 'BANK_WIRE',
      bankAccount: {
        uuid: r.bankAccountUuid,
        name: named ? bank?.accountName : undefined,
        alias: named ? bank?.accountAlias : undefined,
      },
      clientComment: r.clientComment,
      dateCreated: isoWithOffset(r.dateCreated),
      lastUpdated: isoWithOffset(r.lastUpdated),
      ...(fiatRow === 'with-group'
        ? { accountGroupUuid: r.accountGroupUuid, accountGroupName: group?.name, requestor: requestor?.login }
        : {}),
    };
  }
  const wallet = originator?.wallets.find((w) => w.uuid === r.walletUuid);
  return {
    ...common,
    coinAddress: r.coinAddress,
    accountGroup: group?.name,
    accountGroupUuid: r.accountGroupUuid,
    accountGroupOwner: owner?.name,
    accountGroupOwnerUuid: owner?.uuid,
    accountGroupName: group?.name,
    clientName: owner?.name,
    requestor: requestor?.login,
    beneficiary:
      originator === undefined ? undefined : { uuid: originator.uuid, name: named ? partyName(originator) : undefined },
    wallet: {
      uuid: r.walletUuid,
      address: named ? wallet?.walletAddress : undefined,
      alias: named ? wallet?.alias : undefined,
    },
    clientComment: r.clientComment,
    dateCreated: isoWithOffset(r.dateCreated),
    lastUpdated: isoWithOffset(r.lastUpdated),
  };
}
