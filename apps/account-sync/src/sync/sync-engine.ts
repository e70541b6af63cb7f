/**
 * What one sync of each resource does against the venue (§4.4–§4.11) and how the answers reach the
 * mirrors. The scheduler (sync-scheduler.ts) decides when; this decides what. Every list is read to its end.
 */
import { driftMsgId, type BalanceDrift, type BalanceState } from '#contracts';
import type { JsonLogger } from '#observability';
import type { Page, Participant, Trade, TransactionRecord, TransferRecord, VenueRestClient } from '#venue-api';
import type { CreditLimit, TradablePair } from '#venue-api';
import type { TransactionIntake } from '../transactions/transaction-intake.js';
import { findDrifts } from './balance-check.js';
import type { ApplyResult, StateMirror } from './state-mirror.js';
import type { SyncMetrics } from './sync-metrics.js';
import type { SyncResource } from './sync-triggers.js';
import {
  balanceStates,
  keyedByUuid,
  limitsByKey,
  newestCreatedAt,
  pairsByKey,
  type AccountGroupRef,
} from './venue-reads.js';

export type SyncMode = 'full' | 'incremental';

/** A long read given up because the app is stopping (the next start reads again). */
export class SyncStoppedError extends Error {
  override readonly name = 'SyncStoppedError';
  constructor() {
    super('sync stopped: the app is shutting down');
  }
}

export interface Mirrors {
  balance: StateMirror<BalanceState>;
  trade: StateMirror<Trade>;
  transfer: StateMirror<TransferRecord>;
  accountDetails: StateMirror<Participant>;
  beneficiary: StateMirror<Participant>;
  sender: StateMirror<Participant>;
  limit: StateMirror<CreditLimit>;
  pair: StateMirror<TradablePair>;
}

export interface SyncEngineDeps {
  client: VenueRestClient;
  mirrors: Mirrors;
  /** The transaction ledger (apps/account-sync/src/transactions); every list record goes to it. */
  intake: TransactionIntake | undefined;
  publishDrift(drift: BalanceDrift): Promise<void>;
  metrics: SyncMetrics;
  logger: JsonLogger;
  now(): number;
  overlapMs: number;
}

const TRADE_PAGE = 200;
/** Trade pages asked for at once during a full read (the limiter still spaces them). */
const TRADE_PAGES_IN_FLIGHT = 8;
/** Held pending trades looked up one by one per incremental run, at most. */
const MAX_TRADE_LOOKUPS = 50;
/** Trade pages being written to NATS at once while later pages are read. */
const APPLYING_PAGES = 8;
const INGEST_CONCURRENCY = 16;
const INGEST_BATCH = 200;
const TRANSACTION_PAGE = 200;

export class SyncEngine {
  /** The account groups seen in the last balances read (participants and details are read per group). */
  groups: AccountGroupRef[] = [];
  /** Transaction legs read from the venue's list, by uuid (the `transaction-list` query and the balance check). */
  readonly transactions = new Map<string, TransactionRecord>();
  private balancesReadAt: number | undefined;
  private readonly reportedDrifts = new Set<string>();
  private pendingFilterWorks = true;
  /** Received time of the newest leg held; the incremental read starts there (minus the overlap). */
  private newestTransactionAt: number | undefined;
  /** Set once a full read of the transaction list ended well: until then every read is a full one. */
  private transactionsFullyRead = false;
  /** The same for the trade list: an incremental read after a failed full one would never read its older pages. */
  private tradesFullyRead = false;
  private readonly log: JsonLogger;
  private stopping = false;

  constructor(private readonly deps: SyncEngineDeps) {
    this.log = deps.logger.child('Sync');
  }

  /** Long reads end at their next page (SyncStoppedError); what was read so far is kept. */
  abort(): void {
    this.stopping = true;
  }

  private checkRunning(): void {
    if (this.stopping) throw new SyncStoppedError();
  }

  async run(resource: SyncResource, mode: SyncMode): Promise<void> {
    switch (resource) {
      case 'balances':
        return this.syncBalances();
      case 'trades':
        return mode === 'full' ? this.syncAllTrades() : this.syncRecentTrades();
      case 'transactions':
        return this.syncTransactions(mode);
      case 'transfers':
        return this.syncTransfers();
      case 'accountDetails':
        return this.syncAccountDetails();
      case 'beneficiaries':
        return this.syncParticipants('beneficiary');
      case 'senders':
        return this.syncParticipants('sender');
      case 'creditLimits':
        return this.syncLimits();
      case 'pairs':
        return this.syncPairs();
    }
  }

