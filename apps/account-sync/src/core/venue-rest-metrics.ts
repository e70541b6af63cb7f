import { Counter, Histogram } from 'prom-client';
import type { MetricsRegistry } from '#observability';
import type { VenueRestEvents } from '#venue-api';

/**
 * The venue REST client's calls as metrics: calls by operation and status, budget waits, throttles. Labels
 * are bounded: `operation` is one of the client's method names, `status` an HTTP status or `timeout` /
 * `connection`.
 */
export class VenueRestMetrics implements VenueRestEvents {
  private readonly calls: Counter<'operation' | 'status'>;
  private readonly waits: Histogram<'operation'>;
  private readonly waited: Counter<'operation'>;
  private readonly throttled: Counter<'operation'>;

  constructor(registry: MetricsRegistry) {
    this.calls = new Counter({
      name: 'venue_rest_calls_total',
      help: 'Venue REST calls (each attempt) by client operation and HTTP status',
      labelNames: ['operation', 'status'],
      registers: [registry],
    });
    this.waits = new Histogram({
      name: 'venue_rest_budget_wait_seconds',
      help: "Time a venue REST call waited for this process's request budget (VENUE_REST_REQUESTS_PER_SECOND)",
      labelNames: ['operation'],
      buckets: [0.001, 0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
      registers: [registry],
    });
    this.waited = new Counter({
      name: 'venue_rest_budget_waits_total',
      help: 'Venue REST calls that had to wait for the request budget',
      labelNames: ['operation'],
      registers: [registry],
    });
    this.throttled = new Counter({
      name: 'venue_rest_throttled_total',
      help: 'Venue REST calls answered 429 (throttled) by the venue',
      labelNames: ['operation'],
      registers: [registry],
    });
  }

  onResponse(operation: string, status: number | 'timeout' | 'connection'): void {
    this.calls.inc({ operation, status: String(status) });
  }

  onBudgetWait(operation: string, waitMs: number): void {
    this.waits.observe({ operation }, waitMs / 1_000);
    if (waitMs > 0) this.waited.inc({ operation });
  }

  onThrottled(operation: string): void {
    this.throttled.inc({ operation });
  }
}
