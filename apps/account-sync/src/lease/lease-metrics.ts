import { Counter, Gauge } from 'prom-client';
import type { HealthCheckResult, MetricsRegistry } from '#observability';
import { describeHolder, type LeaseEvents, type LeaseStatus } from './account-lease.js';
import { TAKE_REASONS, type TakeReason } from './lease-decision.js';

const STATES: ReadonlyArray<LeaseStatus['kind']> = ['reading', 'standby', 'holding', 'lost', 'stopped'];

/**
 * The lease on /metrics (`account_sync_lease_state{state}`: 1 for the current state, bounded labels;
 * `account_sync_lease_taken_total{reason}`) and on /health (check `account-lease`, down unless held).
 */
export class LeaseMetrics implements LeaseEvents {
  private readonly state: Gauge<'state'>;
  private readonly takes: Counter<'reason'>;
  private status: LeaseStatus = { kind: 'reading' };

  constructor(
    registry: MetricsRegistry,
    private readonly leaseMs: number,
  ) {
    this.state = new Gauge({
      name: 'account_sync_lease_state',
      help: 'The account lease as this instance sees it: 1 for its current state (reading, standby, holding, lost, stopped)',
      labelNames: ['state'],
      registers: [registry],
    });
    this.takes = new Counter({
      name: 'account_sync_lease_taken_total',
      help: 'Account leases taken by this instance, by why (free, released, lapsed, holder-gone, own)',
      labelNames: ['reason'],
      registers: [registry],
    });
    // at 0 from the start: a lease taken from a lapsed or gone holder (a crash, a take-over) is a rise on a 0 line
    for (const reason of TAKE_REASONS) this.takes.inc({ reason }, 0);
    this.statusChanged(this.status);
  }

  statusChanged(status: LeaseStatus): void {
    this.status = status;
    for (const state of STATES) this.state.set({ state }, state === status.kind ? 1 : 0);
  }

  taken(reason: TakeReason): void {
    this.takes.inc({ reason });
  }

  health(): HealthCheckResult {
    const { status } = this;
    switch (status.kind) {
      case 'holding':
        return { up: true, detail: 'held by this instance' };
      case 'standby':
        return {
          up: false,
          detail:
            `standby: the account is held by ${describeHolder(status.seen.holder)}, renewed ` +
            `${new Date(status.seen.storedAt).toISOString()} (server time); this instance does not write and takes ` +
            `over when it is released or not renewed for ${this.leaseMs} ms`,
        };
      case 'lost':
        return { up: false, detail: `lost (${status.reason}): stopping` };
      case 'reading':
        return { up: false, detail: 'reading the account lease' };
      case 'stopped':
        return { up: false, detail: 'stopped' };
    }
  }
}
