import { describe, expect, it } from '@jest/globals';
import { JsonLogger, MetricsRegistry } from '#observability';
import { FakeClock } from '#testing';
import type { WebhookSourceAddresses } from '#venue-api';
import { WebhookMetrics } from './webhook-metrics.js';
import { WebhookSourceList } from './webhook-source-list.js';

const silent = new JsonLogger('ips-test', 'test', 'error', { write: () => undefined });

describe('WebhookSourceList (the ips.json shell)', () => {
  function setup(answers: Array<WebhookSourceAddresses | Error>) {
    const clock = new FakeClock();
    const registry = new MetricsRegistry('t', { defaultMetrics: false });
    const list = new WebhookSourceList({ refreshMs: 60_000 }, clock, new WebhookMetrics(registry), silent, async () => {
      const next = answers.shift();
      if (next === undefined || next instanceof Error) throw next ?? new Error('no answer');
      return next;
    });
    return { clock, list, registry };
  }

  async function gauge(registry: MetricsRegistry, name: string): Promise<number | undefined> {
    return (await registry.getSingleMetric(name)?.get())?.values[0]?.value;
  }

  it('health is down while no list was ever loaded (a failed first fetch), up once one loads on schedule', async () => {
    const { clock, list, registry } = setup([
      new Error('HTTP 503'),
      { version: 3, ipv4_cidrs: ['127.0.0.1/32'], change_notice: null },
    ]);
    await list.start();
    expect(list.loaded).toBe(false);
    expect(list.health().up).toBe(false);
    expect(list.allows('127.0.0.1')).toBe(false);
    clock.advance(60_000);
    await list.refresh();
    expect(list.loaded).toBe(true);
    expect(list.health()).toEqual({ up: true });
    expect(list.allows('127.0.0.1')).toBe(true);
    expect(await gauge(registry, 'account_sync_webhook_ips_version')).toBe(3);
    list.stop();
  });

  it('keeps the last good list when a refresh fails, and exposes a change notice', async () => {
    const { list, registry } = setup([
      { version: 1, ipv4_cidrs: ['10.0.0.0/8'], change_notice: { message: 'moving', effective_date: '2027-01-01' } },
      new Error('timeout'),
    ]);
    await list.start();
    expect(await gauge(registry, 'account_sync_webhook_ips_change_notice')).toBe(1);
    await list.refresh();
    expect(list.allows('10.1.1.1')).toBe(true);
    expect(list.health().up).toBe(true);
    expect(list.health().detail).toMatch(/last good list kept/);
    expect(await gauge(registry, 'account_sync_webhook_ips_fetch_failures_total')).toBe(1);
    list.stop();
  });
});
