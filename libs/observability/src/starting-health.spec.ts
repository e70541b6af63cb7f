import { describe, expect, it } from '@jest/globals';
import { serveStartingHealth } from './starting-health.js';

describe('serveStartingHealth (the port while an app waits for NATS)', () => {
  it('answers /health 503 with what it waits for, and /metrics with bus_connected 0 (outside tester: 503 read as "app down")', async () => {
    const starting = await serveStartingHealth(0, '127.0.0.1', () => 'waiting for NATS', 'account-sync');
    try {
      const base = `http://127.0.0.1:${starting.port}`;
      const health = await fetch(`${base}/health`);
      expect(health.status).toBe(503);
      expect(await health.json()).toEqual({
        status: 'starting',
        checks: { startup: { up: false, detail: 'waiting for NATS' } },
      });
      const metrics = await fetch(`${base}/metrics`);
      expect(metrics.status).toBe(200);
      expect(await metrics.text()).toMatch(/^bus_connected\{app="account-sync"\} 0$/m);
      expect((await fetch(`${base}/other`)).status).toBe(503);
    } finally {
      await starting.close();
    }
  });
});
