/**
 * What sequencing admissions across instances costs (docs/execution-risk.md, "one sequence of admissions"):
 * pre-trade risk's admit latency on one nats-server, in the same run — an instance deciding alone (the
 * baseline: no stream, as before sequencing), one instance publishing each admission in sequence, and two
 * instances admitting at the same time (each overtaken by the other now and then, then deciding again).
 * Rounds alternate between the three so a change of machine load hits all. Prints p50/p99/max µs per admit,
 * the ratio of each to the baseline's, and how many admissions were decided again.
 */
import { performance } from 'node:perf_hooks';
import { BusConnection, BusMetrics } from '#bus';
import { HealthRegistry, JsonLogger, MetricsRegistry } from '#observability';
import { systemClock } from '#actors';
import { startNatsServer } from '#testing';
import { limitsConfigFrom } from '../apps/execution/src/risk/limits.js';
import { RiskEngine } from '../apps/execution/src/risk/risk-engine.js';
import type { RiskOrder } from '../apps/execution/src/risk/risk-gate.js';
import { RiskMetrics } from '../apps/execution/src/risk/risk-metrics.js';
import { riskRuntimeOn } from '../apps/execution/src/risk/risk-runtime.js';
import { percentile } from './hop-recorder.js';

const ADMITS = Number(process.env['BENCH_ADMIT_COUNT'] ?? 600);
const ROUNDS = Number(process.env['BENCH_ADMIT_ROUNDS'] ?? 3);
const silent = new JsonLogger('bench-risk', 'bench', 'error', { write: () => undefined });

let next = 0;

/** A BUY of 0.001 BTC on a quote issued just now (no limits configured: every order is admitted). */
function order(): RiskOrder {
  next += 1;
  const now = Date.now();
  return {
    orderId: `bench-${process.pid}-${next}`,
    strategyId: 'bench',
    accountGroup: 'g1',
    side: 'BUY',
    instrument: 'BTC.USD',
    quote: {
      quoteId: `q-${next}`,
      status: 'live',
      venueTimestamp: now,
      quoteExpiresAt: now + 600_000,
      price: '50000',
      quantity: '0.001',
      quoteAmount: '50',
    },
  };
}

interface Instance {
  engine: RiskEngine;
  metrics: RiskMetrics;
  close(): Promise<void>;
}

async function sequencedInstance(url: string, name: string): Promise<Instance> {
  const registry = new MetricsRegistry('bench', { defaultMetrics: false });
  const busMetrics = new BusMetrics(registry);
  const connection = await BusConnection.open({ servers: url, name }, busMetrics, new HealthRegistry(), silent);
  const metrics = new RiskMetrics(registry);
  const engine = new RiskEngine(limitsConfigFrom({}), { clock: systemClock, metrics });
  const runtime = riskRuntimeOn(
    connection,
    busMetrics,
    { subjectPrefix: 'gw.v1', account: 'bench', killSwitch: false, instance: name },
    { engine, logger: silent, metrics },
  );
  await runtime.start();
  return {
    engine,
    metrics,
    close: async () => {
      await runtime.stop();
      await engine.stop();
      await connection.close();
    },
  };
}

/** `count` admits one after another at each engine (all at once), each one's latency in µs. */
async function admitAll(engines: RiskEngine[], count: number): Promise<number[]> {
  const latencies: number[] = [];
  await Promise.all(
    engines.map(async (engine) => {
      for (let i = 0; i < count / engines.length; i += 1) {
        const started = performance.now();
        const decision = await engine.admit(order(), Date.now());
        latencies.push((performance.now() - started) * 1_000);
        if (!decision.ok) throw new Error(`bench order refused: ${decision.code}`);
      }
    }),
  );
  return latencies;
}

export async function riskAdmissionFigure(): Promise<string> {
  const nats = await startNatsServer();
  const alone = new RiskEngine(limitsConfigFrom({}), { clock: systemClock }, { readable: true, entries: new Map() });
  const one = await sequencedInstance(nats.url, 'bench-one');
  const pair = [await sequencedInstance(nats.url, 'bench-a'), await sequencedInstance(nats.url, 'bench-b')];
  const modes = [
    { name: 'alone (no sequence: baseline)', engines: [alone], latencies: [] as number[] },
    { name: 'one instance, in sequence', engines: [one.engine], latencies: [] as number[] },
    { name: 'two instances at once, in sequence', engines: pair.map((i) => i.engine), latencies: [] as number[] },
  ];
  try {
    for (const mode of modes) await admitAll(mode.engines, 100); // warm-up
    for (let round = 0; round < ROUNDS; round += 1) {
      for (const mode of modes) mode.latencies.push(...(await admitAll(mode.engines, ADMITS)));
    }
    const sum = async (instances: Instance[], counter: (metrics: RiskMetrics) => RiskMetrics['admissionRetries']) => {
      let total = 0;
      for (const instance of instances) total += (await counter(instance.metrics).get()).values[0]?.value ?? 0;
      return total;
    };
    const retries = (instances: Instance[]) => sum(instances, (m) => m.admissionRetries);
    const unsequenced = (instances: Instance[]) => sum(instances, (m) => m.admissionsUnsequenced);
    const base = [...(modes[0]?.latencies ?? [])].sort((a, b) => a - b);
    const lines = [
      `risk admit latency, ${ROUNDS} rounds of ${ADMITS} admits per mode (µs; ratio to the baseline's):`,
      '| mode | p50 | p99 | max | p50 × | p99 × |',
      '|---|---|---|---|---|---|',
    ];
    for (const mode of modes) {
      const sorted = [...mode.latencies].sort((a, b) => a - b);
      const p50 = percentile(sorted, 50);
      const p99 = percentile(sorted, 99);
      lines.push(
        `| ${mode.name} | ${p50.toFixed(0)} | ${p99.toFixed(0)} | ${(sorted.at(-1) ?? 0).toFixed(0)} | ` +
          `${(p50 / percentile(base, 50)).toFixed(1)} | ${(p99 / percentile(base, 99)).toFixed(1)} |`,
      );
    }
    lines.push(
      `decided again (overtaken by the other instance): ${await retries(pair)} of ${ROUNDS * ADMITS + 100} ` +
        `two-instance admissions; one instance alone: ${await retries([one])} (the pair moved the sequence on ` +
        `between rounds); admitted without sequence (no answer in 1 s): ${await unsequenced([one, ...pair])}`,
    );
    return lines.join('\n');
  } finally {
    for (const instance of [one, ...pair]) await instance.close();
    await alone.stop();
    await nats.stop();
  }
}
