/**
 * An idle gateway keeps a steady number of JetStream consumers. Execution's ownership sweep lists the open
 * orders several times a second here (OWNERSHIP_SWEEP_MS 300); each list, like any KV read over many keys,
 * once left a consumer on its bucket's stream until the server's 5-minute inactivity expiry (hundreds on
 * `KV_GW_EXEC_ORDERS_{account}` of a live stack). All three apps run, so a periodic read of any of them shows.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { listOrders } from '../execution/execution-stack.js';
import { startGatewayStack, type GatewayStack } from '../monitoring/gateway-stack.js';

describe('the gateway at rest: consumers stay bounded', () => {
  let stack: GatewayStack;

  beforeAll(async () => {
    stack = await startGatewayStack({});
  }, 120_000);
  afterAll(async () => {
    await stack?.stop();
  });

  /** Consumers per stream, streams without any left out. */
  async function consumersByStream(): Promise<Record<string, number>> {
    const counts: Record<string, number> = {};
    for (const stream of await stack.jsm.streams.names().next()) {
      const consumers = await stack.jsm.consumers.list(stream).next();
      if (consumers.length > 0) counts[stream] = consumers.length;
    }
    return counts;
  }

  const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

  it('many sweeps and order lists later, no stream holds more consumers than before', async () => {
    await pause(2_000); // past the start-up phase: every long-lived consumer is in place
    const before = await consumersByStream();
    for (let list = 0; list < 5; list += 1) {
      expect((await listOrders(stack.strategy)).ok).toBe(true);
    }
    await pause(3_000); // 10 ownership sweeps, 15 withdrawal polls
    const grownSince = async () =>
      Object.entries(await consumersByStream()).filter(([stream, count]) => count > (before[stream] ?? 0));
    // a read in flight holds its consumer for a moment: only growth that stays counts
    let grown = await grownSince();
    for (let sample = 0; sample < 5 && grown.length > 0; sample += 1) {
      await pause(200);
      grown = await grownSince();
    }
    expect({ grown, before }).toEqual({ grown: [], before });
  }, 60_000);
});
