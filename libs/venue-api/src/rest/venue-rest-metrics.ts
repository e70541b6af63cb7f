import { Counter, Histogram, type Registry } from 'prom-client';
import type { VenueRestEvents } from './client-config.js';
import type { VenueRestClient } from './venue-rest-client.js';

export interface VenueRestMetricsOptions {
  /**
   * The client operations this process calls: their throttle, budget-wait and 429 series (and a list's skipped
   * rows) start at 0, so the first throttle is an increase Prometheus sees (a series born at 1 has no increase).
   */
  operations?: readonly (keyof VenueRestClient & string)[];
  /**
   * Where a left-out list row is logged (its path and problem, never the row), at most once per
   * {@link SKIPPED_LOG_INTERVAL_MS} per operation (then with how many were not logged).
   */
  logger?: { warn(message: string, fields?: Record<string, unknown>): void };
  /** Clock of the log limit (tests). */
  now?: () => number;
}

export const SKIPPED_LOG_INTERVAL_MS = 10_000;
/** The operations reading a list, whose unreadable rows are left out (`onRowSkipped`). */
const LIST_OPERATIONS: ReadonlySet<string> = new Set<keyof VenueRestClient & string>([
  'listTrades',
  'listBeneficiaries',
  'listSenders',
  'listTransactions',
  'listTransfers',
  'listFiatWithdrawals',
  'listCryptoWithdrawals',
]);
const MAX_PROBLEM_LENGTH = 200;

/**
 * The venue REST client's calls as metrics (its `events` hook): calls by operation and status, budget waits,
 * throttles. Every app calling the venue's REST API exports these same series (named without an app prefix;
 * the `app` label tells them apart), so one rule and one panel cover every app. Labels are bounded:
 * `operation` is one of the client's method names, `status` an HTTP status, `timeout`, or `connection:<code>` (the
 * failure's low-level code from a bounded set, e.g. `connection:ECONNRESET`, else `connection:other`).
 */
export class VenueRestMetrics implements VenueRestEvents {
  private readonly calls: Counter<'operation' | 'status'>;
  private readonly waits: Histogram<'operation'>;
  private readonly waited: Counter<'operation'>;
  private readonly throttled: Counter<'operation'>;
  private readonly rowsSkipped: Counter<'operation'>;
  private readonly skippedLogs = new Map<string, { at: number; suppressed: number }>();
  private readonly logger: VenueRestMetricsOptions['logger'];
  private readonly now: () => number;
  /** The venue's last answer, for /health: unreachable, timed out or 5xx since the last good answer → down. */
  private lastFailure: string | undefined;

  constructor(registry: Registry, options: VenueRestMetricsOptions = {}) {
    this.logger = options.logger;
    this.now = options.now ?? Date.now;
    const registers = [registry];
    this.calls = new Counter({
      name: 'venue_rest_calls_total',
      help: 'Venue REST calls (each attempt) by client operation and HTTP status',
      labelNames: ['operation', 'status'],
      registers,
    });
    this.waits = new Histogram({
      name: 'venue_rest_budget_wait_seconds',
      help: "Time a venue REST call waited for this process's request budget (VENUE_REST_REQUESTS_PER_SECOND)",
      labelNames: ['operation'],
      buckets: [0.001, 0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
      registers,
    });
    this.waited = new Counter({
      name: 'venue_rest_budget_waits_total',
      help: 'Venue REST calls that had to wait for the request budget',
      labelNames: ['operation'],
      registers,
    });
    this.throttled = new Counter({
      name: 'venue_rest_throttled_total',
      help: 'Venue REST calls answered "throttled" (429, or 401 where the venue uses it so), by client operation',
      labelNames: ['operation'],
      registers,
    });
    this.rowsSkipped = new Counter({
      name: 'venue_rest_rows_skipped_total',
      help: 'Rows of a venue list left out because they lack what identifies them (the rest of the list is read)',
      labelNames: ['operation'],
      registers,
    });
    for (const operation of options.operations ?? []) {
      this.throttled.inc({ operation }, 0);
      this.waited.inc({ operation }, 0);
      this.calls.inc({ operation, status: '429' }, 0); // the throttle answer, which the runbook's checks read
      // runbook GatewayVenueRestRowsSkipped reads it: "none skipped" from the start, not "no data"
      if (LIST_OPERATIONS.has(operation)) this.rowsSkipped.inc({ operation }, 0);
    }
  }

  onRowSkipped(operation: string, problem: string): void {
    this.rowsSkipped.inc({ operation });
    if (this.logger === undefined) return;
    const now = this.now();
    const last = this.skippedLogs.get(operation);
    if (last !== undefined && now - last.at < SKIPPED_LOG_INTERVAL_MS) {
      last.suppressed += 1;
      return;
    }
    this.skippedLogs.set(operation, { at: now, suppressed: 0 });
    this.logger.warn('a venue list row could not be read and was left out (the rest of the list was read)', {
      operation,
      problem: problem.slice(0, MAX_PROBLEM_LENGTH),
      ...(last !== undefined && last.suppressed > 0 ? { notLogged: last.suppressed } : {}),
    });
  }

  /** `cause` (a bounded code) joins `connection` in the label: `connection:ECONNRESET`, `connection:other`. */
  onResponse(operation: string, status: number | 'timeout' | 'connection', cause?: string): void {
    const label = status === 'connection' && cause !== undefined ? `connection:${cause}` : String(status);
    this.calls.inc({ operation, status: label });
    if (typeof status === 'number' && status < 500) this.lastFailure = undefined;
    else this.lastFailure = `${operation}: ${typeof status === 'number' ? `HTTP ${status}` : label}`;
  }

  onBudgetWait(operation: string, waitMs: number): void {
    this.waits.observe({ operation }, waitMs / 1_000);
    if (waitMs > 0) this.waited.inc({ operation });
  }

  onThrottled(operation: string): void {
    this.throttled.inc({ operation });
  }

  /** Whether the venue answered the last call (a health check for an app whose work is REST). */
  health(): { up: boolean; detail?: string } {
    return this.lastFailure === undefined
      ? { up: true }
      : { up: false, detail: `last answer failed (${this.lastFailure})` };
  }
}
