import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { RestPath } from '#venue-api';
import { startSandboxVenue, type RunningSandbox } from '../../../apps/sandbox-venue/src/bootstrap.js';
import { bodyText, SpecClient, specSign, tonceNow } from '../spec-client.js';

describe('§5 signed requests, §4.1 anti-replay (base64 encoding)', () => {
  let venue: RunningSandbox;
  let client: SpecClient;

  beforeAll(async () => {
    venue = await startSandboxVenue({ port: 0, restRateLimitPerSecond: 10_000 });
    client = new SpecClient(venue.restBaseUrl, venue.credentials.primary);
  });
  afterAll(() => venue.close());

  it('W1: issues a token for a correctly signed request', async () => {
    const res = await client.post(RestPath.Token);
    expect(res.status).toBe(200);
    expect(res.json).toEqual({
      token: expect.any(String),
      expiresAt: expect.stringMatching(/^\d+$/),
      resultCode: 'OK',
      timestamp: expect.stringMatching(/^\d+$/),
    });
  });

  it('§5.2: a signature over another body is refused', async () => {
    const res = await client.send(RestPath.Token, { signedBody: bodyText({ other: 1 }) });
    expect(res.status).toBe(401);
    expect(res.json).toEqual({ resultCode: 'UNAUTHORISED', timestamp: expect.stringMatching(/^\d+$/) });
  });

  it('§5.2: the path is signed without its leading slash; signing with it fails', async () => {
    const body = bodyText({});
    const withSlash = specSign('base64', venue.credentials.primary.apiSecret, '/' + RestPath.Token, body);
    const res = await client.send(RestPath.Token, {
      rawBody: body,
      headers: { 'Rest-Sign': withSlash },
      omitSign: true,
    });
    expect(res.status).toBe(401);
  });

  it('§5.2: the query string is not signed', async () => {
    const res = await client.post(RestPath.Token, {}, { query: 'ignored=1' });
    expect(res.status).toBe(200);
  });

  it('§5.3: a hex signature is refused when the venue runs base64', async () => {
    const res = await client.post(RestPath.Token, {}, { encoding: 'hex' });
    expect(res.status).toBe(401);
  });

  it('§5.1: missing Rest-Key or Rest-Sign, or an unknown key, is an authentication failure', async () => {
    expect((await client.post(RestPath.Token, {}, { omitKey: true })).status).toBe(401);
    expect((await client.post(RestPath.Token, {}, { omitSign: true })).status).toBe(401);
    const unknown = await client.post(RestPath.Token, {}, { credentials: { apiKey: 'nope', apiSecret: 'AAAA' } });
    expect(unknown.status).toBe(401);
  });

  it('§4.1: a replayed or lower nonce is refused; a higher one passes', async () => {
    const body = bodyText({});
    expect((await client.send(RestPath.Token, { rawBody: body })).status).toBe(200);
    expect((await client.send(RestPath.Token, { rawBody: body })).status).toBe(401);
    const nonce = /"nonce":(\d+)/.exec(body)?.[1] ?? '0';
    const lower = `{"nonce":${BigInt(nonce) - 5n}}`;
    expect((await client.send(RestPath.Token, { rawBody: lower })).status).toBe(401);
    expect((await client.post(RestPath.Token)).status).toBe(200);
  });

  it('§4.1: tonce within two minutes passes, outside is refused, and a tonce is accepted once', async () => {
    const inside = `{"tonce":${tonceNow(-100_000)}}`;
    expect((await client.send(RestPath.Token, { rawBody: inside })).status).toBe(200);
    expect((await client.send(RestPath.Token, { rawBody: inside })).status).toBe(401);
    expect((await client.send(RestPath.Token, { rawBody: `{"tonce":${tonceNow(-130_000)}}` })).status).toBe(401);
    expect((await client.send(RestPath.Token, { rawBody: `{"tonce":${tonceNow(130_000)}}` })).status).toBe(401);
  });

  it('§4.1: nonce is tried first when both are present', async () => {
    // a stale tonce beside a good nonce passes; a replayed nonce beside a good tonce fails
    const good = bodyText({ tonce: 1 });
    expect((await client.send(RestPath.Token, { rawBody: good })).status).toBe(200);
    const replay = good.replace('"tonce":1', `"tonce":${tonceNow()}`);
    expect((await client.send(RestPath.Token, { rawBody: replay })).status).toBe(401);
  });

  it('§4.1: nonce and tonce are int64 JSON integers; anything else is refused', async () => {
    for (const body of ['{"nonce":9223372036854775808}', '{"nonce":"123"}', '{"nonce":1.5}', '{"tonce":"1"}']) {
      expect((await client.send(RestPath.Token, { rawBody: body })).status).toBe(401);
    }
  });

  it('§4.1: a body with neither nonce nor tonce is refused', async () => {
    expect((await client.send(RestPath.Token, { rawBody: '{}' })).status).toBe(401);
  });

  it('nonces are per key: another key starts its own sequence', async () => {
    const body = bodyText({});
    expect((await client.send(RestPath.Token, { rawBody: body })).status).toBe(200);
    const other = await client.send(RestPath.Token, { rawBody: body, credentials: venue.credentials.secondUser });
    expect(other.status).toBe(200);
  });
});

describe('§5.3 hex encoding (VENUE_SIGNATURE_ENCODING=hex)', () => {
  let venue: RunningSandbox;
  beforeAll(async () => {
    venue = await startSandboxVenue({ port: 0, signatureEncoding: 'hex' });
  });
  afterAll(() => venue.close());

  it('accepts a hex digest keyed by the secret as plain text and refuses base64', async () => {
    const client = new SpecClient(venue.restBaseUrl, venue.credentials.primary, 'hex');
    expect((await client.post(RestPath.Token)).status).toBe(200);
    expect((await client.post(RestPath.Token, {}, { encoding: 'base64' })).status).toBe(401);
  });
});

describe('§5.4 rule 4, dialect axis tonceOrder: increasing — a lower tonce is an auth failure where the rule applies', () => {
  let venue: RunningSandbox;
  let client: SpecClient;

  beforeAll(async () => {
    venue = await startSandboxVenue({
      port: 0,
      restRateLimitPerSecond: 10_000,
      dialect: { tonceOrder: 'increasing' },
    });
    client = new SpecClient(venue.restBaseUrl, venue.credentials.primary);
  });
  afterAll(() => venue.close());

  it('withdrawal list: a tonce below one the key had accepted is refused 401; a higher one passes; the token endpoint does not care', async () => {
    const now = tonceNow();
    expect((await client.send(RestPath.WithdrawalFiatList, { rawBody: `{"tonce":${now}}` })).status).toBe(200);
    expect((await client.send(RestPath.WithdrawalFiatList, { rawBody: `{"tonce":${now - 10n}}` })).status).toBe(401);
    expect((await client.send(RestPath.Token, { rawBody: `{"tonce":${now - 20n}}` })).status).toBe(200);
    expect((await client.send(RestPath.WithdrawalFiatList, { rawBody: `{"tonce":${now + 10n}}` })).status).toBe(200);
  });
});
