import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connect } from '@nats-io/transport-node';
import { jetstreamManager, StorageType } from '@nats-io/jetstream';
import { freePort } from './free-port.js';
import { untilNatsReady } from './nats-ready.js';
import { eventually } from './eventually.js';
import { acquireMachineLock } from './machine-lock.js';

export interface ClusterNode {
  readonly name: string;
  readonly port: number;
  readonly url: string;
  readonly running: boolean;
}

export interface NatsClusterHandle {
  /** Every node's client URL, comma-separated: what a client's `servers` (or NATS_URL) takes. */
  readonly url: string;
  readonly nodes: readonly ClusterNode[];
  /** Kills one node abruptly (SIGKILL), keeping its store. */
  kill(index: number): Promise<void>;
  /** Starts a killed node again on its port and store; resolves once JetStream answers through it. */
  restart(index: number): Promise<void>;
  /**
   * Starts every killed node again and resolves once each replicated file stream (buckets included) has a
   * leader and every replica is online and current: the next kill of any one node leaves a quorum.
   */
  heal(timeoutMs?: number): Promise<void>;
  /** The node currently leading a stream's replicas (undefined while there is none). */
  streamLeader(stream: string): Promise<string | undefined>;
  /** A node's index by name (-1 if none). */
  indexOf(name: string): number;
  stop(): Promise<void>;
}

interface NodeSpec {
  name: string;
  port: number;
  clusterPort: number;
  storeDir: string;
  child: ChildProcess | undefined;
}

/** How long a node (or the whole cluster) may take to answer JetStream: its meta leader election needs CPU in time. */
const READY_TIMEOUT_MS = 60_000;
/** How long a suite waits for another suite's cluster to stop (a cluster suite runs ≈ 1–2 minutes). */
export const CLUSTER_WAIT_MS = 240_000;

/**
 * A local JetStream cluster of real nats-servers (default three) on free loopback ports, each with its own
 * temporary store, routed to each other: for tests of replicated (R3) streams and of a node's death. One
 * cluster runs on the machine at a time (a machine lock, waited for here and released by `stop`): two
 * clusters' leader elections on two cores starve each other into timeouts.
 */
export async function startNatsCluster(options: { size?: number; binary?: string } = {}): Promise<NatsClusterHandle> {
  const lock = await acquireMachineLock('nats-cluster', { timeoutMs: CLUSTER_WAIT_MS });
  try {
    return await startLockedCluster(options, () => lock.release());
  } catch (error) {
    await lock.release();
    throw error;
  }
}

