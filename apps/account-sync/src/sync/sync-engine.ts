/**
 * What one sync of each resource does against the venue (§4.4–§4.11) and how the answers reach the mirrors. The
 * scheduler (sync-scheduler.ts) decides when; this decides what, each resource in its own file: balances and the
 * drift check (balance-reads.ts), trades (trade-reads.ts), transaction legs (transaction-reads.ts), the rest read
 * whole (snapshot-reads.ts). Every list is read to its end.
 */
import type { BalanceDrift } from '#contracts';
import type { JsonLogger } from '#observability';
import type { VenueRestClient } from '#venue-api';
import type { LegsByUuid } from './balance-check.js';
import type { TransactionIntake } from '../transactions/transaction-intake.js';
import { BalanceReads } from './balance-reads.js';
import type { Mirrors, ReadContext, SyncMode } from './read-context.js';
import { readAccountDetails, readCreditLimits, readPairs, readParticipants, readTransfers } from './snapshot-reads.js';
import type { SyncMetrics } from './sync-metrics.js';
import { SyncStop } from './sync-stop.js';
import type { SyncResource } from './sync-triggers.js';
import { TradeReads } from './trade-reads.js';
import { TransactionReads } from './transaction-reads.js';
import type { AccountGroupRef } from './venue-reads.js';

export type { Mirrors, SyncMode } from './read-context.js';
export { SyncStoppedError } from './sync-stop.js';

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

export class SyncEngine {
  private readonly stop = new SyncStop();
  private readonly ctx: ReadContext;
  private readonly balances: BalanceReads;
  private readonly trades: TradeReads;
  private readonly legs: TransactionReads;

  constructor(deps: SyncEngineDeps) {
    const { client, mirrors, metrics, overlapMs, sweepPages } = deps;
    this.ctx = {
      client,
      mirrors,
      metrics,
      overlapMs,
      sweepPages,
      now: deps.now,
      log: deps.logger.child('Sync'),
      stop: this.stop,
    };
    this.balances = new BalanceReads(this.ctx, deps.publishDrift);
    this.trades = new TradeReads(this.ctx);
    this.legs = new TransactionReads(this.ctx, deps.intake);
  }

  /** The account groups seen in the last balances read (participants and details are read per group). */
  get groups(): AccountGroupRef[] {
    return this.balances.groups;
  }

  set groups(groups: AccountGroupRef[]) {
    this.balances.groups = groups;
  }

  /** The same groups' uuids (withdrawals check a request's group against them); undefined until the first read. */
  get knownGroups(): ReadonlySet<string> | undefined {
    return this.balances.knownGroups;
  }

  /** Transaction legs read from the venue's list, by uuid (the `transaction-list` query and the balance check). */
  get transactions(): LegsByUuid {
    return this.legs.held;
  }

  /** Long reads end at their next page (SyncStoppedError); what was read so far is kept. */
  abort(): void {
    this.stop.stop();
  }

  async run(resource: SyncResource, mode: SyncMode): Promise<void> {
    const { ctx } = this;
    switch (resource) {
      case 'balances':
        return this.balances.run(this.legs);
      case 'trades':
        return this.trades.run(mode);
      case 'transactions':
        await this.legs.run(mode);
        return this.balances.check(this.legs);
      case 'transfers':
        return readTransfers(ctx);
      case 'accountDetails':
        return readAccountDetails(ctx, () => this.balances.groups);
      case 'beneficiaries':
        return readParticipants(ctx, 'beneficiary', this.balances.groups);
      case 'senders':
        return readParticipants(ctx, 'sender', this.balances.groups);
      case 'creditLimits':
        return readCreditLimits(ctx);
      case 'pairs':
        return readPairs(ctx);
    }
  }

  /**
   * A transaction leg of this trade reached a final state (its webhook): the trade has probably moved too, so it
   * is looked up by tradeRef at the next trade run rather than waiting for the sweep (bounded; extra ones wait).
   */
  noteTradeMoved(tradeRef: string): void {
    this.trades.noteTradeMoved(tradeRef);
  }
}
