/**
 * What one sync of each resource does against the venue (§4.4–§4.11) and how the answers reach the
 * mirrors. The scheduler (sync-scheduler.ts) decides when; this decides what. Every list is read to its end.
 */
import { driftMsgId, type BalanceDrift, type BalanceState } from '#contracts';
import type { JsonLogger } from '#observability';
import type { Page, Participant, Trade, TradePageRequest, TransactionRecord, TransferRecord } from '#venue-api';
import type { VenueRestClient } from '#venue-api';
import type { CreditLimit, TradablePair } from '#venue-api';
import { parseVenueDateTime } from '#venue-api';
import type { TransactionIntake } from '../transactions/transaction-intake.js';
import { findDrifts } from './balance-check.js';
import type { ApplyResult, StateMirror } from './state-mirror.js';
import type { SyncMetrics } from './sync-metrics.js';
import type { SyncResource } from './sync-triggers.js';
import {
  RECENT_FIRST_PAGE,
  recentReadEnds,
  sweepPassEnds,
  sweepWindowStart,
  timeSpan,
  type PageSeen,
  type SweepPass,
} from './list-walks.js';
import { balanceStates, keyedByUuid, limitsByKey, pairsByKey, type AccountGroupRef } from './venue-reads.js';

/**
 * `full`: the whole resource (at start); `incremental`: the periodic run (trades and transactions: what is new,
 * then a few pages of the sweep, list-walks.ts); `recent`: after a trigger (trades and transactions: what is new
 * only; the other resources read as in `incremental`).
 */
export type SyncMode = 'full' | 'incremental' | 'recent';

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
  /** Pages of 200 each periodic run reads of a sweep pass, per list (`SYNC_SWEEP_PAGES`). */
  sweepPages: number;
}

