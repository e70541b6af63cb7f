/**
 * §4.2 connection rules: token (single use, W2 refusal), sessionId rules (percent-decoding, length,
 * forbidden characters → one error frame then close), minting, replacement (W19), chanId, unknown
 * messageTypes, malformed frames (W9), account-group lookup (W12), §5 token life.
 */
import { describe, it, expect, beforeAll, afterAll } from '@jest/globals';
import { startWsVenue, type WsVenue } from './ws-harness.js';
import { ConnectRefused, fetchToken, isType, WsTestClient } from './ws-test-client.js';

let v: WsVenue;

beforeAll(async () => {
  v = await startWsVenue();
});
afterAll(async () => {
  await v.close();
});

async function refusedStatus(url: string): Promise<number> {
  try {
    const client = await WsTestClient.open(url);
    await client.close();
    return 101;
  } catch (error: unknown) {
    if (error instanceof ConnectRefused) return error.status;
    throw error;
  }
}

describe('token query parameter (§4.2, §5, W2)', () => {
  it('a missing token refuses the upgrade with 401', async () => {
    expect(await refusedStatus(v.venue.wsUrl)).toBe(401);
    expect(await refusedStatus(`${v.venue.wsUrl}?token=`)).toBe(401);
  });

  it('an unknown token refuses the upgrade with 401', async () => {
    expect(await refusedStatus(`${v.venue.wsUrl}?token=not-a-token`)).toBe(401);
  });

  it('a token is single use: the second connection with it is refused', async () => {
    const token = await fetchToken(v.venue.restBaseUrl, v.venue.credentials.primary);
    const first = await WsTestClient.open(`${v.venue.wsUrl}?token=${encodeURIComponent(token)}`);
    expect(await refusedStatus(`${v.venue.wsUrl}?token=${encodeURIComponent(token)}`)).toBe(401);
    await first.close();
  });

  it('an expired token is refused (token life shortened by configuration)', async () => {
    const { startSandboxVenue } = await import('../../../apps/sandbox-venue/src/bootstrap.js');
    const venue = await startSandboxVenue({ port: 0, tokenTtlMs: 1 });
    try {
      const token = await fetchToken(venue.restBaseUrl, venue.credentials.primary);
      const receivedAt = Date.now();
      // Issued before we received it, so a 1 ms life has ended once the clock is 2 ms past that moment.
      while (Date.now() <= receivedAt + 2) await new Promise((resolve) => setImmediate(resolve));
      expect(await refusedStatus(`${venue.wsUrl}?token=${encodeURIComponent(token)}`)).toBe(401);
    } finally {
      await venue.close();
    }
  });

  it('every connection gets its own chanId, stamped on every frame', async () => {
    const a = await v.connect();
    const b = await v.connect();
    const ra = await a.barrier();
    const rb = await b.barrier();
    expect(typeof ra.json['chanId']).toBe('string');
    expect(ra.json['chanId']).not.toBe(rb.json['chanId']);
    const again = await a.barrier();
    expect(again.json['chanId']).toBe(ra.json['chanId']);
  });
});

describe('sessionId (§4.2)', () => {
  it.each([
    ['a slash', 'abc%2Fdef'],
    ['a raw slash', 'abc/def'],
    ['whitespace (percent-encoded space)', 'abc%20def'],
    ['a tab', 'abc%09def'],
    ['a control character', 'abc%01def'],
    ['DEL', 'abc%7Fdef'],
    ['65 characters', 'x'.repeat(65)],
    ['65 characters once decoded', '%41'.repeat(65)],
    ['a broken percent escape', 'abc%E0%A4%A'],
  ])('%s: one error frame INVALID_SESSION_ID, then the socket closes', async (_name, raw) => {
    const client = await v.connect({ rawSessionId: raw });
    const closed = await client.closed;
    const errors = client.seen(isType('error'));
    expect(client.frames).toHaveLength(1);
    expect(errors).toHaveLength(1);
    expect(errors[0]?.json).toMatchObject({ code: 'INVALID_SESSION_ID' });
    expect(typeof errors[0]?.json['message']).toBe('string');
    expect(closed.code).toBe(1008);
  });

  it.each([
    ['dots', 'strategy.alpha.1'],
    ['64 characters', 'y'.repeat(64)],
    ['percent-encoded characters that decode to allowed ones', 'sess%2Eone'],
    ['one character', 'z'],
  ])('accepts %s', async (_name, raw) => {
    const client = await v.connect({ rawSessionId: raw });
    await client.barrier();
    expect(client.seen(isType('error'))).toHaveLength(0);
  });

  it('an empty sessionId is the same as none: the venue mints one and the connection works', async () => {
    const client = await v.connect({ rawSessionId: '' });
    const reply = await client.barrier();
    expect(reply.json['success']).toBe(true);
  });

  it('W19: a second connection with a live sessionId closes the first with SESSION_REPLACED', async () => {
    const first = await v.connect({ rawSessionId: 'replace-me' });
    await first.barrier();
    const second = await v.connect({ rawSessionId: 'replace-me' });
    const error = await first.take(isType('error'));
    expect(error.json['code']).toBe('SESSION_REPLACED');
    expect((await first.closed).code).toBe(4001);
    const reply = await second.barrier();
    expect(reply.json['success']).toBe(true);
  });

  it('W19 is per account: another user with the same sessionId does not replace it', async () => {
    const mine = await v.connect({ rawSessionId: 'shared-name' });
    const theirs = await v.connect({ rawSessionId: 'shared-name', credentials: v.venue.credentials.secondUser });
    await theirs.barrier();
    await mine.barrier();
    expect(mine.seen(isType('error'))).toHaveLength(0);
  });

  it('the percent-decoded value is the session: encoded and plain spellings are one session', async () => {
    const first = await v.connect({ rawSessionId: 'same.session' });
    await first.barrier();
    await v.connect({ rawSessionId: 'same%2Esession' });
    expect((await first.take(isType('error'))).json['code']).toBe('SESSION_REPLACED');
  });
});

