/**
 * The connector on a local three-node JetStream cluster with its durable streams and order marks replicated
 * (NATS_REPLICAS=3). While orders flow, the node leading the order-outcome stream is killed: every order
 * still gets exactly one final outcome, stored once, and the venue executes each order once.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { connect, type NatsConnection } from '@nats-io/transport-node';
import { jetstream, jetstreamManager, type JetStreamClient, type JetStreamManager } from '@nats-io/jetstream';
import { isFinalStatus, StreamName } from '#contracts';
import { loadConfig } from '#observability';
import { CLUSTER_WAIT_MS, eventually, startNatsCluster, type NatsClusterHandle, type NatsServerHandle } from '#testing';
import type { RunningSandbox } from '../../apps/sandbox-venue/src/bootstrap.js';
import { startConnector, type RunningConnector } from '../../apps/connector/src/bootstrap.js';
import { ConnectorConfig } from '../../apps/connector/src/config.js';
import { startE2eVenue } from '../kit/e2e-venue.js';
import {
  ACCOUNT,
  connectorEnv,
  liveQuotes,
  metricSum,
  storedOutcomes,
  subjects,
} from '../connector/connector-stack.js';

const ORDERS = 8;

describe('connector on a three-node JetStream cluster', () => {
  let cluster: NatsClusterHandle;
  let venue: RunningSandbox;
  let connector: RunningConnector;
  let strategy: NatsConnection;
  let js: JetStreamClient;
  let jsm: JetStreamManager;

  beforeAll(async () => {
    cluster = await startNatsCluster();
    venue = await startE2eVenue({ trading: { priceIntervalMs: 50, offContractEveryNTicks: 0 } });
    const env = connectorEnv({ url: cluster.url } as NatsServerHandle, venue, { NATS_REPLICAS: '3' });
    connector = await startConnector(loadConfig(ConnectorConfig, env));
    strategy = await connect({ servers: cluster.url.split(','), maxReconnectAttempts: -1, reconnectTimeWait: 100 });
    js = jetstream(strategy);
    jsm = await jetstreamManager(strategy);
  }, 60_000 + CLUSTER_WAIT_MS); // the cluster may wait for another suite's to stop

  afterAll(async () => {
    await strategy?.close();
    await connector?.close();
    await venue?.close();
    await cluster?.stop();
  });

  /** The execution app's way, retried while the cluster elects a leader (same msgId: stored once). */
  async function sendCommand(clientRequestId: string, quoteId: string): Promise<void> {
    await eventually(
      async () =>
        (await js
          .publish(subjects.orderCommand, JSON.stringify({ clientRequestId, quoteId, side: 'BUY' }), {
            msgID: clientRequestId,
            timeout: 2_000,
          })
          .then(() => true)
          .catch(() => undefined)) ?? undefined,
      { what: `command ${clientRequestId} stored`, timeoutMs: 60_000, intervalMs: 200 },
    );
  }

  it('streams are R3; killing the outcome stream leader mid-flow loses no outcome and doubles no order', async () => {
    // a retried test starts from a whole cluster: a node its first attempt killed is started again
    await cluster.heal();
    const outcomesStream = StreamName.orderOutcomes(ACCOUNT);
    expect((await jsm.streams.info(outcomesStream)).config.num_replicas).toBe(3);
    expect((await jsm.streams.info(StreamName.orderCommands(ACCOUNT))).config.num_replicas).toBe(3);

    // ids of this attempt only: a retried test must not meet its first attempt's commands
    const attempt = randomUUID().slice(0, 8);
    const ids = Array.from({ length: ORDERS }, (_, i) => `cl-ord-${attempt}-${i}`);
    const quoteIds = await liveQuotes(strategy, venue, 'cluster-test', ORDERS);
    const filledBefore = await metricSum(venue.restBaseUrl, 'sandbox_orders_total');
    for (const [i, id] of ids.entries()) {
      if (i === ORDERS / 2) {
        const leader = await eventually(() => cluster.streamLeader(outcomesStream), { what: 'the outcome leader' });
        await cluster.kill(cluster.indexOf(leader));
      }
      await sendCommand(id, quoteIds[i] ?? '');
    }

    for (const id of ids) {
      const finals = await eventually(
        async () => {
          const stored = await storedOutcomes(jsm, id).catch(() => []);
          const final = stored.filter((o) => isFinalStatus(o.status));
          return final.length > 0 ? final : undefined;
        },
        { what: `the final outcome of ${id}`, timeoutMs: 80_000, intervalMs: 250 },
      );
      expect(finals).toHaveLength(1);
      const statuses = (await storedOutcomes(jsm, id)).map((o) => o.status);
      expect(new Set(statuses).size).toBe(statuses.length); // each state stored once
    }
    // each order reached the venue once: PENDING plus one final per order (sandbox_orders_total counts both)
    expect((await metricSum(venue.restBaseUrl, 'sandbox_orders_total')) - filledBefore).toBe(2 * ORDERS);
  }, 180_000);

  it('the node holding the prices stream (memory, one copy) dies: the stream is created again on a live node and refilled', async () => {
    await cluster.heal();
    const pricesStream = StreamName.prices(ACCOUNT);
    await liveQuotes(strategy, venue, 'cluster-prices', 1); // a stream held, its prices flowing
    const holder = await eventually(() => cluster.streamLeader(pricesStream), { what: 'the prices stream node' });
    await cluster.kill(cluster.indexOf(holder));
    // the meta layer keeps listing it on the dead node; two topology checks (15 s apart) find it unserved
    const moved = await eventually(
      async () => {
        const info = await jsm.streams.info(pricesStream).catch(() => undefined);
        const leader = info?.cluster?.leader;
        return leader !== undefined && leader !== holder && (info?.state.messages ?? 0) > 0 ? leader : undefined;
      },
      {
        what: 'the prices stream served again, by another node, with prices in it',
        timeoutMs: 90_000,
        intervalMs: 1_000,
      },
    );
    expect(moved).not.toBe(holder);
  }, 150_000);
});
