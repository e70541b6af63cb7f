import { describe, expect, it } from '@jest/globals';
import { connect } from '@nats-io/transport-node';
import { startNatsServer } from '#testing';
import { isBusUnavailable } from './bus-unavailable.js';

describe('isBusUnavailable', () => {
  it('a request cut off by the server going away is unavailability (also as a cause); a plain error is not', async () => {
    const server = await startNatsServer();
    const client = await connect({ servers: server.url, reconnect: false });
    client.subscribe('silent.responder'); // takes the request, never answers
    await client.flush();
    const pending = client.request('silent.responder', '', { timeout: 20_000 }).catch((e: unknown) => e);
    const stopped = server.stop();
    const error = await pending;
    await stopped;
    expect(isBusUnavailable(error)).toBe(true);
    expect(isBusUnavailable(new Error('ledger unavailable', { cause: error }))).toBe(true);
    expect(isBusUnavailable(new Error('bad setting'))).toBe(false);
    expect(isBusUnavailable('text')).toBe(false);
    await client.close().catch(() => undefined);
  });
});
