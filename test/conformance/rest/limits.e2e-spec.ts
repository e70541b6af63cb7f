/** §8, spec-gaps R3: 30 requests in any sliding second per IP; 401 on withdrawals, 429 elsewhere. */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { RestPath } from '#venue-api';
import { startSandboxVenue, type RunningSandbox } from '../../../apps/sandbox-venue/src/bootstrap.js';
import { SpecClient, tonceNow, type SpecResponse } from '../spec-client.js';

const LIMIT = 30;

describe('§8 REST rate limit per IP', () => {
  let venue: RunningSandbox;
  let client: SpecClient;
  let tonce = tonceNow();

  /** `count` requests in parallel, each with its own tonce (parallel nonces could arrive out of order). */
  const burst = (path: string, count: number): Promise<SpecResponse[]> =>
    Promise.all(Array.from({ length: count }, () => client.send(path, { rawBody: `{"tonce":${(tonce += 1n)}}` })));

  /**
   * At most how many of a burst the window may admit: 30 while it all arrives within one second; a loaded machine
   * may spread a burst over longer, and the sliding window then rightly admits 30 more for each further second.
   */
  const admissible = async (send: () => Promise<SpecResponse[]>): Promise<{ replies: SpecResponse[]; max: number }> => {
    const started = performance.now();
    const replies = await send();
    return { replies, max: LIMIT * Math.ceil((performance.now() - started + 1) / 1000) };
  };

  /** Polls until the window has room again (a deadline, not a sleep). */
  const windowClears = async (): Promise<void> => {
    const deadline = Date.now() + 5000;
    while (Date.now() < deadline) {
      const res = await client.send(RestPath.Pairs, { rawBody: `{"tonce":${(tonce += 1n)}}` });
      if (res.status === 200) return;
      await new Promise((r) => setTimeout(r, 100));
    }
    throw new Error('rate-limit window never cleared');
  };

  beforeAll(async () => {
    venue = await startSandboxVenue({ port: 0 });
    client = new SpecClient(venue.restBaseUrl, venue.credentials.primary);
  });
  afterAll(() => venue.close());

  it('over 30 in a second: 429 {error: TOO_MANY_REQUESTS} with Retry-After on ordinary endpoints', async () => {
    await windowClears();
    const { replies, max } = await admissible(() => burst(RestPath.Trades, LIMIT + 10));
    const ok = replies.filter((r) => r.status === 200);
    const throttled = replies.filter((r) => r.status === 429);
    expect(ok.length).toBeLessThanOrEqual(max);
    expect(throttled.length).toBeGreaterThanOrEqual(Math.min(10, LIMIT + 10 - max));
    expect(throttled.length).toBeGreaterThan(0);
    expect(throttled[0]?.json).toEqual({ error: 'TOO_MANY_REQUESTS', message: expect.any(String) });
    expect(throttled[0]?.headers.get('retry-after')).toBe('1');
    expect(replies.every((r) => r.status === 200 || r.status === 429)).toBe(true);
  });

  it('over 30 in a second on withdrawal endpoints: 401 {success:false, message:"Unauthorized"}', async () => {
    await windowClears();
    const { replies, max } = await admissible(() => burst(RestPath.WithdrawalFiatList, LIMIT + 10));
    const throttled = replies.filter((r) => r.status === 401);
    expect(throttled.length).toBeGreaterThanOrEqual(Math.min(10, LIMIT + 10 - max));
    expect(throttled.length).toBeGreaterThan(0);
    expect(throttled[0]?.json).toEqual({ success: false, message: 'Unauthorized' });
    expect(replies.every((r) => r.status === 200 || r.status === 401)).toBe(true);
  });

  it('the limit is per sliding second: once it passes, requests are served again', async () => {
    const replies = await burst(RestPath.Trades, LIMIT + 5);
    expect(replies.some((r) => r.status === 429)).toBe(true);
    await expect(windowClears()).resolves.toBeUndefined();
  });
});
