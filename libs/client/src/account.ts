/**
 * The account as the account-sync app mirrors it (docs/account-sync.md): balances, trades and transaction
 * legs (request/reply queries answered from the mirror, no venue budget spent), one transaction's state, and
 * the live changes of the account's state streams (JetStream: none lost while the client reconnects).
 *
 * Query answers are the last known records with how current they are (`Freshness`): `stale: true` means the
 * app has not read them from the venue within its bound (or not since its start) — old values, not live ones.
 */
import type { Observable } from 'rxjs';
import {
  AccountSyncSubjects,
  GatewayErrorCode,
  TransactionSubjects,
  type BalanceQuery,
  type BalanceState,
  type Freshness,
  type StateQueryReply,
  type TradeQuery,
  type TransactionLeg,
  type TransactionListQuery,
  type TransactionStateChanged,
  type AccountStateChanged,
  type MirroredResource,
} from '#contracts';
import { changeFeed } from './change-feed.js';
import { gatewayRequest, type ClientContext } from './client-context.js';
import { GatewayError } from './gateway-error.js';

/** A venue trade (§2.4) as mirrored; the venue's own fields, decimals as strings. */
export interface TradeRecord {
  uuid: string;
  createdAt?: string;
  updatedAt?: string;
  tradeRef?: string;
  clientRef?: string;
  tradeSide: 'BUY' | 'SELL';
  state: string;
  tradedAmount?: { amount: string; currency: string };
  settlementAmount?: { amount: string; currency: string };
  accountGroup?: { uuid: string; name?: string };
  tradeClass?: string;
  executedPrice?: string;
  quoteId?: string;
  settlementDate?: string;
}

/** One page of records, with how current they are (`stale`, `asOf`). */
export interface Page<T> extends Freshness {
  total: number;
  records: T[];
  /**
   * Trades and transaction legs: where the page ends (absent on an empty page) — pass it as `before` for the
   * page after it, which then neither repeats nor skips a record when new ones arrive meanwhile (`offset` does).
   */
  next?: string;
}

/**
 * Records with how current they are: an array (as before) carrying `asOf` and `stale`. `JSON.stringify` keeps
 * only the array: write `{ asOf, stale, records }` to keep them.
 */
export type KnownRecords<T> = T[] & Freshness;

/** The freshness of several answers taken together: stale if any is, as of the oldest (null if any is). */
function together(answers: readonly Freshness[]): Freshness {
  const asOfs = answers.map((a) => a.asOf);
  return {
    asOf: asOfs.some((at) => at === null) ? null : Math.min(...(asOfs as number[])),
    stale: answers.some((a) => a.stale),
  };
}

/** Who publishes the account's changes (for the message when their stream is missing). */
const APP = 'account-sync app';

/** Rows per request when a whole history is read page by page. */
const PAGE = 1_000;

/** Called after each page of a whole history: the records read so far, and those plus the ones still to read. */
export type PageProgress = (read: number, total: number) => void | Promise<void>;

export class AccountApi {
  readonly subjects: AccountSyncSubjects;
  private readonly transactionSubjects: TransactionSubjects;

  constructor(private readonly context: ClientContext) {
    this.subjects = new AccountSyncSubjects(context.subjects);
    this.transactionSubjects = new TransactionSubjects(context.subjects.prefix, context.subjects.account);
  }

  /** Balances per account group and currency; `stale`: the last known ones, not live (`asOf` says from when). */
  async balances(query: BalanceQuery = {}): Promise<KnownRecords<BalanceState>> {
    const { records, asOf, stale } = await this.query<BalanceState>('balance', query);
    return Object.assign(records, { asOf, stale });
  }

  /** One page of trades, newest first (`limit` default 100, at most 1000; `before`: the `next` of the page before). */
  trades(query: TradeQuery = {}): Promise<Page<TradeRecord>> {
    return this.query<TradeRecord>('trade', query);
  }

