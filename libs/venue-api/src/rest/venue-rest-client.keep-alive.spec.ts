/**
 * The keep-alive race (t2 F3): a server closes a kept-alive connection it holds idle at the moment the client
 * reuses it for the next request. The request never reaches the server's handler, and Node's fetch (undici)
 * fails it ("other side closed" / ECONNRESET) without retrying a POST. On a real node:http server; the close is
 * timed by Node's own `closeIdleConnections` right after the client hands its request over, as the server's
 * idle timer does when it fires then (late client timers under CPU starvation make that window wide).
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from '@jest/globals';
import { freePort } from '#testing';
import type { VenueRestClientConfig } from './client-config.js';
import { VenueConnectionError, VenueOutcomeUnknownError } from './errors.js';
import { freshConnectionFetch, type FetchFunction } from './fresh-connection-fetch.js';
import { ClientFixture } from './test-support/client-fixture.js';
import { json, type ScriptedVenue } from './test-support/scripted-venue.js';

let fixture: ClientFixture;

beforeAll(async () => {
  fixture = await ClientFixture.start(await freePort());
});

afterAll(async () => {
  await fixture.stop();
});

const fiat = { accountGroupUuid: 'ag-1', ccy: 'USD', amount: '10', bankAccountUuid: 'ba-1' };
const pairs = '[{"baseCcy":"BTC","quoteCcy":"USD","tradable":true}]';

type Fetch = FetchFunction;

/**
 * Wraps fetch functions so that, once armed, the server closes its idle connections right after the next request
 * was handed to one of them: the server's idle timer firing just as the client reuses its connection.
 */
class IdleCloseAtSend {
  private armed = false;
  constructor(private readonly venue: ScriptedVenue) {}

  arm(): void {
    this.armed = true;
  }

  wrap(inner: Fetch): Fetch {
    return (url, init) => {
      const response = inner(url, init);
      if (this.armed) this.venue.closeIdleConnections();
      this.armed = false;
      return response;
    };
  }
}

/** A client whose pool holds one connection, idle on both sides, and an armed closer of idle connections. */
async function warmClient(config: (closer: IdleCloseAtSend) => Partial<VenueRestClientConfig>) {
  const closer = new IdleCloseAtSend(fixture.venue);
  const client = fixture.client(config(closer));
  fixture.venue.reset(() => json(200, pairs));
  await client.listPairs();
  await new Promise((resolve) => setTimeout(resolve, 20));
  closer.arm();
  return client;
}

beforeEach(() => {
  fixture.venue.connections = 0;
});

describe('the mechanism, with Node fetch alone', () => {
  it('a POST on a pooled connection the server closes as it is reused never arrives and fails', async () => {
    fixture.venue.reset(() => json(200, pairs));
    const url = `${fixture.venue.baseUrl}/api/3/pairs`;
    await (await fetch(url)).text();
    await new Promise((resolve) => setTimeout(resolve, 20));
    fixture.venue.reset(() => json(200, '{}'));
    const sent = fetch(url, { method: 'POST', body: '{}' });
    fixture.venue.closeIdleConnections();
    const error = await sent.catch((caught: unknown) => caught);
    expect(error).toMatchObject({ name: 'TypeError', message: 'fetch failed' });
    expect((error as { cause?: { code?: string } }).cause?.code).toMatch(/^(UND_ERR_SOCKET|ECONNRESET|EPIPE)$/);
    expect(fixture.venue.requests).toHaveLength(0);
  });
});

describe('state-changing calls never ride a pooled connection', () => {
  it('a submit as the server closes its idle connection goes on a fresh one, arrives once and succeeds', async () => {
    const client = await warmClient((closer) => ({
      fetch: closer.wrap(fetch),
      freshConnectionFetch: closer.wrap(freshConnectionFetch),
    }));
    fixture.venue.reset(() => json(200, '{"success":true,"uuid":"wd-1"}'));
    await expect(client.submitFiatWithdrawal(fiat)).resolves.toEqual({ uuid: 'wd-1' });
    expect(fixture.venue.requests).toHaveLength(1);
    expect(fixture.venue.requests[0]?.headers.connection).toBe('close');
    expect(fixture.venue.connections).toBe(2);
  });

  it('each state-changing call opens its own connection and closes it', async () => {
    const client = await warmClient(() => ({}));
    fixture.venue.reset(() => json(200, '{"success":true,"uuid":"wd-1"}'));
    await client.submitFiatWithdrawal(fiat);
    await client.submitFiatWithdrawal(fiat);
    expect(fixture.venue.connections).toBe(3); // the read's pooled one, then one per submit
    expect(fixture.venue.requests.map((request) => request.headers.connection)).toEqual(['close', 'close']);
  });

  it('a submit whose connection is lost after it left is outcome-unknown, never retried, its cause named', async () => {
    const client = fixture.client();
    fixture.venue.reset(() => 'drop');
    const error = await client.submitFiatWithdrawal(fiat).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(VenueOutcomeUnknownError);
    expect((error as Error).message).toMatch(/^submitFiatWithdrawal: outcome unknown \(connection lost: ECONNRESET\)/);
    expect(fixture.venue.requests).toHaveLength(1);
  });
});

describe('a read that lost its pooled connection is sent again once', () => {
  it('retries on a fresh connection and succeeds; the lost attempt is counted with its cause', async () => {
    const events: string[] = [];
    const client = await warmClient((closer) => ({
      fetch: closer.wrap(fetch),
      freshConnectionFetch: closer.wrap(freshConnectionFetch),
      events: {
        onRetry: (operation, reason) => events.push(`retry:${operation}:${reason}`),
        onResponse: (operation, status, cause) => events.push(`${operation}:${status}${cause ? `:${cause}` : ''}`),
      },
    }));
    events.length = 0;
    fixture.venue.reset(() => json(200, pairs));
    await expect(client.listPairs()).resolves.toHaveLength(1);
    expect(events).toEqual([
      expect.stringMatching(/^listPairs:connection:(UND_ERR_SOCKET|ECONNRESET|EPIPE)$/),
      'retry:listPairs:connection-lost',
      'listPairs:200',
    ]);
    expect(fixture.venue.requests).toHaveLength(1); // the lost one never arrived
  });

  it('only once: a read dropped twice is a connection error naming its cause', async () => {
    fixture.venue.reset(() => 'drop');
    const error = await fixture
      .client()
      .listPairs()
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(VenueConnectionError);
    expect((error as Error).message).toMatch(/^listPairs: connection failed \((UND_ERR_SOCKET|ECONNRESET)\)$/);
    expect(fixture.venue.requests).toHaveLength(2);
  });
});