async function startLockedCluster(
  options: { size?: number; binary?: string },
  release: () => Promise<void>,
): Promise<NatsClusterHandle> {
  const size = options.size ?? 3;
  const binary = options.binary ?? process.env['NATS_SERVER_BIN'] ?? 'nats-server';
  const specs: NodeSpec[] = [];
  for (let i = 0; i < size; i += 1) {
    specs.push({
      name: `gw-node-${i + 1}`,
      port: await freePort(),
      clusterPort: await freePort(),
      storeDir: await mkdtemp(join(tmpdir(), `gw-nats-c${i + 1}-`)),
      child: undefined,
    });
  }
  const routes = specs.map((s) => `nats://127.0.0.1:${s.clusterPort}`).join(',');
  const url = specs.map((s) => `nats://127.0.0.1:${s.port}`).join(',');

  const launch = (spec: NodeSpec): Promise<void> => {
    const args = ['-a', '127.0.0.1', '-p', String(spec.port), '-n', spec.name, '-js', '-sd', spec.storeDir];
    args.push('--cluster_name', 'gw-test', '--cluster', `nats://127.0.0.1:${spec.clusterPort}`, '--routes', routes);
    const child = spawn(binary, args, { stdio: ['ignore', 'ignore', 'pipe'] });
    spec.child = child;
    return untilNatsReady(child, spec.name, READY_TIMEOUT_MS).then(() => {
      child.once('exit', () => {
        if (spec.child === child) spec.child = undefined;
      });
    });
  };

  const jetStreamAnswers = async (servers: string): Promise<boolean> => {
    const nc = await connect({ servers, timeout: 1_000, maxReconnectAttempts: 0 }).catch(() => undefined);
    if (nc === undefined) return false;
    try {
      const jsm = await jetstreamManager(nc, { timeout: 1_000 });
      await jsm.getAccountInfo();
      return true;
    } catch {
      return false;
    } finally {
      await nc.close();
    }
  };

  await Promise.all(specs.map(launch));
  await untilJetStream(() => jetStreamAnswers(url), 'the cluster');

  const stopNode = async (spec: NodeSpec, signal: NodeJS.Signals): Promise<void> => {
    const child = spec.child;
    if (child === undefined) return;
    const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
    child.kill(signal);
    const timer = setTimeout(() => child.kill('SIGKILL'), 5_000);
    await exited;
    clearTimeout(timer);
  };

  const restartNode = async (spec: NodeSpec): Promise<void> => {
    if (spec.child !== undefined) throw new Error(`${spec.name} is running`);
    await launch(spec);
    await untilJetStream(() => jetStreamAnswers(`nats://127.0.0.1:${spec.port}`), spec.name);
  };

  return {
    url,
    get nodes() {
      return specs.map((s) => ({
        name: s.name,
        port: s.port,
        url: `nats://127.0.0.1:${s.port}`,
        running: s.child !== undefined,
      }));
    },
    async kill(index) {
      await stopNode(nodeAt(specs, index), 'SIGKILL');
    },
    restart: (index) => restartNode(nodeAt(specs, index)),
    async heal(timeoutMs = 30_000) {
      for (const spec of specs) if (spec.child === undefined) await restartNode(spec);
      await eventually(async () => ((await replicasCurrentVia(url, size)) ? true : undefined), {
        what: 'every replica of every replicated stream current',
        timeoutMs,
        intervalMs: 250,
      });
    },
    async streamLeader(stream) {
      for (const spec of specs.filter((s) => s.child !== undefined)) {
        const leader = await streamLeaderVia(spec.port, stream).catch(() => undefined);
        if (leader !== undefined) return leader;
      }
      return undefined;
    },
    indexOf(name) {
      return specs.findIndex((s) => s.name === name);
    },
    async stop() {
      await Promise.all(specs.map((s) => stopNode(s, 'SIGTERM')));
      await Promise.all(specs.map((s) => rm(s.storeDir, { recursive: true, force: true })));
      await release();
    },
  };
}

function untilJetStream(answers: () => Promise<boolean>, who: string): Promise<true> {
  return eventually(async () => ((await answers()) ? true : undefined), {
    what: `JetStream answering through ${who}`,
    timeoutMs: READY_TIMEOUT_MS,
    intervalMs: 200,
  });
}

function nodeAt(specs: NodeSpec[], index: number): NodeSpec {
  const spec = specs[index];
  if (spec === undefined) throw new Error(`no cluster node ${index}`);
  return spec;
}

/** The node leading a stream's raft group, as the stream's info reports it. */
async function streamLeaderVia(port: number, stream: string): Promise<string | undefined> {
  const nc = await connect({ servers: `nats://127.0.0.1:${port}`, timeout: 1_000, maxReconnectAttempts: 0 });
  try {
    const jsm = await jetstreamManager(nc, { timeout: 1_000 });
    return (await jsm.streams.info(stream)).cluster?.leader;
  } finally {
    await nc.close();
  }
}

/** True when every replicated file stream has a leader and all its other replicas are online and current. */
async function replicasCurrentVia(servers: string, size: number): Promise<boolean> {
  const nc = await connect({ servers, timeout: 1_000, maxReconnectAttempts: 0 }).catch(() => undefined);
  if (nc === undefined) return false;
  try {
    const jsm = await jetstreamManager(nc, { timeout: 2_000 });
    for await (const info of jsm.streams.list()) {
      if (info.config.storage === StorageType.Memory || info.config.num_replicas < 2) continue;
      const replicas = info.cluster?.replicas ?? [];
      if (info.cluster?.leader === undefined || replicas.length !== Math.min(info.config.num_replicas, size) - 1) {
        return false;
      }
      if (replicas.some((r) => r.offline === true || !r.current)) return false;
    }
    return true;
  } catch {
    return false;
  } finally {
    await nc.close();
  }
}
