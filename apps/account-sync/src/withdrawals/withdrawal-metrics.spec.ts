import { describe, expect, it } from '@jest/globals';
import type { WithdrawalRequestState } from '#contracts';
import { MetricsRegistry } from '#observability';
import { FakeClock } from '#testing';
import { countOpen, WithdrawalMetrics, type OpenWithdrawals } from './withdrawal-metrics.js';

const STUCK_AFTER_MS = 60_000;

/** The samples one scrape exports of a metric: label set (state or '') → value. */
async function scrape(registry: MetricsRegistry, name: string): Promise<Map<string, number>> {
  const metric = await registry.getSingleMetric(name)?.get();
  return new Map((metric?.values ?? []).map(({ labels, value }) => [String(labels['state'] ?? ''), value]));
}

describe("the withdrawal desk's open and stuck gauges, read at the scrape", () => {
  it('a standby (no desk reading them) exports no series of either: "none stuck" is never said for it', async () => {
    const registry = new MetricsRegistry('account-sync', { defaultMetrics: false });
    new WithdrawalMetrics(registry);
    expect(await scrape(registry, 'account_sync_withdrawals_open')).toEqual(new Map());
    expect(await scrape(registry, 'account_sync_withdrawals_stuck')).toEqual(new Map());
    // the text format carries only HELP and TYPE: Prometheus sees the series absent, not 0
    const text = await registry.metrics();
    expect(text).not.toMatch(/^account_sync_withdrawals_(open|stuck)[{ ]/m);
  });

  it('a request turns stuck at the scrape after the threshold passes, with no poll in between', async () => {
    const clock = new FakeClock();
    const registry = new MetricsRegistry('account-sync', { defaultMetrics: false });
    const metrics = new WithdrawalMetrics(registry);
    const views: Array<{ state: WithdrawalRequestState; updatedAt: number }> = [
      { state: 'PENDING_APPROVAL', updatedAt: clock.now() },
      { state: 'UNKNOWN', updatedAt: clock.now() + 10_000 },
      // a NOT_FOUND one still watched is final: open, never stuck
      { state: 'NOT_FOUND', updatedAt: clock.now() - 10 * STUCK_AFTER_MS },
    ];
    metrics.readOpenFrom(() => countOpen(views, clock.now(), STUCK_AFTER_MS));

    const open = await scrape(registry, 'account_sync_withdrawals_open');
    expect(open.get('PENDING_APPROVAL')).toBe(1);
    expect(open.get('UNKNOWN')).toBe(1);
    expect(open.get('NOT_FOUND')).toBe(1);
    expect(open.get('SUBMITTING')).toBe(0); // every state is exported while there is something to tell
    expect(await scrape(registry, 'account_sync_withdrawals_stuck')).toEqual(new Map([['', 0]]));

    clock.jump(STUCK_AFTER_MS); // exactly the threshold: not longer than it yet
    expect(await scrape(registry, 'account_sync_withdrawals_stuck')).toEqual(new Map([['', 0]]));
    clock.jump(1);
    expect(await scrape(registry, 'account_sync_withdrawals_stuck')).toEqual(new Map([['', 1]]));
    clock.jump(10_000);
    expect(await scrape(registry, 'account_sync_withdrawals_stuck')).toEqual(new Map([['', 2]]));
  });

  it('once the desk has nothing to tell again (stopped, or its records lost and not restored), the series go', async () => {
    const registry = new MetricsRegistry('account-sync', { defaultMetrics: false });
    const metrics = new WithdrawalMetrics(registry);
    let reading: OpenWithdrawals | undefined = countOpen([{ state: 'SUBMITTING', updatedAt: 0 }], 1, STUCK_AFTER_MS);
    metrics.readOpenFrom(() => reading);
    expect((await scrape(registry, 'account_sync_withdrawals_open')).get('SUBMITTING')).toBe(1);
    reading = undefined;
    expect(await scrape(registry, 'account_sync_withdrawals_open')).toEqual(new Map());
    expect(await scrape(registry, 'account_sync_withdrawals_stuck')).toEqual(new Map());
  });
});
