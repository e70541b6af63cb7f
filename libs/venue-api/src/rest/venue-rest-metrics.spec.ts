import { describe, expect, it } from '@jest/globals';
import { Registry } from 'prom-client';
import { VenueRestMetrics } from './venue-rest-metrics.js';

function value(text: string, series: string): number | undefined {
  const escaped = series.replace(/[{}"]/g, (c) => `\\${c}`);
  const m = new RegExp(`^${escaped} (\\S+)$`, 'm').exec(text);
  return m?.[1] === undefined ? undefined : Number(m[1]);
}

describe('VenueRestMetrics', () => {
  it('counts calls by operation and status, budget waits and throttles under the shared names', async () => {
    const registry = new Registry();
    const metrics = new VenueRestMetrics(registry);
    metrics.onBudgetWait('listTrades', 0);
    metrics.onResponse('listTrades', 200);
    metrics.onBudgetWait('listTrades', 250);
    metrics.onResponse('listTrades', 429);
    metrics.onThrottled('listTrades');
    metrics.onResponse('getOrderState', 'timeout');
    metrics.onResponse('submitFiatWithdrawal', 'connection', 'UND_ERR_SOCKET');
    const text = await registry.metrics();
    expect(value(text, 'venue_rest_calls_total{operation="listTrades",status="200"}')).toBe(1);
    expect(value(text, 'venue_rest_calls_total{operation="listTrades",status="429"}')).toBe(1);
    expect(value(text, 'venue_rest_calls_total{operation="getOrderState",status="timeout"}')).toBe(1);
    expect(
      value(text, 'venue_rest_calls_total{operation="submitFiatWithdrawal",status="connection:UND_ERR_SOCKET"}'),
    ).toBe(1);
    expect(value(text, 'venue_rest_budget_wait_seconds_count{operation="listTrades"}')).toBe(2);
    expect(value(text, 'venue_rest_budget_waits_total{operation="listTrades"}')).toBe(1);
    expect(value(text, 'venue_rest_throttled_total{operation="listTrades"}')).toBe(1);
  });

  it("starts the throttle series of the process's operations at 0, so the first throttle is an increase", async () => {
    const registry = new Registry();
    new VenueRestMetrics(registry, { operations: ['createWebSocketToken', 'getOrderState'] });
    const text = await registry.metrics();
    expect(value(text, 'venue_rest_throttled_total{operation="createWebSocketToken"}')).toBe(0);
    expect(value(text, 'venue_rest_throttled_total{operation="getOrderState"}')).toBe(0);
  });

  it('is down after a failed answer (5xx, timeout, no connection) until the venue answers again', () => {
    const metrics = new VenueRestMetrics(new Registry());
    expect(metrics.health()).toEqual({ up: true });
    metrics.onResponse('listBalances', 503);
    expect(metrics.health()).toEqual({ up: false, detail: 'last answer failed (listBalances: HTTP 503)' });
    metrics.onResponse('listBalances', 'connection', 'ECONNREFUSED');
    expect(metrics.health().detail).toContain('listBalances: connection:ECONNREFUSED');
    metrics.onResponse('listBalances', 404);
    expect(metrics.health()).toEqual({ up: true });
  });

  it('counts a left-out row and logs its path and problem (bounded), at most once per interval per operation', async () => {
    const registry = new Registry();
    const logged: Array<Record<string, unknown> | undefined> = [];
    let now = 0;
    const metrics = new VenueRestMetrics(registry, {
      logger: { warn: (_message, fields) => logged.push(fields) },
      now: () => now,
    });
    metrics.onRowSkipped('listTrades', `body.data[3].uuid: expected a string, got undefined${'x'.repeat(1_000)}`);
    metrics.onRowSkipped('listTrades', 'body.data[4].uuid: expected a string, got number');
    metrics.onRowSkipped('listTransactions', 'body.data[0].transactionState: unexpected value "ON_HOLD"');
    now = 10_000;
    metrics.onRowSkipped('listTrades', 'body.data[5].uuid: expected a non-empty string');
    const text = await registry.metrics();
    expect(value(text, 'venue_rest_rows_skipped_total{operation="listTrades"}')).toBe(3);
    expect(value(text, 'venue_rest_rows_skipped_total{operation="listTransactions"}')).toBe(1);
    expect(logged).toEqual([
      { operation: 'listTrades', problem: expect.stringMatching(/^body\.data\[3\]\.uuid: expected a string/) },
      { operation: 'listTransactions', problem: 'body.data[0].transactionState: unexpected value "ON_HOLD"' },
      { operation: 'listTrades', problem: 'body.data[5].uuid: expected a non-empty string', notLogged: 1 },
    ]);
    expect(String(logged[0]?.['problem'])).toHaveLength(200);
  });
});
