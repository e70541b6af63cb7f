import { describe, expect, it } from '@jest/globals';
import { MetricsRegistry } from '#observability';
import { ConnectorNatsMetrics } from './connector-metrics.js';

describe('ConnectorNatsMetrics', () => {
  it('counts outcomes not published again from 0, by every reason (an unroutable one is an outcome lost: "none" is not "no data")', async () => {
    const registry = new MetricsRegistry('t', { defaultMetrics: false });
    new ConnectorNatsMetrics(registry);
    const skipped = await registry.getSingleMetric('connector_order_outcomes_skipped_total')?.get();
    expect(Object.fromEntries((skipped?.values ?? []).map((v) => [v.labels['reason'], v.value]))).toEqual({
      duplicate: 0,
      after_final: 0,
      unroutable: 0,
    });
  });
});