describe('message handling (§4.2, §9, W9)', () => {
  it('a messageType outside the protocol is dropped with no reply and no error frame', async () => {
    const client = await v.connect();
    client.send({ messageType: 'ping' });
    client.send({ messageType: 'SUBSCRIBE', instrument: 'BTC.USD' });
    client.send({ messageType: 'heartbeat', extra: 1 });
    await client.barrier();
    expect(client.frames).toHaveLength(1);
  });

  it('a frame that is not a JSON object with a messageType gets error INVALID_MESSAGE; the socket stays open', async () => {
    const client = await v.connect();
    client.sendRaw('not json');
    client.sendRaw('[1,2]');
    client.sendRaw('{"messageType":5}');
    const errors = await client.takeMany(isType('error', { code: 'INVALID_MESSAGE' }), 3);
    expect(errors).toHaveLength(3);
    expect((await client.barrier()).json['success']).toBe(true);
  });

  it('unknown properties on a known message are ignored', async () => {
    const client = await v.connect();
    client.send({ messageType: 'accountGroups', requestId: 'x1', futureField: { a: 1 } });
    expect((await client.take(isType('accountGroups', { requestId: 'x1' }))).json['success']).toBe(true);
  });
});

describe('W12 account-group lookup', () => {
  it('lists the user’s groups with uuid, name, natural; requestId echoed', async () => {
    const client = await v.connect();
    client.send({ messageType: 'accountGroups', requestId: 'g1' });
    const reply = await client.take(isType('accountGroups', { requestId: 'g1' }));
    const groups = reply.json['accountGroups'] as Array<Record<string, unknown>>;
    expect(reply.json['success']).toBe(true);
    expect(groups.find((g) => g['uuid'] === v.venue.seed.defaultGroupUuid)).toMatchObject({ natural: true });
    expect(groups.find((g) => g['uuid'] === v.venue.seed.subGroupUuid)).toMatchObject({ natural: false });
    for (const g of groups) expect(typeof g['name']).toBe('string');
  });

  it('another user sees only their own groups', async () => {
    const client = await v.connect({ credentials: v.venue.credentials.secondUser });
    client.send({ messageType: 'accountGroups', requestId: 'g2' });
    const groups = (await client.take(isType('accountGroups', { requestId: 'g2' }))).json['accountGroups'] as Array<
      Record<string, unknown>
    >;
    expect(groups.map((g) => g['uuid'])).toEqual([v.venue.seed.user2DefaultGroup]);
  });

  it('the group it returns is what subscribe takes', async () => {
    const client = await v.connect();
    client.send({ messageType: 'accountGroups', requestId: 'g3' });
    const groups = (await client.take(isType('accountGroups', { requestId: 'g3' }))).json['accountGroups'] as Array<
      Record<string, unknown>
    >;
    const sub = groups.find((g) => g['natural'] === false);
    client.send({
      messageType: 'subscribe',
      instrument: 'ETH.USD',
      quantity: '1',
      currency: 'ETH',
      tenor: 'T',
      accountGrpUuid: sub?.['uuid'],
      tag: 'grp',
    });
    expect((await client.take(isType('subscribe', { tag: 'grp' }))).json['success']).toBe(true);
  });
});

describe('metrics', () => {
  it('exposes connection, frame and subscription metrics', async () => {
    const res = await fetch(`${v.venue.restBaseUrl}/metrics`);
    const text = await res.text();
    expect(text).toContain('sandbox_ws_connections');
    expect(text).toContain('sandbox_ws_frames_in_total');
    expect(text).toContain('sandbox_ws_refused_connections_total');
  });
});
