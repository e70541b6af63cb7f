import { describe, expect, it } from '@jest/globals';
import { startNatsServer } from '#testing';
import { GatewayClient } from './gateway-client.js';

describe('GatewayClient.close', () => {
  it('ends even when NATS went away and the client is reconnecting (outside tester: `gw buy` hung on exit)', async () => {
    const nats = await startNatsServer();
    const client = await GatewayClient.connect({ servers: nats.url, account: 'close-test' });
    await nats.stop();
    // a drain that cannot finish gives way to a plain close (bounded), and the connection is closed
    await expect(client.close()).resolves.toBeUndefined();
    await expect(client.close()).resolves.toBeUndefined(); // again: nothing left to do
  }, 15_000);
});
