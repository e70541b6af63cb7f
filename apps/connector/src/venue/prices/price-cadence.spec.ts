import { describe, expect, it } from '@jest/globals';
import { judgeStaleness, MAX_SHARED_STALE_AFTER_MS } from './price-cadence.js';

const rule = { staleAfterMs: 5_000 };

describe('judgeStaleness (W13)', () => {
  it('a venue with a cadence per stream: each heard stream many times a window, the threshold stays PRICE_STALE_AFTER_MS', () => {
    // 30 streams at 4 updates/s each over 5 s
    expect(judgeStaleness({ heldStreams: 30, windowMs: 5_000, updates: 600, streamsHeard: 30 }, rule)).toEqual({
      reading: 'per-stream',
      staleAfterMs: 5_000,
    });
  });

  it('a venue whose 4 updates/s are shared by the connection: 30 streams, a turn every 7.5 s, stale after two', () => {
    expect(judgeStaleness({ heldStreams: 30, windowMs: 5_000, updates: 20, streamsHeard: 20 }, rule)).toEqual({
      reading: 'per-connection',
      staleAfterMs: 15_000,
    });
  });

  it('measures the turn whatever the tick: 10 updates/s shared by 30 streams, a turn every 3 s', () => {
    expect(
      judgeStaleness({ heldStreams: 30, windowMs: 1_000, updates: 10, streamsHeard: 10 }, { staleAfterMs: 1_000 }),
    ).toEqual({ reading: 'per-connection', staleAfterMs: 6_000 });
  });

  it('few streams sharing the rate: two turns fit in PRICE_STALE_AFTER_MS, never sooner', () => {
    // 6 streams at 4/s: a turn every 1.5 s
    expect(judgeStaleness({ heldStreams: 6, windowMs: 5_000, updates: 20, streamsHeard: 6 }, rule)).toEqual({
      reading: 'per-stream',
      staleAfterMs: 5_000,
    });
    expect(judgeStaleness({ heldStreams: 12, windowMs: 5_000, updates: 20, streamsHeard: 12 }, rule).staleAfterMs).toBe(
      6_000,
    );
  });

  it('streams of a per-stream venue gone quiet do not stretch the others: their silence spreads nothing', () => {
    // 30 held, 29 silent, 1 at 4/s; 2 of 30 at 4/s
    expect(judgeStaleness({ heldStreams: 30, windowMs: 5_000, updates: 20, streamsHeard: 1 }, rule).staleAfterMs).toBe(
      5_000,
    );
    expect(judgeStaleness({ heldStreams: 30, windowMs: 5_000, updates: 40, streamsHeard: 2 }, rule).staleAfterMs).toBe(
      5_000,
    );
  });

  it('a connection that carries nothing any more is judged as with one stream: every stream stale in time', () => {
    expect(judgeStaleness({ heldStreams: 30, windowMs: 5_000, updates: 0, streamsHeard: 0 }, rule)).toEqual({
      reading: 'per-stream',
      staleAfterMs: 5_000,
    });
    expect(judgeStaleness({ heldStreams: 30, windowMs: 0, updates: 0, streamsHeard: 0 }, rule).staleAfterMs).toBe(
      5_000,
    );
  });

  it('never later than a quote lives', () => {
    expect(
      judgeStaleness({ heldStreams: 5_000, windowMs: 5_000, updates: 2, streamsHeard: 2 }, rule).staleAfterMs,
    ).toBe(MAX_SHARED_STALE_AFTER_MS);
  });

  it('told the shared rate (VENUE_PRICE_UPDATES_PER_CONNECTION), the threshold follows the held streams alone', () => {
    const told = { staleAfterMs: 1_000, connectionPriceRate: 4 };
    expect(judgeStaleness({ heldStreams: 8, windowMs: 1_000, updates: 80, streamsHeard: 8 }, told)).toEqual({
      reading: 'per-connection',
      staleAfterMs: 4_000,
    });
    expect(judgeStaleness({ heldStreams: 1, windowMs: 0, updates: 0, streamsHeard: 0 }, told).staleAfterMs).toBe(1_000);
  });
});
