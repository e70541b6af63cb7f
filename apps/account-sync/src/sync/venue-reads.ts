/**
 * The venue's answers turned into the mirrored records, keyed as in libs/contracts/src/account/sync.ts.
 * Pure functions: unit-tested without I/O.
 */
import { stateKey, type BalanceState } from '#contracts';
import type { AccountBalances, CreditLimit, Participant, TradablePair, Trade, TransferRecord } from '#venue-api';
import { parseVenueDateTime } from '#venue-api';

export interface AccountGroupRef {
  uuid: string;
  name?: string;
  natural?: boolean;
}

/** §2.6: one BalanceState per account group and currency, read from `Account_Groups` only. */
export function balanceStates(balances: AccountBalances): {
  groups: AccountGroupRef[];
  states: Map<string, BalanceState>;
} {
  const groups: AccountGroupRef[] = [];
  const states = new Map<string, BalanceState>();
  for (const group of balances.data.Account_Groups) {
    groups.push({
      uuid: group.AccountGroup_Uuid,
      ...(group.AccountGroup_Name === undefined ? {} : { name: group.AccountGroup_Name }),
      ...(group.Natural === undefined ? {} : { natural: group.Natural }),
    });
    for (const [code, account] of Object.entries(group.Accounts)) {
      const ccy = account.ccy ?? code;
      const state: BalanceState = {
        accountGroupUuid: group.AccountGroup_Uuid,
        ccy,
        balance: account.Balance.value,
        available: account.Available_Balance.value,
        brokerageAvailable: account.Brokerage_Available_Balance.value,
      };
      if (group.AccountGroup_Name !== undefined) state.accountGroupName = group.AccountGroup_Name;
      if (group.Natural !== undefined) state.natural = group.Natural;
      if (account.Unsettled_Sell_Balance !== undefined) state.unsettledSell = account.Unsettled_Sell_Balance.value;
      if (account.Unsettled_Buy_Balance !== undefined) state.unsettledBuy = account.Unsettled_Buy_Balance.value;
      states.set(stateKey(group.AccountGroup_Uuid, ccy), state);
    }
  }
  return { groups, states };
}

export function keyedByUuid<T extends { uuid: string }>(records: Iterable<T>): Map<string, T> {
  const keyed = new Map<string, T>();
  for (const record of records) keyed.set(stateKey(record.uuid), record);
  return keyed;
}

export function tradesByKey(trades: Iterable<Trade>): Map<string, Trade> {
  return keyedByUuid(trades);
}

export function transfersByKey(transfers: Iterable<TransferRecord>): Map<string, TransferRecord> {
  return keyedByUuid(transfers);
}

export function participantsByKey(participants: Iterable<Participant>): Map<string, Participant> {
  return keyedByUuid(participants);
}

/** Limits keyed `{group}.{ccy}`; a record without them keyed by its position (never dropped). */
export function limitsByKey(limits: CreditLimit[]): Map<string, CreditLimit> {
  const keyed = new Map<string, CreditLimit>();
  limits.forEach((limit, index) => {
    const key =
      limit.accountGroupUuid !== undefined || limit.ccy !== undefined
        ? stateKey(limit.accountGroupUuid ?? 'any', limit.ccy ?? 'any')
        : stateKey('record', String(index));
    keyed.set(keyed.has(key) ? stateKey(key, String(index)) : key, limit);
  });
  return keyed;
}

/** Pairs keyed `{BASE}.{QUOTE}` (or their instrument, or position). */
export function pairsByKey(pairs: TradablePair[]): Map<string, TradablePair> {
  const keyed = new Map<string, TradablePair>();
  pairs.forEach((pair, index) => {
    const key =
      pair.base !== undefined && pair.quote !== undefined
        ? stateKey(pair.base, pair.quote)
        : stateKey('pair', pair.instrument ?? String(index));
    keyed.set(key, pair);
  });
  return keyed;
}

/** The newest `createdAt` (ISO text; no zone = UTC, spec-gaps C9) of trades, as epoch ms; undefined when none parses. */
export function newestCreatedAt(trades: Iterable<{ createdAt?: string }>): number | undefined {
  let newest: number | undefined;
  for (const trade of trades) {
    const at = trade.createdAt === undefined ? NaN : parseVenueDateTime(trade.createdAt);
    if (!Number.isNaN(at) && (newest === undefined || at > newest)) newest = at;
  }
  return newest;
}
