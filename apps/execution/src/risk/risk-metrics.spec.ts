import { describe, expect, it } from '@jest/globals';
import { MetricsRegistry } from '#observability';
import { RiskMetrics } from './risk-metrics.js';

describe('RiskMetrics', () => {
  it('counts the warnings of applied risk changes from 0, by every reason (a halt on a mistyped id shows as a rise)', async () => {
    const registry = new MetricsRegistry('t', { defaultMetrics: false });
    new RiskMetrics(registry);
    const warnings = await registry.getSingleMetric('execution_risk_control_warnings_total')?.get();
    expect(Object.fromEntries((warnings?.values ?? []).map((v) => [v.labels['reason'], v.value]))).toEqual({
      'unlisted-account-group': 0,
      'account-groups-unchecked': 0,
      'unknown-strategy': 0,
    });
  });
});