  /**
   * Every trade matching `query` when the first page is read, newest first, each once (`allPages`).
   * `progress(read, total)` after each page (`total`: the trades read so far and those still to read), awaited
   * before the next page is asked. Stale if any page was, as of the oldest page.
   */
  allTrades(
    query: Omit<TradeQuery, 'limit' | 'offset' | 'before'> = {},
    progress?: PageProgress,
  ): Promise<KnownRecords<TradeRecord>> {
    return this.allPages<TradeRecord>('trade', 'trades', query, progress);
  }

  /** One page of transaction legs, newest `received` first (`limit` default 100, at most 1000; `before` as for trades). */
  transactions(query: TransactionListQuery = {}): Promise<Page<TransactionLeg>> {
    return this.query<TransactionLeg>('transaction-list', query);
  }

  /**
   * Every transaction leg matching `query` when the first page is read, newest `received` first, each once,
   * however many legs arrive meanwhile (webhooks, syncs); `progress` and freshness as `allTrades`. A leg's row
   * is as it was when its page was read (a state changed later shows in a new reading or `transactionChanges$`).
   */
  allTransactions(
    query: Omit<TransactionListQuery, 'limit' | 'offset' | 'before'> = {},
    progress?: PageProgress,
  ): Promise<KnownRecords<TransactionLeg>> {
    return this.allPages<TransactionLeg>('transaction-list', 'transaction legs', query, progress);
  }

  /** One transaction's latest state (by its uuid). */
  async transaction(uuid: string): Promise<TransactionStateChanged> {
    return (
      await gatewayRequest<{ ok: true; transaction: TransactionStateChanged }>(
        this.context,
        this.transactionSubjects.get,
        { uuid },
      )
    ).transaction;
  }

  /**
   * Live changes of one mirrored resource (balance, trade, …) from now on, in order, none lost to a reconnect
   * (read from the account's event stream: change-feed.ts).
   */
  changes$<T = unknown>(resource: MirroredResource): Observable<AccountStateChanged<T>> {
    return changeFeed<AccountStateChanged<T>>(this.context, this.subjects.allStateChanges(resource), APP);
  }

  /** Live transaction state changes from now on, in order, none lost to a reconnect (the transaction ledger). */
  transactionChanges$(): Observable<TransactionStateChanged> {
    return changeFeed<TransactionStateChanged>(this.context, this.transactionSubjects.allChanged, APP);
  }

  /**
   * A whole history read page by page, each page starting right after the last record of the one before
   * (`before`: a position in the query's order, not an offset, which records arriving meanwhile would move).
   */
  private async allPages<T>(
    resource: 'trade' | 'transaction-list',
    what: string,
    query: object,
    progress: PageProgress | undefined,
  ): Promise<KnownRecords<T>> {
    const records: T[] = [];
    const pages: Freshness[] = [];
    let before: string | undefined;
    for (;;) {
      const page = await this.query<T>(resource, {
        ...query,
        limit: PAGE,
        ...(before === undefined ? {} : { before }),
      });
      const read = records.length;
      records.push(...page.records);
      pages.push(page);
      // with `before`, `total` counts the records after it: those on this page and the ones still to read
      await progress?.(records.length, read + page.total);
      if (page.records.length < PAGE) return Object.assign(records, together(pages));
      if (page.next === undefined) {
        // an app older than the cursor: offsets would move under new records, so no page is read by offset
        throw new GatewayError(
          GatewayErrorCode.Internal,
          `the account-sync app answered a full page of ${what} without \`next\`: it cannot page the history exactly`,
          "upgrade the account-sync app to this SDK's version",
        );
      }
      before = page.next;
    }
  }

  private async query<T>(resource: MirroredResource | 'transaction-list', query: object): Promise<Page<T>> {
    const reply = await gatewayRequest<
      Omit<Extract<StateQueryReply<T>, { ok: true }>, keyof Freshness> & Partial<Freshness>
    >(this.context, this.subjects.query(resource), query);
    // An app older than the freshness fields: nothing says the records are current.
    return {
      total: reply.total,
      records: reply.records,
      ...(reply.next === undefined ? {} : { next: reply.next }),
      asOf: reply.asOf ?? null,
      stale: reply.stale ?? true,
    };
  }
}
