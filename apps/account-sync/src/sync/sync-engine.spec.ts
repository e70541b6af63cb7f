import { describe, expect, it } from '@jest/globals';
import { JsonLogger, MetricsRegistry } from '#observability';
import type { Trade, VenueRestClient } from '#venue-api';
import { SyncEngine, type Mirrors } from './sync-engine.js';
import { SyncMetrics } from './sync-metrics.js';
import { SYNC_RESOURCES } from './sync-triggers.js';

const quiet = new JsonLogger('test', 'sync-engine', 'error', { write: () => undefined });

/** A venue whose trade pages answer in the order the test settles them. */
class ScriptedTrades {
  readonly pages: Array<{ resolve(page: { data: Trade[] }): void; reject(error: Error): void }> = [];
  listTrades(): Promise<{ data: Trade[] }> {
    return new Promise((resolve, reject) => this.pages.push({ resolve, reject }));
  }
}

function engineFor(client: ScriptedTrades): SyncEngine {
  const trade = { apply: () => Promise.resolve({ created: 0, changed: 0, stateChanged: 0, removed: 0 }), size: 0 };
  return new SyncEngine({
    client: client as unknown as VenueRestClient,
    mirrors: { trade } as unknown as Mirrors,
    intake: undefined,
    publishDrift: () => Promise.resolve(),
    metrics: new SyncMetrics(new MetricsRegistry('t', { defaultMetrics: false }), () => undefined, SYNC_RESOURCES),
    logger: quiet,
    now: () => 0,
    overlapMs: 0,
  });
}

describe('SyncEngine full trade read', () => {
  it('a page failing while later pages are in flight fails the run once; the later failures are not unhandled', async () => {
    const unhandled: unknown[] = [];
    const onUnhandled = (reason: unknown) => unhandled.push(reason);
    process.on('unhandledRejection', onUnhandled);
    try {
      const venue = new ScriptedTrades();
      const run = engineFor(venue).run('trades', 'full');
      const outcome = run.then(
        () => 'resolved',
        (error: Error) => error.message,
      );
      expect(venue.pages.length).toBeGreaterThan(2);
      // the second page fails first, then the first: the run reports the first page's failure
      venue.pages[1]?.reject(new Error('page 2: HTTP 500'));
      await new Promise((resolve) => setImmediate(resolve));
      venue.pages[0]?.reject(new Error('page 1: HTTP 500'));
      for (const page of venue.pages.slice(2)) page.reject(new Error('later page: HTTP 500'));
      expect(await outcome).toBe('page 1: HTTP 500');
      await new Promise((resolve) => setTimeout(resolve, 20));
      expect(unhandled).toEqual([]);
    } finally {
      process.off('unhandledRejection', onUnhandled);
    }
  });
});
