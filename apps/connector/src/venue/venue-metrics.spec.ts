import { describe, expect, it } from '@jest/globals';
import { MetricsRegistry } from '#observability';
import { orderCodeLabel, VenueMetrics } from './venue-metrics.js';

describe('VenueMetrics', () => {
  it('registers every venue-side metric with bounded labels', async () => {
    const registry = new MetricsRegistry('t', { defaultMetrics: false });
    const metrics = new VenueMetrics(registry);
    metrics.setSessionState('open');
    const text = await registry.metrics();
    for (const name of [
      'connector_session_state',
      'connector_venue_reconnects_total',
      'connector_token_fetch_seconds',
      'connector_price_updates_total',
      'connector_price_hop_seconds',
      'connector_stale_streams',
      'connector_price_stale_after_seconds',
      'connector_price_out_of_order_dropped_total',
      'connector_venue_frames_rejected_total',
      'connector_rate_limit_waits_total',
      'connector_order_gap_seconds',
      'connector_order_rate_limited_total',
      'connector_orders_total',
      'connector_order_reply_seconds',
    ]) {
      expect(text).toContain(`# TYPE ${name} `);
    }
    expect(text).toMatch(/connector_session_state\{state="open",app="t"\} 1/);
    expect(text).toMatch(/connector_session_state\{state="idle",app="t"\} 0/);
  });

  it('counts frames accepted with odd fields from 0 for every message type read liberally (a 0 line, not "no data")', async () => {
    const registry = new MetricsRegistry('t', { defaultMetrics: false });
    new VenueMetrics(registry);
    const oddities = await registry.getSingleMetric('connector_venue_frame_oddities_total')?.get();
    expect(Object.fromEntries((oddities?.values ?? []).map((v) => [v.labels['messageType'], v.value]))).toEqual({
      unsubscribe: 0,
      streamStop: 0,
      order: 0,
      orderUnsubscribe: 0,
      error: 0,
      accountGroups: 0,
    });
  });

  it("counts the REST client's throttles in venue_rest_throttled_total, the series every app shares", async () => {
    const registry = new MetricsRegistry('t', { defaultMetrics: false });
    const metrics = new VenueMetrics(registry);
    const token = /venue_rest_throttled_total\{operation="createWebSocketToken",app="t"\} (\d+)/;
    expect(token.exec(await registry.metrics())?.[1]).toBe('0');
    metrics.rest.onThrottled('createWebSocketToken');
    expect(token.exec(await registry.metrics())?.[1]).toBe('1');
  });

  it('keeps order codes to a known set', () => {
    expect(orderCodeLabel('RFS100019')).toBe('RFS100019');
    expect(orderCodeLabel('')).toBe('none');
    expect(orderCodeLabel('anything-the-venue-invents-123')).toBe('other');
  });
});
