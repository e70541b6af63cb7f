import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { connect, type NatsConnection } from '@nats-io/transport-node';
import { jetstream, jetstreamManager, StorageType } from '@nats-io/jetstream';
import { CLUSTER_WAIT_MS, startNatsCluster, type NatsClusterHandle } from './nats-cluster.js';
import { eventually } from './eventually.js';

describe('startNatsCluster', () => {
  let cluster: NatsClusterHandle;
  let nc: NatsConnection;

  beforeAll(async () => {
    cluster = await startNatsCluster();
    nc = await connect({ servers: cluster.url, maxReconnectAttempts: -1, reconnectTimeWait: 100 });
  }, 60_000 + CLUSTER_WAIT_MS); // the cluster may wait for another suite's to stop

  afterAll(async () => {
    await nc?.close();
    await cluster?.stop();
  });

  it('runs three routed JetStream nodes whose replicated stream survives the death of one', async () => {
    await cluster.heal(); // three nodes to start from (a retry after a failed attempt finds one down)
    expect(cluster.nodes.map((n) => n.running)).toEqual([true, true, true]);
    const jsm = await jetstreamManager(nc);
    await jsm.streams.add({ name: 'R3', subjects: ['r3.>'], num_replicas: 3, storage: StorageType.File });
    const js = jetstream(nc);
    await js.publish('r3.a', 'one', { msgID: 'one' });

    const leader = await eventually(() => cluster.streamLeader('R3'), { what: 'a leader of R3' });
    const victim = cluster.indexOf(leader);
    expect(victim).toBeGreaterThanOrEqual(0);
    await cluster.kill(victim); // the stream's leader: the others elect a new one
    expect(cluster.nodes[victim]?.running).toBe(false);

    const stored = await eventually(
      async () => {
        const ack = await js.publish('r3.a', 'two', { msgID: 'two', timeout: 1_000 }).catch(() => undefined);
        return ack?.seq;
      },
      { what: 'a publish acknowledged by the two remaining nodes', timeoutMs: 20_000 },
    );
    expect(stored).toBe(2);
    const info = await jsm.streams.info('R3');
    expect(info.state.messages).toBe(2);
    expect(info.cluster?.replicas?.length).toBe(2);

    expect(await eventually(() => cluster.streamLeader('R3'), { what: 'a new leader' })).not.toBe(leader);

    await cluster.restart(victim);
    expect(cluster.nodes[victim]?.running).toBe(true);
  }, 60_000);

  it('heals: a killed node is started again and its replica catches up with what was stored without it', async () => {
    await cluster.heal(); // three nodes to start from (a retry after a failed attempt finds one down)
    const js = jetstream(nc);
    const jsm = await jetstreamManager(nc);
    const node = cluster.nodes.findIndex((n) => n.running);
    await cluster.kill(node);
    for (let i = 0; i < 5; i += 1) {
      // the elections after a kill take longer on a machine the other cluster suite keeps busy
      await eventually(() => js.publish('r3.b', `m${i}`, { msgID: `b${i}`, timeout: 1_000 }).catch(() => undefined), {
        what: `message ${i} stored without the killed node`,
        timeoutMs: 40_000,
      });
    }
    await cluster.heal();
    expect(cluster.nodes.map((n) => n.running)).toEqual([true, true, true]);
    const replicas = (await jsm.streams.info('R3')).cluster?.replicas ?? [];
    expect(replicas).toHaveLength(2);
    expect(replicas.every((r) => r.current && r.offline !== true)).toBe(true);
  }, 90_000);
});
