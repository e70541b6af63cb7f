/** Operator fault controls of the back office, /health and /metrics, over real HTTP. */
import { afterAll, afterEach, beforeAll, describe, expect, it } from '@jest/globals';
import { RestPath } from '#venue-api';
import { startSandboxVenue, type RunningSandbox } from '../../../apps/sandbox-venue/src/bootstrap.js';
import { admin, SpecClient, tonceNow } from '../spec-client.js';

describe('fault controls', () => {
  let venue: RunningSandbox;
  let client: SpecClient;

  beforeAll(async () => {
    venue = await startSandboxVenue({ port: 0, restRateLimitPerSecond: 10_000 });
    client = new SpecClient(venue.restBaseUrl, venue.credentials.primary);
  });
  afterEach(async () => {
    await fetch(`${venue.adminUrl}/faults/rest`, { method: 'DELETE' });
    await admin(venue.adminUrl, '/clock', { skewMs: 0 });
  });
  afterAll(() => venue.close());

  it('GET /admin lists every operator route (the launcher prints that address; it answered 404)', async () => {
    const index = (await (await fetch(venue.adminUrl)).json()) as { routes: string[]; docs: string };
    expect(index.routes).toEqual(
      expect.arrayContaining([
        'POST /admin/faults/rest',
        'DELETE /admin/faults/rest',
        'POST /admin/faults/ws/drop-order-outcomes',
        'GET /admin/market',
        'POST /admin/deposits',
        'POST /admin/webhooks/url',
      ]),
    );
    expect(index.routes).not.toContain('GET /admin');
    expect(index.routes.every((route) => /^(GET|POST|PUT|DELETE|PATCH) \/admin\//.test(route))).toBe(true);
    expect(index.docs).toContain('apps/sandbox-venue/README.md');
  });

  it('reject token issuance for the next N requests, then recover', async () => {
    await admin(venue.adminUrl, '/faults/token', { count: 2 });
    for (let i = 0; i < 2; i++) {
      const res = await client.post(RestPath.Token);
      expect(res.status).toBe(401);
      expect(res.json).toEqual({ resultCode: 'UNAUTHORISED', timestamp: expect.any(String) });
    }
    expect((await client.post(RestPath.Token)).status).toBe(200);
  });

  it('429 on the next request of one path only', async () => {
    await admin(venue.adminUrl, '/faults/rest', { path: RestPath.Trades, status: 429, count: 1 });
    expect((await client.post(RestPath.Balances)).status).toBe(200);
    const res = await client.post(RestPath.Trades);
    expect(res.status).toBe(429);
    expect(res.headers.get('retry-after')).toBe('1');
    expect((await client.post(RestPath.Trades)).status).toBe(200);
  });

  it("5xx on every path for the next N requests, in each family's shape", async () => {
    await admin(venue.adminUrl, '/faults/rest', { status: 502, count: 3 });
    const a = await client.post(RestPath.Originator);
    const b = await client.post(RestPath.Trades);
    const c = await client.post(RestPath.WithdrawalFiatList);
    expect([a.status, b.status, c.status]).toEqual([502, 502, 502]);
    expect(a.json).toEqual({ resultCode: 'INTERNAL_ERROR', timestamp: expect.any(String) });
    expect(b.json).toEqual({ error: 'INTERNAL_ERROR', message: expect.any(String) });
    expect(c.json).toEqual({ success: false, message: 'Error while processing request' });
    expect((await client.post(RestPath.Trades)).status).toBe(200);
  });

  it('a skewed venue clock moves the tonce window; nonces are unaffected', async () => {
    await admin(venue.adminUrl, '/clock', { skewMs: 5 * 60_000 });
    expect((await client.send(RestPath.Trades, { rawBody: `{"tonce":${tonceNow()}}` })).status).toBe(401);
    expect((await client.send(RestPath.Trades, { rawBody: `{"tonce":${tonceNow(5 * 60_000)}}` })).status).toBe(200);
    expect((await client.post(RestPath.Trades)).status).toBe(200);
    const clock = (await (await fetch(`${venue.adminUrl}/clock`)).json()) as { skewMs: number };
    expect(clock.skewMs).toBe(5 * 60_000);
  });

  it('bad operator input is a 400 naming the field, never a crash', async () => {
    const res = await admin(venue.adminUrl, '/faults/rest', { status: 'boom' });
    expect(res.status).toBe(400);
    expect(res.text).toContain('status');
    expect((await admin(venue.adminUrl, '/withdrawals/none/approve')).status).toBe(404);
    expect((await admin(venue.adminUrl, '/trades/none/settle')).status).toBe(404);
  });

  it('/health answers ok; /metrics counts requests by path template and auth failures by reason', async () => {
    expect((await fetch(`${venue.restBaseUrl}/health`)).status).toBe(200);
    await client.post(RestPath.Trades, {}, { omitSign: true });
    await client.post(RestPath.WithdrawalFiatList);
    await client.post('/api/3/withdrawal/fiat/some-uuid/cancel', { accountGroupUuid: venue.seed.defaultGroupUuid });
    const text = await (await fetch(`${venue.restBaseUrl}/metrics`)).text();
    expect(text).toMatch(/sandbox_rest_requests_total\{[^}]*path="\/api\/3\/trades"[^}]*status="200"/);
    expect(text).toMatch(/sandbox_rest_requests_total\{[^}]*path="\/api\/3\/withdrawal\/fiat\/\{uuid\}\/cancel"/);
    expect(text).toMatch(/sandbox_rest_auth_failures_total\{[^}]*reason="missing_header"/);
    // secrets never reach metrics
    expect(text).not.toContain(venue.credentials.primary.apiSecret);
  });
});
