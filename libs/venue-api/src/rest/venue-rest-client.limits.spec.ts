import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { freePort } from '#testing';
import { VenueConnectionError, VenueRateLimitedError, VenueTimeoutError } from './errors.js';
import { antiReplayOf, API_KEY, API_SECRET, ClientFixture } from './test-support/client-fixture.js';
import { ManualClock } from './test-support/manual-clock.js';
import { json } from './test-support/scripted-venue.js';
import { TonceSource } from '../auth/anti-replay.js';
import { VenueRestClient } from './venue-rest-client.js';

let fixture: ClientFixture;

beforeAll(async () => {
  fixture = await ClientFixture.start(await freePort());
});

afterAll(async () => {
  await fixture.stop();
});

/** Polls a condition with a deadline (the limiter's state changes after socket I/O we cannot await). */
async function until(condition: () => boolean, what: string, deadlineMs = 5000): Promise<void> {
  const deadline = Date.now() + deadlineMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for: ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

const pairs = '{"data":[]}';
const throttled = () => json(429, '{"error":"TOO_MANY_REQUESTS","message":"slow down"}', { 'Retry-After': '1' });

describe('client-side limiter over real HTTP (§8)', () => {
  it('sends at most 30 requests per second; the rest wait for the window to slide', async () => {
    const clock = new ManualClock();
    fixture.venue.reset(() => json(200, pairs));
    const client = fixture.client({ clock });
    let done = 0;
    const calls = Array.from({ length: 40 }, () => client.listPairs().then(() => (done += 1)));
    await until(() => done === 30, '30 responses');
    expect(fixture.venue.requests).toHaveLength(30);
    expect(client.limiter.queued).toBe(10);
    clock.advance(999);
    expect(client.limiter.queued).toBe(10);
    clock.advance(6); // one second after the answers, plus the limiter's 5 ms margin
    await Promise.all(calls);
    expect(fixture.venue.requests).toHaveLength(40);
  });

  it('many parallel 429s cause one pause and one retry each, not a storm', async () => {
    const clock = new ManualClock();
    fixture.venue.reset((_request, index) => (index < 5 ? throttled() : json(200, pairs)));
    const throttles: number[] = [];
    const client = fixture.client({
      clock,
      random: () => 0.5,
      events: { onThrottled: (_operation, pauseMs) => throttles.push(pauseMs) },
    });
    const calls = Array.from({ length: 5 }, () => client.listPairs());
    await until(() => client.limiter.queued === 5, 'all five retries queued behind the pause');
    expect(fixture.venue.requests).toHaveLength(5);
    expect(throttles.filter((pause) => pause > 0)).toEqual([1000]); // Retry-After: 1 s, one pause
    expect(client.limiter.pausedUntilMs).toBe(clock.now() + 1000);

    clock.advance(999);
    expect(client.limiter.queued).toBe(5);
    clock.advance(1);
    await Promise.all(calls);
    expect(fixture.venue.requests).toHaveLength(10);
    // Each retry is a new request: fresh tonce, new valid signature.
    const tonces = new Set(fixture.venue.requests.map((request) => antiReplayOf(request.bodyText)?.digits));
    expect(tonces.size).toBe(10);
    expect(fixture.venue.requests.every((request) => request.signatureValid)).toBe(true);
  });

  it('gives up with a typed rate-limited error after the configured retries', async () => {
    const clock = new ManualClock();
    fixture.venue.reset(throttled);
    const client = fixture.client({ clock, throttleRetries: 1, random: () => 0 });
    const call = client.listPairs().catch((caught: unknown) => caught);
    await until(() => client.limiter.queued === 1, 'the retry queued');
    clock.advance(1000);
    const error = await call;
    expect(error).toBeInstanceOf(VenueRateLimitedError);
    expect(error).toMatchObject({ status: 429, venueCode: 'TOO_MANY_REQUESTS', venueMessage: 'slow down' });
    expect(fixture.venue.requests).toHaveLength(2);
  });
});

describe('transport failures', () => {
  it('a read with no answer in time is a typed timeout', async () => {
    fixture.venue.reset(() => 'hang');
    await expect(fixture.client({ timeoutMs: 150 }).getBalances()).rejects.toBeInstanceOf(VenueTimeoutError);
  });

  it('a refused connection is a connection error, also for a submit (nothing was sent)', async () => {
    const client = new VenueRestClient({
      baseUrl: `http://127.0.0.1:${await freePort()}`,
      apiKey: API_KEY,
      apiSecret: API_SECRET,
      antiReplay: new TonceSource(),
    });
    await expect(client.listPairs()).rejects.toBeInstanceOf(VenueConnectionError);
    await expect(
      client.submitFiatWithdrawal({ accountGroupUuid: 'a', ccy: 'USD', amount: '1', bankAccountUuid: 'b' }),
    ).rejects.toBeInstanceOf(VenueConnectionError);
  });
});
