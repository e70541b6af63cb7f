import { describe, expect, it } from '@jest/globals';
import { MetricsRegistry } from '#observability';
import { LeaseMetrics } from './lease-metrics.js';

describe('LeaseMetrics', () => {
  it('counts leases taken from 0, by every reason (a take over from a lapsed holder shows as a rise, not a new series)', async () => {
    const registry = new MetricsRegistry('t', { defaultMetrics: false });
    const metrics = new LeaseMetrics(registry, 1_000);
    metrics.taken('free');
    const taken = await registry.getSingleMetric('account_sync_lease_taken_total')?.get();
    expect(Object.fromEntries((taken?.values ?? []).map((v) => [v.labels['reason'], v.value]))).toEqual({
      free: 1,
      released: 0,
      lapsed: 0,
      'holder-gone': 0,
      own: 0,
    });
  });
});
