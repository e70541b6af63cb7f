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
    const fetches = { count: 0 };
    const list = new WebhookSourceList({ refreshMs: 60_000 }, clock, new WebhookMetrics(registry), silent, async () => {
      fetches.count += 1;
      const next = answers.shift();
      if (next === undefined || next instanceof Error) throw next ?? new Error('no answer');
      return next;
    });
    return { clock, list, registry, fetches };
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
    expect(list.admit('127.0.0.1')).toBe('unready');
    clock.advance(60_000);
    await list.refresh();
    expect(list.loaded).toBe(true);
    expect(list.health()).toEqual({ up: true });
    expect(list.admit('127.0.0.1')).toBe('allowed');
    expect(await gauge(registry, 'account_sync_webhook_ips_version')).toBe(3);
    list.stop();
  });

  it('while no list was ever loaded, retries every few seconds instead of waiting for the schedule', async () => {
    const { clock, list } = setup([
      new Error('connection refused'),
      new Error('connection refused'),
      { version: 1, ipv4_cidrs: ['127.0.0.1/32'], change_notice: null },
    ]);
    await list.start();
    expect(list.loaded).toBe(false);
    clock.advance(5_000);
    await list.refresh();
    expect(list.loaded).toBe(false);
    clock.advance(5_000);
    await list.refresh();
    expect(list.loaded).toBe(true);
    list.stop();
    expect(clock.pending).toBe(0);
  });

  it('keeps the last good list when a refresh fails, and exposes a change notice', async () => {
    const { list, registry } = setup([
      { version: 1, ipv4_cidrs: ['10.0.0.0/8'], change_notice: { message: 'moving', effective_date: '2027-01-01' } },
      new Error('timeout'),
    ]);
    await list.start();
    expect(await gauge(registry, 'account_sync_webhook_ips_change_notice')).toBe(1);
    await list.refresh();
    expect(list.admit('10.1.1.1')).toBe('allowed');
    expect(list.health().up).toBe(true);
    expect(list.health().detail).toMatch(/last good list kept/);
    expect(await gauge(registry, 'account_sync_webhook_ips_fetch_failures_total')).toBe(1);
    list.stop();
  });

  it('a notice not of the shape guessed (effective_date a number, read as its text) is a notice: logged once with what was odd, counted', async () => {
    const lines: string[] = [];
    const logger = new JsonLogger('ips-test', 'test', 'info', { write: (line: string) => lines.push(line) });
    const clock = new FakeClock();
    const registry = new MetricsRegistry('t', { defaultMetrics: false });
    const notice = {
      message: 'moving',
      effective_date: '1798761600000',
      oddities: ['effective_date: a number, kept as its text'],
    };
    const answers = [1, 1, 2].map((version) => ({ version, ipv4_cidrs: ['10.0.0.0/8'], change_notice: notice }));
    const list = new WebhookSourceList({ refreshMs: 60_000 }, clock, new WebhookMetrics(registry), logger, async () => {
      const next = answers.shift();
      if (next === undefined) throw new Error('no answer');
      return next;
    });
    await list.start();
    await list.refresh();
    await list.refresh();
    expect(list.loaded).toBe(true);
    expect(list.version).toBe(2);
    expect(list.admit('192.0.2.7')).toBe('retry'); // a change is announced: an unlisted sender is retried, not refused
    const announced = lines
      .map((line) => JSON.parse(line) as Record<string, unknown>)
      .filter((l) => l['msg'] === 'webhook source list announces a change');
    expect(announced).toHaveLength(1);
    expect(announced[0]).toMatchObject({ effectiveDate: '1798761600000', oddities: notice.oddities });
    expect(await gauge(registry, 'account_sync_webhook_ips_change_notice')).toBe(1);
    expect(await gauge(registry, 'account_sync_webhook_ips_notice_odd_total')).toBe(1);
    list.stop();
  });

  it('a sender outside the list refreshes it (503 meanwhile), at most once per 10 s; refused once the list says so', async () => {
    const v1 = { version: 1, ipv4_cidrs: ['10.0.0.0/8'], change_notice: null };
    const v2 = { version: 2, ipv4_cidrs: ['10.0.0.0/8', '192.0.2.0/24'], change_notice: null };
    const { clock, list, fetches } = setup([v1, v1, v2]);
    await list.start();
    expect(fetches.count).toBe(1);
    expect(list.admit('192.0.2.7')).toBe('retry');
    expect(list.admit('198.51.100.1')).toBe('retry'); // the same refresh is running
    expect(fetches.count).toBe(2);
    await list.refresh();
    expect(list.admit('192.0.2.7')).toBe('refused'); // refreshed, still outside
    expect(fetches.count).toBe(2);
    clock.advance(10_000);
    expect(list.admit('192.0.2.7')).toBe('retry');
    await list.refresh();
    expect(fetches.count).toBe(3);
    expect(list.admit('192.0.2.7')).toBe('allowed');
    list.stop();
  });
});
