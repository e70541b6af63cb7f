import { Counter, Gauge } from 'prom-client';
import { isFinalWithdrawalState, WITHDRAWAL_STATES, type WithdrawalRequestState } from '#contracts';
import type { MetricsRegistry } from '#observability';

/** The desk's requests as a scrape tells them: how many by state, and how many stuck at that moment. */
export interface OpenWithdrawals {
  byState: ReadonlyMap<WithdrawalRequestState, number>;
  stuck: number;
}

/**
 * Counts the requests followed (not final, and NOT_FOUND / REJECTED ones still watched) at `now`: stuck = not final
 * and unchanged for longer than `stuckAfterMs`. Pure: called at each scrape, so neither waits for a poll.
 */
export function countOpen(
  views: Iterable<{ state: WithdrawalRequestState; updatedAt: number }>,
  now: number,
  stuckAfterMs: number,
): OpenWithdrawals {
  const byState = new Map<WithdrawalRequestState, number>();
  let stuck = 0;
  for (const { state, updatedAt } of views) {
    byState.set(state, (byState.get(state) ?? 0) + 1);
    if (!isFinalWithdrawalState(state) && now - updatedAt > stuckAfterMs) stuck += 1;
  }
  return { byState, stuck };
}

export class WithdrawalMetrics {
  /** NATS requests by operation (submit, cancel, get, list) and result (`ok` or an error code). */
  readonly requests: Counter<'operation' | 'result'>;
  /** Every state a request entered. */
  readonly transitions: Counter<'state'>;
  /**
   * Requests not final, and NOT_FOUND or REJECTED ones still watched, by state — read at each scrape from the desk;
   * no series while there is none to tell (a standby, a desk not loaded or stopped, records not restored yet).
   */
  readonly open: Gauge<'state'>;
  /** Requests not final and unchanged for longer than WITHDRAWAL_STUCK_AFTER_MS at the scrape; absent as `open`. */
  readonly stuck: Gauge;
  readonly polls: Counter<'result'>;
  /** Change events JetStream did not take yet (published again with the next poll). */
  readonly unpublished: Gauge;
  /** Venue requests found carrying a request's reference besides the one it tracks (each counted once). */
  readonly duplicated: Counter;
  /** Requests answered REJECTED on a 401 that the venue's lists show after all (each counted once). */
  readonly carriedOutAfterRejection: Counter;
  /** Requests rebuilt from the venue's lists after the records bucket was found new or lost, by kind. */
  readonly restored: Counter<'kind'>;
  /** Seconds the records' restoration has been failing (0 when done): submits of keys not held are refused meanwhile. */
  readonly restoring: Gauge;
  private restoringNow: () => number = () => 0;
  /** Undefined: nothing to tell — a standby (no desk: it holds no requests), or one not loaded or restored yet. */
  private openNow: () => OpenWithdrawals | undefined = () => undefined;

  constructor(registry: MetricsRegistry) {
    this.requests = new Counter({
      name: 'account_sync_withdrawal_requests_total',
      help: 'Withdrawal requests over NATS by operation and result (ok or the error code)',
      labelNames: ['operation', 'result'],
      registers: [registry],
    });
    this.transitions = new Counter({
      name: 'account_sync_withdrawal_transitions_total',
      help: 'Withdrawal state changes, by the state entered',
      labelNames: ['state'],
      registers: [registry],
    });
    this.open = new Gauge({
      name: 'account_sync_withdrawals_open',
      help: "Withdrawal requests not final (and NOT_FOUND or REJECTED ones still looked for in the venue's lists), by state",
      labelNames: ['state'],
      registers: [registry],
      collect: () => {
        const now = this.openNow();
        this.open.reset();
        if (now === undefined) return;
        for (const state of WITHDRAWAL_STATES) this.open.set({ state }, now.byState.get(state) ?? 0);
      },
    });
    this.stuck = new Gauge({
      name: 'account_sync_withdrawals_stuck',
      help: 'Withdrawal requests not final and unchanged for longer than WITHDRAWAL_STUCK_AFTER_MS (UNKNOWN ones need a look)',
      registers: [registry],
      collect: () => {
        const now = this.openNow();
        if (now === undefined)
          this.stuck.remove(); // an unlabelled gauge's reset() would export 0
        else this.stuck.set(now.stuck);
      },
    });
    this.polls = new Counter({
      name: 'account_sync_withdrawal_polls_total',
      help: "Polls of the venue's withdrawal lists, by result (ok, failed)",
      labelNames: ['result'],
      registers: [registry],
    });
    for (const result of ['ok', 'failed']) this.polls.inc({ result }, 0);
    this.unpublished = new Gauge({
      name: 'account_sync_withdrawal_changes_unpublished',
      help: 'Withdrawal change events not yet taken by JetStream; published again, in order, with the next poll',
      registers: [registry],
    });
    // no labels: exported at 0 from the start, so an alert's increase() sees the first one
    this.duplicated = new Counter({
      name: 'account_sync_withdrawals_duplicated_total',
      help: "Venue withdrawal requests carrying a gateway request's reference besides the one it tracks: carried out twice",
      registers: [registry],
    });
    this.carriedOutAfterRejection = new Counter({
      name: 'account_sync_withdrawals_carried_out_after_rejection_total',
      help: "Withdrawal requests answered REJECTED on a 401 that the venue's lists show after all: carried out (money may move)",
      registers: [registry],
    });
    this.restored = new Counter({
      name: 'account_sync_withdrawals_restored_total',
      help: "Withdrawal requests rebuilt from the venue's lists (our reference in the comment) after the records bucket was found new or lost",
      labelNames: ['kind'],
      registers: [registry],
    });
    for (const kind of ['fiat', 'crypto']) this.restored.inc({ kind }, 0);
    this.restoring = new Gauge({
      name: 'account_sync_withdrawals_restoring_seconds',
      help: "Seconds the withdrawal records have been waiting to be restored from the venue's lists after NATS lost them (0 when whole); submits of keys not held are refused WITHDRAWALS_RESTORING meanwhile",
      registers: [registry],
      collect: () => this.restoring.set(this.restoringNow()),
    });
  }

  /** Read at every scrape: the gauge counts on between the desk's attempts. */
  readRestoringFrom(seconds: () => number): void {
    this.restoringNow = seconds;
  }

  /** Read at every scrape (the gauges `open` and `stuck`): undefined exports no series of either. */
  readOpenFrom(open: () => OpenWithdrawals | undefined): void {
    this.openNow = open;
  }
}
