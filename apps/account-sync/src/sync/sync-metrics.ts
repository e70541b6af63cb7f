import { Counter, Gauge } from 'prom-client';
import type { MetricsRegistry } from '#observability';
import type { ApplyResult } from './state-mirror.js';
import type { SyncResource } from './sync-triggers.js';
import { UNDONE_TRADE_STATES } from './undone-trades.js';

/** The REST sync's metrics; labels bounded by the resource list and fixed words. */
export class SyncMetrics {
  readonly runs: Counter<'resource' | 'mode' | 'result'>;
  readonly changes: Counter<'resource' | 'change'>;
  readonly drifts: Counter<'ccy'>;
  readonly driftsOpen: Gauge;
  readonly triggers: Counter<'cause'>;
  readonly records: Counter<'resource'>;
  readonly tradesUndone: Counter<'state'>;

  constructor(
    registry: MetricsRegistry,
    ageOf: (resource: SyncResource) => number | undefined,
    resources: readonly SyncResource[],
  ) {
    this.runs = new Counter({
      name: 'account_sync_runs_total',
      help: 'REST sync runs by resource, mode (full; incremental: periodic; recent: after a trigger) and result (ok, failed)',
      labelNames: ['resource', 'mode', 'result'],
      registers: [registry],
    });
    // At 0 from the start, so increase() sees a resource's first failure (GatewayAccountSyncFailing) and first success.
    for (const resource of resources) {
      for (const mode of ['full', 'incremental', 'recent'] as const) {
        for (const result of ['ok', 'failed'] as const) this.runs.inc({ resource, mode, result }, 0);
      }
    }
    this.changes = new Counter({
      name: 'account_sync_changes_total',
      help: 'Mirrored records created, changed, state-changed or removed, by resource',
      labelNames: ['resource', 'change'],
      registers: [registry],
    });
    this.records = new Counter({
      name: 'account_sync_records_read_total',
      help: 'Records read from the venue by resource',
      labelNames: ['resource'],
      registers: [registry],
    });
    this.drifts = new Counter({
      name: 'account_balance_drifts_total',
      help: 'Balances found not to match the transaction legs that moved them (a drift event each)',
      labelNames: ['ccy'],
      registers: [registry],
    });
    this.driftsOpen = new Gauge({
      name: 'account_balance_drifts_open',
      help: 'Balances not matching their newest transaction leg at the last check',
      registers: [registry],
    });
    this.triggers = new Counter({
      name: 'account_sync_triggers_total',
      help: 'Immediate refreshes asked for, by cause (order-outcome, transaction, withdrawal, resources)',
      labelNames: ['cause'],
      registers: [registry],
    });
    this.tradesUndone = new Counter({
      name: 'account_sync_trades_undone_total',
      help: 'Trades of gateway orders (with a clientRef) the venue moved to CANCELLED or FAILED after executing them; execution still counts their fills',
      labelNames: ['state'],
      registers: [registry],
    });
    for (const state of UNDONE_TRADE_STATES) this.tradesUndone.inc({ state }, 0);
    new Gauge({
      name: 'account_sync_age_seconds',
      help: 'Seconds since the last successful sync of each resource (before the first: since the sync started)',
      labelNames: ['resource'],
      registers: [registry],
      collect() {
        for (const resource of resources) {
          const age = ageOf(resource);
          if (age !== undefined) this.set({ resource }, age / 1_000);
        }
      },
    });
  }

  /**
   * The currencies of the balances read: their drift series start at 0, so "no drift" is not "no data". The label
   * set stays the venue's currencies (a drift is always of a balance read).
   */
  currenciesHeld(ccys: Iterable<string>): void {
    for (const ccy of ccys) this.drifts.inc({ ccy }, 0);
  }

  /** Records read of a resource, and what applying them to its mirror changed. */
  applied(resource: SyncResource, records: number, result: ApplyResult): void {
    this.records.inc({ resource }, records);
    if (result.created > 0) this.changes.inc({ resource, change: 'created' }, result.created);
    if (result.changed > 0) this.changes.inc({ resource, change: 'changed' }, result.changed);
    if (result.removed > 0) this.changes.inc({ resource, change: 'removed' }, result.removed);
  }
}
