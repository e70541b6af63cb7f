import { describe, expect, it } from '@jest/globals';
import { MetricsRegistry } from '#observability';
import { HopHistogram } from './hop-histogram.js';

describe('HopHistogram', () => {
  it('renders cumulative buckets, sum and count like a prom-client histogram', async () => {
    const registry = new MetricsRegistry('t', { defaultMetrics: false });
    const histogram = new HopHistogram('hop_seconds', 'hop', [0.001, 0.0001], [registry]);
    for (const v of [0.00005, 0.0001, 0.0005, 0.5]) histogram.observe(v);
    const text = await registry.metrics();
    expect(text).toContain('# TYPE hop_seconds histogram');
    expect(text).toMatch(/hop_seconds_bucket\{le="0.0001",app="t"\} 2/);
    expect(text).toMatch(/hop_seconds_bucket\{le="0.001",app="t"\} 3/);
    expect(text).toMatch(/hop_seconds_bucket\{le="\+Inf",app="t"\} 4/);
    expect(text).toMatch(/hop_seconds_count\{app="t"\} 4/);
    expect(text).toMatch(/hop_seconds_sum\{app="t"\} 0.50065/);
  });
});
