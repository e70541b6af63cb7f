import { describe, expect, it } from '@jest/globals';
import { MetricsRegistry } from '#observability';
import { ExecutionMetrics } from './execution-metrics.js';

const idle = {
  ordersByState: () => ({}),
  unresolved: () => ({ count: 0, oldestAgeMs: 0 }),
  startupReconciling: () => false,
  connectorUsable: () => true,
};

async function rejectionsByStrategy(registry: MetricsRegistry): Promise<Record<string, number>> {
  const counts: Record<string, number> = {};
  for (const line of (await registry.metrics()).split('\n')) {
    const strategy = /^execution_order_rejections_total\{.*strategy="([^"]*)"/.exec(line)?.[1];
    if (strategy !== undefined)
      counts[strategy] = (counts[strategy] ?? 0) + Number(line.slice(line.lastIndexOf(' ') + 1));
  }
  return counts;
}

describe('per-strategy metric labels', () => {
  it('strangers sending made-up strategy ids cannot take the labels of the real strategies', async () => {
    const registry = new MetricsRegistry('t', { defaultMetrics: false });
    const metrics = new ExecutionMetrics(registry, idle, 3, ['configured']);
    for (let i = 0; i < 150; i += 1) metrics.rejected('QUOTE_UNKNOWN', `stranger${i}`);
    metrics.entered('ACCEPTED', 'alpha'); // alpha has had an accepted order
    metrics.rejected('QUOTE_UNKNOWN', 'alpha');
    metrics.rejected('QUOTE_UNKNOWN', 'configured'); // listed in the risk limits file
    expect(await rejectionsByStrategy(registry)).toEqual({ other: 150, alpha: 1, configured: 1 });
  });

  it('stays bounded: strategies with accepted orders beyond the bound are `other`', async () => {
    const registry = new MetricsRegistry('t', { defaultMetrics: false });
    const metrics = new ExecutionMetrics(registry, idle, 2);
    for (const id of ['a', 'b', 'c']) {
      metrics.entered('ACCEPTED', id);
      metrics.rejected('RISK_X', id);
    }
    metrics.rejected('RISK_X', undefined);
    expect(await rejectionsByStrategy(registry)).toEqual({ a: 1, b: 1, other: 1, unknown: 1 });
  });
});

describe('execution metrics read by the dashboards', () => {
  it('counts resumed orders from 0, by every way (start-up, take-over, retry): "none resumed" is not "no data"', async () => {
    const registry = new MetricsRegistry('t', { defaultMetrics: false });
    const metrics = new ExecutionMetrics(registry, idle);
    metrics.resumed.inc({ how: 'takeover' });
    const resumed = await registry.getSingleMetric('execution_orders_resumed_total')?.get();
    expect(Object.fromEntries((resumed?.values ?? []).map((v) => [v.labels['how'], v.value]))).toEqual({
      startup: 0,
      takeover: 1,
      retry: 0,
    });
  });
});
