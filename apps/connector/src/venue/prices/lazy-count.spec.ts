import { describe, expect, it } from '@jest/globals';
import { Counter } from 'prom-client';
import { MetricsRegistry } from '#observability';
import { LazyCount } from './lazy-count.js';

function setup() {
  const registry = new MetricsRegistry('t', { defaultMetrics: false });
  const plain = new Counter({ name: 't_plain_total', help: 'h', registers: [registry] });
  const labelled = new Counter({ name: 't_labelled_total', help: 'h', labelNames: ['status'], registers: [registry] });
  return { registry, plain, labelled };
}

describe('LazyCount', () => {
  it('shows every count at each read of the counter, once', async () => {
    const { registry, plain } = setup();
    const count = new LazyCount(plain);
    count.inc();
    count.inc();
    expect((await plain.get()).values[0]?.value).toBe(2);
    expect((await plain.get()).values[0]?.value).toBe(2);
    count.inc();
    expect(await registry.metrics()).toContain('t_plain_total{app="t"} 3');
  });

  it('keeps the counts of several label values of one counter apart', async () => {
    const { registry, labelled } = setup();
    const live = new LazyCount(labelled, { status: 'live' });
    const stale = new LazyCount(labelled, { status: 'stale' });
    for (let i = 0; i < 5; i++) live.inc();
    stale.inc();
    labelled.inc({ status: 'stopped' }); // an ordinary inc beside the lazy ones
    const text = await registry.metrics();
    expect(text).toContain('t_labelled_total{status="live",app="t"} 5');
    expect(text).toContain('t_labelled_total{status="stale",app="t"} 1');
    expect(text).toContain('t_labelled_total{status="stopped",app="t"} 1');
  });

  it('reads nothing before the first count (no series appears for a label never counted)', async () => {
    const { labelled } = setup();
    new LazyCount(labelled, { status: 'live' });
    expect((await labelled.get()).values).toEqual([]);
  });
});