const TRADE_PAGE = 200;
/** Trade pages asked for at once during a full read (the limiter still spaces them). */
const TRADE_PAGES_IN_FLIGHT = 8;
/** Trades a transaction webhook said moved, looked up by tradeRef per run at most (the sweep finds the rest). */
const MAX_TRADE_LOOKUPS = 20;
/** Trade references waiting for a lookup, at most (more are left to the sweep). */
const MAX_TRADES_NOTED = 1_000;
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
  /** The sweep passes in progress (list-walks.ts); undefined: the next periodic run starts one. */
  private tradePass: SweepPass | undefined;
  private legPass: SweepPass | undefined;
  /** Newest time the last good recent read started from: after a failed one, the next walks down to it again. */
  private tradesReadDownTo: number | undefined;
  private legsReadDownTo: number | undefined;
  /** Trades a transaction's final state says moved (their tradeRef): looked up at the next trade run. */
  private readonly movedTrades = new Set<string>();
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
        return this.syncTrades(mode);
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

  /**
   * A transaction leg of this trade reached a final state (its webhook): the trade has probably moved too, so it
   * is looked up by tradeRef at the next trade run rather than waiting for the sweep (bounded; extra ones wait).
   */
  noteTradeMoved(tradeRef: string): void {
    if (this.movedTrades.size < MAX_TRADES_NOTED) this.movedTrades.add(tradeRef);
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

  /** AS9: at start the whole list; then what is new at every run, and a few pages of the sweep at the periodic ones. */
  private async syncTrades(mode: SyncMode): Promise<void> {
    if (mode === 'full' || !this.tradesFullyRead) return this.syncAllTrades();
    await this.readRecentTrades();
    await this.lookUpMovedTrades();
    if (mode === 'incremental') await this.sweepTrades();
  }

  /** Newest first until a page shows a trade held in the same state (list-walks.ts). */
  private async readRecentTrades(): Promise<void> {
    const floor = this.tradesReadDownTo;
    let startedFrom: number | undefined;
    let offset = 0;
    for (let max = RECENT_FIRST_PAGE; ; max = TRADE_PAGE) {
      const { seen, newestAt } = await this.tradePage({ max, offset });
      if (startedFrom === undefined) startedFrom = newestAt;
      offset += seen.rows;
      if (recentReadEnds(seen, floor)) break;
      this.checkRunning();
    }
    if (startedFrom !== undefined && (floor === undefined || startedFrom > floor)) this.tradesReadDownTo = startedFrom;
  }

  /** Reads one page of trades, applies it, and tells what it saw. */
  private async tradePage(request: TradePageRequest & { max: number }): Promise<{
    seen: PageSeen;
    newestAt: number | undefined;
  }> {
    const { client, mirrors } = this.deps;
    const page = await client.listTrades(request);
    const fresh = keyedByUuid(page.data);
    let heldUnchanged = false;
    for (const [key, trade] of fresh) {
      if (mirrors.trade.get(key)?.state === trade.state) heldUnchanged = true;
    }
    const span = timeSpan(page.data.map((trade) => createdAtOf(trade)));
    this.count('trades', fresh.size, await mirrors.trade.apply(fresh));
    return { seen: { rows: page.rows, max: request.max, heldUnchanged, oldestAt: span.oldest }, newestAt: span.newest };
  }

  private async lookUpMovedTrades(): Promise<void> {
    for (const tradeRef of [...this.movedTrades].slice(0, MAX_TRADE_LOOKUPS)) {
      await this.tradePage({ tradeRef, max: TRADE_PAGE });
      this.movedTrades.delete(tradeRef);
    }
  }

  /** At most `sweepPages` pages of the trade sweep's pass; a new pass from the oldest pending trade when none. */
  private async sweepTrades(): Promise<void> {
    let pass = this.tradePass;
    if (pass === undefined) {
      const held = timeSpan(mapIterable(this.deps.mirrors.trade.iterate(), createdAtOf));
      const pending = timeSpan(
        mapIterable(this.deps.mirrors.trade.iterate(), (trade) =>
          trade.state === 'PENDING_SETTLEMENT' ? createdAtOf(trade) : undefined,
        ),
      );
      pass = {
        from: sweepWindowStart(held.newest, pending.oldest, this.deps.overlapMs),
        offset: 0,
        startedAt: this.deps.now(),
      };
    }
    for (let page = 0; page < this.deps.sweepPages; page += 1) {
      const from = pass.from === undefined ? {} : { from: new Date(pass.from).toISOString() };
      const { seen, newestAt } = await this.tradePage({ max: TRADE_PAGE, offset: pass.offset, ...from });
      pass = { ...pass, offset: pass.offset + seen.rows };
      if (sweepPassEnds(seen, pass.from, newestAt)) {
        this.tradePass = undefined;
        this.log.debug('trade sweep pass ended', { rows: pass.offset, ms: this.deps.now() - pass.startedAt });
        return;
      }
      this.tradePass = pass;
      this.checkRunning();
    }
  }

  /**
   * Every leg goes to the transaction ledger (`ingest(record, 'list')`), which publishes each (uuid, state)
   * once — this is also how a missed webhook is filled. Full: the whole list; then what is new at every run, and
   * a few pages of the sweep at the periodic ones (list-walks.ts: every PENDING leg is read again within two
   * passes, with its new state).
   */
  private async syncTransactions(mode: SyncMode): Promise<void> {
    const startedAt = this.deps.now();
    if (mode === 'full' || !this.transactionsFullyRead || this.newestTransactionAt === undefined) {
      await this.readAllLegs();
      this.deps.intake?.listRead?.(startedAt);
      this.transactionsFullyRead = true;
      this.legPass = undefined;
    } else {
      await this.readRecentLegs();
      if (mode === 'incremental') {
        const ended = await this.sweepLegs();
        // A whole pass was handed over: a leg only a webhook gave that it did not show is flagged (WH13).
        if (ended !== undefined) this.deps.intake?.listRead?.(ended.startedAt);
      }
    }
    await this.checkBalances();
  }

  /** The whole list, page by page into the ledger, so a long history is handed over as it is read. */
  private async readAllLegs(): Promise<void> {
    let batch: TransactionRecord[] = [];
    for await (const leg of this.deps.client.iterateTransactions()) {
      batch.push(leg);
      if (batch.length === INGEST_BATCH) {
        await this.ingest(batch);
        this.deps.metrics.records.inc({ resource: 'transactions' }, batch.length);
        batch = [];
        this.checkRunning();
      }
    }
    await this.ingest(batch);
    this.deps.metrics.records.inc({ resource: 'transactions' }, batch.length);
  }

  /** Newest first until a page shows a leg held in the same state (list-walks.ts). */
  private async readRecentLegs(): Promise<void> {
    const floor = this.legsReadDownTo;
    let startedFrom: number | undefined;
    let offset = 0;
    for (let max = RECENT_FIRST_PAGE; ; max = TRANSACTION_PAGE) {
      const { seen, newestAt } = await this.legPage({ max, offset });
      if (startedFrom === undefined) startedFrom = newestAt;
      offset += seen.rows;
      if (recentReadEnds(seen, floor)) break;
      this.checkRunning();
    }
    if (startedFrom !== undefined && (floor === undefined || startedFrom > floor)) this.legsReadDownTo = startedFrom;
  }

  /** Reads one page of legs, hands it to the ledger, and tells what it saw. */
  private async legPage(request: { max: number; offset: number; from?: string }): Promise<{
    seen: PageSeen;
    newestAt: number | undefined;
  }> {
    const page = await this.deps.client.listTransactions(request);
    const heldUnchanged = page.data.some(
      (leg) => this.transactions.get(leg.uuid)?.transactionState === leg.transactionState,
    );
    const span = timeSpan(page.data.map(legTimeOf));
    await this.ingest(page.data);
    this.deps.metrics.records.inc({ resource: 'transactions' }, page.data.length);
    return { seen: { rows: page.rows, max: request.max, heldUnchanged, oldestAt: span.oldest }, newestAt: span.newest };
  }

  /**
   * At most `sweepPages` pages of the leg sweep's pass (a new one from the oldest PENDING leg when none);
   * returns the pass when this run ended it.
   */
  private async sweepLegs(): Promise<SweepPass | undefined> {
    let pass = this.legPass;
    if (pass === undefined) {
      const pending = timeSpan(
        mapIterable(this.transactions.values(), (leg) =>
          leg.transactionState === 'PENDING' ? legTimeOf(leg) : undefined,
        ),
      );
      pass = {
        from: sweepWindowStart(this.newestTransactionAt, pending.oldest, this.deps.overlapMs),
        offset: 0,
        startedAt: this.deps.now(),
      };
    }
    for (let page = 0; page < this.deps.sweepPages; page += 1) {
      const from = pass.from === undefined ? {} : { from: new Date(pass.from).toISOString() };
      const { seen, newestAt } = await this.legPage({ max: TRANSACTION_PAGE, offset: pass.offset, ...from });
      pass = { ...pass, offset: pass.offset + seen.rows };
      if (sweepPassEnds(seen, pass.from, newestAt)) {
        this.legPass = undefined;
        this.log.debug('transaction sweep pass ended', { rows: pass.offset, ms: this.deps.now() - pass.startedAt });
        return pass;
      }
      this.legPass = pass;
      this.checkRunning();
    }
    return undefined;
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
    // The next sweep pass starts no later than the oldest leg not held (failed, or not offered after the failure);
    // the recent read walks down to where the last good one started.
    for (const leg of changed) {
      const at = leg.received ?? leg.timestampMillis;
      if (this.transactions.get(leg.uuid) === leg || at === undefined) continue;
      if (this.newestTransactionAt !== undefined && at < this.newestTransactionAt) this.newestTransactionAt = at;
      if (this.legsReadDownTo !== undefined && at <= this.legsReadDownTo) this.legsReadDownTo = at - 1;
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

/** A trade's `createdAt` as epoch ms (no zone = UTC, spec-gaps C9); undefined when it does not parse. */
function createdAtOf(trade: { createdAt?: string }): number | undefined {
  const at = trade.createdAt === undefined ? NaN : parseVenueDateTime(trade.createdAt);
  return Number.isNaN(at) ? undefined : at;
}

/** The time a leg was booked (`received`, else `timestampMillis`). */
function legTimeOf(leg: TransactionRecord): number | undefined {
  return leg.received ?? leg.timestampMillis;
}

function* mapIterable<T, U>(items: Iterable<T>, map: (item: T) => U): Iterable<U> {
  for (const item of items) yield map(item);
}