  private count(resource: SyncResource, records: number, result: ApplyResult): void {
    const { metrics } = this.deps;
    metrics.records.inc({ resource }, records);
    if (result.created > 0) metrics.changes.inc({ resource, change: 'created' }, result.created);
    if (result.changed > 0) metrics.changes.inc({ resource, change: 'changed' }, result.changed);
    if (result.removed > 0) metrics.changes.inc({ resource, change: 'removed' }, result.removed);
  }

  private async syncBalances(): Promise<void> {
    const answer = await this.deps.client.getBalances({ filterZeroBalanceAccounts: false });
    const { groups, states } = balanceStates(answer);
    const readAt =
      answer.timestamp !== undefined && /^\d+$/.test(answer.timestamp) ? Number(answer.timestamp) : this.deps.now();
    this.groups = groups;
    const held = this.deps.mirrors.balance;
    // A currency or a group no longer listed is removed (the read covers every group and currency).
    const result = await held.apply(states, () => true);
    this.balancesReadAt = readAt;
    this.count('balances', states.size, result);
    this.deps.metrics.currenciesHeld(new Set([...states.values()].map((state) => state.ccy)));
    await this.checkBalances();
  }

  /**
   * §4.5: every trade, newest first, pages in flight together; ends at a short page. A failed page fails the
   * run once: the pages still in flight and being applied are waited for (none left to reject unhandled).
   */
  private async syncAllTrades(): Promise<void> {
    const { client, mirrors } = this.deps;
    const seen = new Set<string>();
    let nextOffset = 0;
    let ended = false;
    const applying: Array<Promise<unknown>> = [];
    const inFlight: Array<Promise<Page<Trade>>> = [];
    const ask = () => {
      const page = client.listTrades({ max: TRADE_PAGE, offset: nextOffset });
      page.catch(() => undefined); // handled: awaited in order below, or settled when an earlier page failed
      inFlight.push(page);
      nextOffset += TRADE_PAGE;
    };
    let read = 0;
    try {
      for (let i = 0; i < TRADE_PAGES_IN_FLIGHT; i += 1) ask();
      while (inFlight.length > 0) {
        const page = await (inFlight.shift() as Promise<Page<Trade>>);
        // The rows the venue sent, read or not: a row left out as unreadable must not end the walk early.
        if (page.rows < TRADE_PAGE || this.stopping) ended = true;
        if (!ended) ask();
        const fresh = new Map<string, Trade>();
        for (const [key, trade] of keyedByUuid(page.data)) {
          if (seen.has(key)) continue;
          seen.add(key);
          fresh.set(key, trade);
        }
        read += fresh.size;
        // Pages are applied while the next ones are read; at most APPLYING_PAGES at once (bounded memory).
        const applied = mirrors.trade.apply(fresh).then((result) => this.count('trades', fresh.size, result));
        applied.catch(() => undefined); // handled: awaited below
        applying.push(applied);
        if (applying.length >= APPLYING_PAGES) await applying.shift();
        if (ended) {
          // Pages asked beyond the end come back empty or short; wait for them without asking more.
          await Promise.allSettled(inFlight.splice(0));
        }
      }
      await Promise.all(applying.splice(0));
    } catch (error) {
      await Promise.allSettled([...inFlight.splice(0), ...applying.splice(0)]);
      throw error;
    }
    this.checkRunning();
    this.tradesFullyRead = true;
    this.log.info('trade history read', { trades: read, held: mirrors.trade.size });
  }

  /** AS9: new trades since the newest held (minus the overlap), every pending one, and held pending ones that moved. */
  private async syncRecentTrades(): Promise<void> {
    const { client, mirrors, overlapMs } = this.deps;
    const newest = newestCreatedAt(mirrors.trade.values());
    if (newest === undefined || !this.tradesFullyRead) return this.syncAllTrades();
    const fresh = keyedByUuid(await client.listAllTrades({ from: new Date(newest - overlapMs).toISOString() }));
    const pending = keyedByUuid(await client.listAllTrades({ tradeState: 'PENDING_SETTLEMENT' }));
    for (const [key, trade] of pending) fresh.set(key, trade);
    // Held pending trades the pending list no longer shows moved on: looked up by tradeRef (those without one
    // are left to the next full read, and take no lookup slot).
    const moved: string[] = [];
    for (const [key, trade] of keyedByUuid(mirrors.trade.values())) {
      if (trade.state !== 'PENDING_SETTLEMENT' || trade.tradeRef === undefined) continue;
      if (!pending.has(key) && !fresh.has(key)) moved.push(trade.tradeRef);
    }
    for (const tradeRef of moved.slice(0, MAX_TRADE_LOOKUPS)) {
      const found = await client.listTrades({ tradeRef, max: TRADE_PAGE });
      for (const [key, trade] of keyedByUuid(found.data)) fresh.set(key, trade);
    }
    this.count('trades', fresh.size, await mirrors.trade.apply(fresh));
  }

