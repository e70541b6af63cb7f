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
  StateQuery,
  TradeQuery,
  TransactionListQuery,
  parseTradeCursor,
  tradeCursor,
  type AccountSyncSubjects,
  type Freshness,
  type StateQueryReply,
  type TradePosition,
} from '#contracts';
import type { Participant, Trade, TransactionRecord } from '#venue-api';
import { parseVenueDateTime } from '#venue-api';
import type { ResourceFreshness } from './sync-schedule-machine.js';
import type { SyncEngine, Mirrors } from './sync-engine.js';
import type { SyncResource } from './sync-triggers.js';

const DEFAULT_LIMIT = 100;

/** How current a resource's records are (the sync schedule's judgement). */
export type FreshnessOf = (resource: SyncResource) => ResourceFreshness;

/** The reply fields of a resource's freshness (`asOf` null: no good read since this process started). */
function replyFreshness({ asOf, stale }: ResourceFreshness): Freshness {
  return { asOf: asOf ?? null, stale };
}

function page<T>(
  records: T[],
  limit: number | undefined,
  offset: number | undefined,
  freshness: ResourceFreshness,
): StateQueryReply<T> {
  const start = offset ?? 0;
  return all(records.slice(start, start + (limit ?? DEFAULT_LIMIT)), freshness, records.length);
}

function all<T>(records: T[], freshness: ResourceFreshness, total: number = records.length): StateQueryReply<T> {
  return { ok: true, total, records, ...replyFreshness(freshness) };
}

function byNewest<T>(records: T[], at: (record: T) => number): T[] {
  return records
    .map((record) => [at(record), record] as const)
    .sort((a, b) => b[0] - a[0])
    .map(([, record]) => record);
}

function createdAtOf(trade: Trade): number {
  const at = trade.createdAt === undefined ? NaN : parseVenueDateTime(trade.createdAt);
  return Number.isNaN(at) ? 0 : at;
}

function positionOf(trade: Trade): TradePosition {
  return { createdAt: createdAtOf(trade), uuid: trade.uuid };
}

/**
 * The trade query's order: newest first, a tie by uuid — one total order, the same in every instance and after
 * a restart (the mirror's own order, the order it loaded or read the trades in, is neither).
 */
function tradeOrder(a: TradePosition, b: TradePosition): number {
  if (a.createdAt !== b.createdAt) return b.createdAt - a.createdAt;
  return a.uuid < b.uuid ? -1 : a.uuid > b.uuid ? 1 : 0;
}

/**
 * One page of `acct.trade.query`: the matching trades after `before` (a cursor: `TradePosition`), from `offset`
 * on; `next` the position of the page's last trade, for the page after it.
 */
export function tradePage(trades: Trade[], query: TradeQuery, freshness: ResourceFreshness): StateQueryReply<Trade> {
  // validated by the contract: a cursor that does not parse never gets here
  const before = query.before === undefined ? undefined : parseTradeCursor(query.before);
  const matching = trades
    .filter((trade) => matchesTrade(query, trade))
    .map((trade) => [positionOf(trade), trade] as const)
    .filter(([position]) => before === undefined || tradeOrder(before, position) < 0)
    .sort(([a], [b]) => tradeOrder(a, b));
  const reply = page(matching, query.limit, query.offset, freshness);
  if (!reply.ok) return reply;
  const last = reply.records.at(-1);
  return {
    ...reply,
    records: reply.records.map(([, trade]) => trade),
    ...(last === undefined ? {} : { next: tradeCursor(last[0]) }),
  };
}

export function matchesTrade(query: TradeQuery, trade: Trade): boolean {
  const at = createdAtOf(trade);
  return (
    (query.accountGroupUuid === undefined || trade.accountGroup?.uuid === query.accountGroupUuid) &&
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
    (query.accountGroupUuid === undefined || leg.accountGroupUuid === query.accountGroupUuid) &&
    (query.ccy === undefined || leg.ccy === query.ccy) &&
    (query.state === undefined || leg.transactionState === query.state) &&
    (query.type === undefined || leg.transactionType === query.type) &&
    (query.tradeId === undefined || leg.tradeId === query.tradeId)
  );
}

function ofGroup(query: StateQuery, participant: Participant): boolean {
  return query.accountGroupUuid === undefined || participant.clientAccountGroupUuid === query.accountGroupUuid;
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
                (query.accountGroupUuid === undefined || b.accountGroupUuid === query.accountGroupUuid) &&
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
      handle: (query) =>
        page(
          byNewest(
            [...engine.transactions.values()].filter((leg) => matchesLeg(query, leg)),
            (leg) => leg.received ?? leg.timestampMillis ?? 0,
          ),
          query.limit,
          query.offset,
          freshness('transactions'),
        ),
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
            .filter((group) => query.accountGroupUuid === undefined || group === query.accountGroupUuid)
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
          mirrors.limit
            .values()
            .filter((l) => query.accountGroupUuid === undefined || l.accountGroupUuid === query.accountGroupUuid),
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
                t.fromAccountGroupUuid === query.accountGroupUuid ||
                t.toAccountGroupUuid === query.accountGroupUuid,
            ),
          freshness('transfers'),
        ),
    }),
    responder.respond({
      subject: subjects.query('pair'),
      kind: 'acct.pair.query',
      contract: PairQuery,
      acceptEmptyBody: true,
      queue,
      handle: () => all(mirrors.pair.values(), freshness('pairs')),
    }),
  ];
}
