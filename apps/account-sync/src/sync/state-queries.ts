/**
 * Request/reply queries for treasury and back office over the mirrored state (libs/contracts account/sync.ts):
 * answered from memory, never from the venue (a query costs no REST budget). Every reply says how current its
 * records are (`asOf`, `stale`: the sync schedule's judgement, the one /health uses): the last known values
 * are answered, never passed off as live.
 */
import type { BusResponder, BusSubscription } from '#bus';
import {
  BalanceQuery,
  PairQuery,
  sameAccountGroup,
  StateQuery,
  TradeQuery,
  TransactionListQuery,
  type AccountSyncSubjects,
  type ListPosition,
  type StateQueryReply,
} from '#contracts';
import type { Participant, Trade, TransactionRecord } from '#venue-api';
import { parseVenueDateTime } from '#venue-api';
import { all, cursorPage } from './query-page.js';
import type { ResourceFreshness } from './sync-schedule-machine.js';
import type { SyncEngine, Mirrors } from './sync-engine.js';
import type { SyncResource } from './sync-triggers.js';

/** How current a resource's records are (the sync schedule's judgement). */
export type FreshnessOf = (resource: SyncResource) => ResourceFreshness;

/**
 * A record of the group a query names (none named: every record). A UUID in either case names one group (WD10), so
 * a caller writing it in capitals reads the records the venue wrote in small letters.
 */
export function ofAccountGroup(query: { accountGroupUuid?: string }, group: string | undefined): boolean {
  return (
    query.accountGroupUuid === undefined || (group !== undefined && sameAccountGroup(group, query.accountGroupUuid))
  );
}

function createdAtOf(trade: Trade): number {
  const at = trade.createdAt === undefined ? NaN : parseVenueDateTime(trade.createdAt);
  return Number.isNaN(at) ? 0 : at;
}

/** A trade's place in `acct.trade.query`'s order: its `createdAt` (none or unreadable: 0), a tie by uuid. */
function tradePosition(trade: Trade): ListPosition {
  return { at: createdAtOf(trade), uuid: trade.uuid };
}

/**
 * A leg's place in `acct.transaction-list.query`'s order: `received`, the time the venue booked it, which its
 * state changes leave alone — never `timestampMillis`, which the venue sets again at each change (the leg
 * would move between two pages); none, or not a safe integer: 0 (after every leg with one). A tie by uuid.
 */
export function legPosition(leg: TransactionRecord): ListPosition {
  return { at: leg.received !== undefined && Number.isSafeInteger(leg.received) ? leg.received : 0, uuid: leg.uuid };
}

/**
 * One page of `acct.trade.query`: newest `createdAt` first, a tie by uuid — one total order, the same in every
 * instance and after a restart (the mirror's own order, the order it loaded or read the trades in, is neither).
 */
export function tradePage(trades: Trade[], query: TradeQuery, freshness: ResourceFreshness): StateQueryReply<Trade> {
  return cursorPage(
    trades.filter((trade) => matchesTrade(query, trade)),
    tradePosition,
    query,
    freshness,
  );
}

/** One page of `acct.transaction-list.query`: newest `received` first, a tie by uuid (`legPosition`). */
export function transactionListPage(
  legs: Iterable<TransactionRecord>,
  query: TransactionListQuery,
  freshness: ResourceFreshness,
): StateQueryReply<TransactionRecord> {
  return cursorPage(
    [...legs].filter((leg) => matchesLeg(query, leg)),
    legPosition,
    query,
    freshness,
  );
}

export function matchesTrade(query: TradeQuery, trade: Trade): boolean {
  const at = createdAtOf(trade);
  return (
    ofAccountGroup(query, trade.accountGroup?.uuid) &&
    (query.state === undefined || trade.state === query.state) &&
    (query.side === undefined || trade.tradeSide === query.side) &&
    (query.tradeClass === undefined || trade.tradeClass === query.tradeClass) &&
    (query.clientRef === undefined || trade.clientRef === query.clientRef) &&
    (query.tradeRef === undefined || trade.tradeRef === query.tradeRef) &&
    (query.from === undefined || at >= parseVenueDateTime(query.from)) &&
    (query.to === undefined || at <= parseVenueDateTime(query.to))
  );
}