  /**
   * Every leg goes to the transaction ledger (`ingest(record, 'list')`), which publishes each (uuid, state)
   * once — this is also how a missed webhook is filled. Full: the whole list; incremental: legs since the
   * newest held (minus the overlap) and every PENDING one (AS5 filter).
   */
  private async syncTransactions(mode: SyncMode): Promise<void> {
    const { client, overlapMs } = this.deps;
    const startedAt = this.deps.now();
    let legs: TransactionRecord[];
    const since = this.newestTransactionAt;
    const full = mode === 'full' || !this.transactionsFullyRead || since === undefined;
    if (full) {
      // Page by page into the ledger, so a long history is handed over as it is read and can stop between pages.
      let batch: TransactionRecord[] = [];
      let read = 0;
      for await (const leg of client.iterateTransactions()) {
        batch.push(leg);
        if (batch.length === INGEST_BATCH) {
          await this.ingest(batch);
          read += batch.length;
          batch = [];
          this.checkRunning();
        }
      }
      legs = batch;
      this.deps.metrics.records.inc({ resource: 'transactions' }, read);
    } else {
      // A held PENDING leg the pending list no longer shows changed state: the read starts no later than it,
      // or its new state (whose webhook may have been lost) would be older than the window and never read.
      const pending = await this.pendingLegs();
      const pendingNow = new Set(pending.map((leg) => leg.uuid));
      let from = since;
      for (const held of this.transactions.values()) {
        if (held.transactionState !== 'PENDING' || pendingNow.has(held.uuid)) continue;
        const at = held.received ?? held.timestampMillis;
        if (at !== undefined && at < from) from = at;
      }
      legs = [...(await this.legsSince(from - overlapMs)), ...pending];
    }
    await this.ingest(legs);
    this.deps.intake?.listRead?.(startedAt);
    if (full) this.transactionsFullyRead = true;
    this.deps.metrics.records.inc({ resource: 'transactions' }, legs.length);
    await this.checkBalances();
  }

  /**
   * Legs received since `since` (newest first): the `from` filter, and the walk stops at the first page
   * entirely older than `since` — bounded even where the venue ignores `from`.
   */
  private async legsSince(since: number): Promise<TransactionRecord[]> {
    const legs: TransactionRecord[] = [];
    for (let offset = 0; ; offset += TRANSACTION_PAGE) {
      const page = await this.deps.client.listTransactions({
        from: new Date(since).toISOString(),
        max: TRANSACTION_PAGE,
        offset,
      });
      const recent = page.data.filter((leg) => (leg.received ?? leg.timestampMillis ?? since) >= since);
      legs.push(...recent);
      // A page ends the walk when short (rows sent, read or not) or entirely older than `since`.
      if (page.rows < TRANSACTION_PAGE || (page.data.length > 0 && recent.length === 0)) return legs;
    }
  }

  /**
   * Every PENDING leg (AS5 filter), so a state change of an old leg is seen. A venue that ignores the filter
   * answers other states too: then this read is skipped from there on (it would be the whole history).
   */
  private async pendingLegs(): Promise<TransactionRecord[]> {
    if (!this.pendingFilterWorks) return [];
    const first = await this.deps.client.listTransactions({ transactionState: 'PENDING', max: TRANSACTION_PAGE });
    if (first.data.some((leg) => leg.transactionState !== 'PENDING')) {
      this.pendingFilterWorks = false;
      this.log.warn(
        'the venue ignores the transactionState filter: pending legs are followed through webhooks and new legs only',
      );
      return [];
    }
    if (first.rows < TRANSACTION_PAGE) return first.data;
    return this.deps.client.listAllTransactions({ transactionState: 'PENDING' });
  }

  /**
   * Hands every new or changed leg to the ledger. A leg counts as held only once the ledger stored it: one the
   * ledger could not store (NATS unavailable) stays new, the read fails, and the next read starts no later
   * than that leg, so it is offered again — the list is how a lost webhook is filled, it must not lose one too.
   */
  private async ingest(legs: TransactionRecord[]): Promise<void> {
    const changed: TransactionRecord[] = [];
    for (const leg of legs) {
      const held = this.transactions.get(leg.uuid);
      if (held === undefined || held.transactionState !== leg.transactionState) changed.push(leg);
      else this.hold(leg);
    }
    const intake = this.deps.intake;
    if (intake === undefined) {
      for (const leg of changed) this.hold(leg);
      return;
    }
    let next = 0;
    const failures: unknown[] = [];
    const worker = async () => {
      while (next < changed.length && failures.length === 0) {
        const leg = changed[next] as TransactionRecord;
        next += 1;
        try {
          // a disputed leg (WH12) is not held: the next read offers it again, until the ledger corrects it
          if ((await intake.ingest(leg, 'list')).kind !== 'disputed') this.hold(leg);
        } catch (error) {
          failures.push(error);
        }
      }
    };
    await Promise.all(Array.from({ length: Math.min(INGEST_CONCURRENCY, changed.length) }, worker));
    if (failures.length === 0) return;
    // The next read starts no later than the oldest leg not held (failed, or not offered after the failure).
    for (const leg of changed) {
      const at = leg.received ?? leg.timestampMillis;
      if (this.transactions.get(leg.uuid) === leg || at === undefined) continue;
      if (this.newestTransactionAt !== undefined && at < this.newestTransactionAt) this.newestTransactionAt = at;
    }
    throw failures[0];
  }

  private hold(leg: TransactionRecord): void {
    this.transactions.set(leg.uuid, leg);
    const at = leg.received ?? leg.timestampMillis;
    if (at !== undefined && (this.newestTransactionAt === undefined || at > this.newestTransactionAt)) {
      this.newestTransactionAt = at;
    }
  }

  private async syncTransfers(): Promise<void> {
    const transfers: TransferRecord[] = [];
    for await (const transfer of this.deps.client.iterateTransfers()) transfers.push(transfer);
    const fresh = keyedByUuid(transfers);
    this.count('transfers', fresh.size, await this.deps.mirrors.transfer.apply(fresh));
  }

  /** §4.6 per account group: one object, or none (404 with an empty body: no originator record). */
  private async syncAccountDetails(): Promise<void> {
    const fresh = new Map<string, Participant>();
    for (const group of this.groups) {
      const details = await this.deps.client.getAccountDetails({ accountGroupUuid: group.uuid });
      if (details !== undefined) fresh.set(group.uuid, details);
    }
    const groups = new Set(this.groups.map((group) => group.uuid));
    this.count(
      'accountDetails',
      fresh.size,
      await this.deps.mirrors.accountDetails.apply(fresh, (key) => groups.has(key)),
    );
  }

  /** §4.7/§4.8 per account group, each read to its total (AS6). */
  private async syncParticipants(kind: 'beneficiary' | 'sender'): Promise<void> {
    const { client, mirrors } = this.deps;
    // The read covers every group it knows: with none known (no balances read yet) it would remove them all.
    if (this.groups.length === 0) throw new Error('no account groups known yet (balances not read)');
    const fresh = new Map<string, Participant>();
    let unreadable = 0;
    for (const group of this.groups) {
      const query = { accountGroupUuid: group.uuid };
      const listing =
        kind === 'beneficiary' ? await client.listAllBeneficiaries(query) : await client.listAllSenders(query);
      for (const [key, participant] of keyedByUuid(listing.records)) fresh.set(key, participant);
      unreadable += listing.unreadable;
    }
    const resource = kind === 'beneficiary' ? 'beneficiaries' : 'senders';
    // A row left out as unreadable may be a record held: only a read that left none out tells removals.
    const scope = unreadable === 0 ? () => true : undefined;
    this.count(resource, fresh.size, await mirrors[kind].apply(fresh, scope));
  }

  private async syncLimits(): Promise<void> {
    const limits = await this.deps.client.getCreditLimits();
    const fresh = limitsByKey(limits.data);
    this.count('creditLimits', fresh.size, await this.deps.mirrors.limit.apply(fresh, () => true));
  }

  private async syncPairs(): Promise<void> {
    const fresh = pairsByKey(await this.deps.client.listPairs());
    this.count('pairs', fresh.size, await this.deps.mirrors.pair.apply(fresh, () => true));
  }

  /** Balances against the legs that moved them (AS8); each drift is counted and published, never "fixed". */
  private async checkBalances(): Promise<void> {
    if (this.balancesReadAt === undefined || this.transactions.size === 0) return;
    const balances = new Map(
      this.deps.mirrors.balance.keys().map((key) => [key, this.deps.mirrors.balance.get(key) as BalanceState]),
    );
    const drifts = findDrifts(balances, this.transactions.values(), this.balancesReadAt, this.deps.now());
    this.deps.metrics.driftsOpen.set(drifts.length);
    for (const drift of drifts) {
      const id = driftMsgId(drift);
      if (this.reportedDrifts.has(id)) continue;
      this.log.warn('balance does not match its newest transaction leg', { ...drift });
      await this.deps.publishDrift(drift); // not published: reported again by the next check
      this.reportedDrifts.add(id);
      this.deps.metrics.drifts.inc({ ccy: drift.ccy });
    }
  }
}