function matchesLeg(query: TransactionListQuery, leg: TransactionRecord): boolean {
  return (
    ofAccountGroup(query, leg.accountGroupUuid) &&
    (query.ccy === undefined || leg.ccy === query.ccy) &&
    (query.state === undefined || leg.transactionState === query.state) &&
    (query.type === undefined || leg.transactionType === query.type) &&
    (query.tradeId === undefined || leg.tradeId === query.tradeId)
  );
}

function ofGroup(query: StateQuery, participant: Participant): boolean {
  return ofAccountGroup(query, participant.clientAccountGroupUuid);
}

export function serveStateQueries(
  responder: BusResponder,
  subjects: AccountSyncSubjects,
  mirrors: Mirrors,
  engine: SyncEngine,
  freshness: FreshnessOf,
): BusSubscription[] {
  const queue = 'account-sync';
  return [
    responder.respond({
      subject: subjects.query('balance'),
      kind: 'acct.balance.query',
      contract: BalanceQuery,
      queue,
      handle: (query) =>
        all(
          mirrors.balance
            .values()
            .filter(
              (b) =>
                ofAccountGroup(query, b.accountGroupUuid) &&
                (query.ccy === undefined || b.ccy === query.ccy) &&
                (query.nonZero !== true || !/^-?0(\.0*)?$/.test(b.balance)),
            ),
          freshness('balances'),
        ),
    }),
    responder.respond({
      subject: subjects.query('trade'),
      kind: 'acct.trade.query',
      contract: TradeQuery,
      queue,
      handle: (query) => tradePage(mirrors.trade.values(), query, freshness('trades')),
    }),
    responder.respond({
      subject: subjects.query('transaction-list'),
      kind: 'acct.transaction-list.query',
      contract: TransactionListQuery,
      queue,
      handle: (query) => transactionListPage(engine.transactions.values(), query, freshness('transactions')),
    }),
    responder.respond({
      subject: subjects.query('account-details'),
      kind: 'acct.account-details.query',
      contract: StateQuery,
      queue,
      handle: (query) =>
        all(
          mirrors.accountDetails
            .keys()
            .filter((group) => ofAccountGroup(query, group))
            .map((group) => ({ accountGroupUuid: group, details: mirrors.accountDetails.get(group) })),
          freshness('accountDetails'),
        ),
    }),
    responder.respond({
      subject: subjects.query('beneficiary'),
      kind: 'acct.beneficiary.query',
      contract: StateQuery,
      queue,
      handle: (query) =>
        all(
          mirrors.beneficiary.values().filter((p) => ofGroup(query, p)),
          freshness('beneficiaries'),
        ),
    }),
    responder.respond({
      subject: subjects.query('sender'),
      kind: 'acct.sender.query',
      contract: StateQuery,
      queue,
      handle: (query) =>
        all(
          mirrors.sender.values().filter((p) => ofGroup(query, p)),
          freshness('senders'),
        ),
    }),
    responder.respond({
      subject: subjects.query('limit'),
      kind: 'acct.limit.query',
      contract: StateQuery,
      queue,
      handle: (query) =>
        all(
          mirrors.limit.values().filter((l) => ofAccountGroup(query, l.accountGroupUuid)),
          freshness('creditLimits'),
        ),
    }),
    responder.respond({
      subject: subjects.query('transfer'),
      kind: 'acct.transfer.query',
      contract: StateQuery,
      queue,
      handle: (query) =>
        all(
          mirrors.transfer
            .values()
            .filter(
              (t) =>
                query.accountGroupUuid === undefined ||
                ofAccountGroup(query, t.fromAccountGroupUuid) ||
                ofAccountGroup(query, t.toAccountGroupUuid),
            ),
          freshness('transfers'),
        ),
    }),
    responder.respond({
      subject: subjects.query('pair'),
      kind: 'acct.pair.query',
      contract: PairQuery,
      queue,
      handle: () => all(mirrors.pair.values(), freshness('pairs')),
    }),
  ];
}
