/**
 * `npm run bench`: the price hop (venue frame → a strategy's NATS message) and CPU per message of the
 * connector, side by side with a bare relay (ws → JSON.parse → publish), in one run against one
 * nats-server and one frame source (see frame-source.ts for why not the sandbox). Each pipeline runs in
 * its own process, one after the other, so their CPU is measured apart and they do not compete for the
 * machine's cores; the frame source and the receiving strategy share the bench process and its clock.
 * Then the restart → first order figure (restart.ts). Bounded: stops itself after BENCH_DEADLINE_MS
 * (default 220 s) whatever happens.
 * A second relay ("stored relay") publishes on subjects captured by a memory stream with one message per
 * subject, as the connector's price subjects are (its last-value store for late joiners): the issue's bare
 * relay has none, and the difference between the two relays is the nats-server storing each price.
 * BENCH_BASELINE_MAIN=<path to another build's dist/apps/connector/src/main.js> adds that connector as a
 * further pipeline ("baseline"), so a change can be compared with the code before it in the same run.
 */
import 'reflect-metadata';
import { fork, spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { dirname, join } from 'node:path';
import { connect, type NatsConnection } from '@nats-io/transport-node';
import { jetstreamManager, StorageType } from '@nats-io/jetstream';
import { freePort, startNatsServer, type NatsServerHandle } from '#testing';
import { FrameSource, type SourceConnection } from './frame-source.js';
import { HopRecorder, percentile } from './hop-recorder.js';
import { processCpuMicros, processCpuSplit, processSyscalls, threadCpuMicros, type ThreadCpu } from './process-cpu.js';
import { restartFigure } from './restart.js';
import { executionOrderFigures } from './execution.js';
import { riskAdmissionFigure } from './risk-admissions.js';
import { webhookIngestFigure } from './webhook-ingest.js';
import { tradeSyncFigure } from './trade-sync.js';
import { tradeSweepStartFigure } from './trade-sweep-start.js';
import { balanceCheckFigure } from './balance-check.js';
import { CONNECTOR_NODE_FLAGS } from '../tools/stack/src/apps.js';

const RATE = Number(process.env['BENCH_RATE'] ?? 2_000);
const STREAMS = Number(process.env['BENCH_STREAMS'] ?? 500);
const WARMUP_MS = Number(process.env['BENCH_WARMUP_MS'] ?? 5_000);
/** Measured time per pipeline and round; the pipelines alternate so a change of machine load hits both. */
const MEASURE_MS = Number(process.env['BENCH_MEASURE_MS'] ?? 2_000);
const ROUNDS = Number(process.env['BENCH_ROUNDS'] ?? 6);
const DEADLINE_MS = Number(process.env['BENCH_DEADLINE_MS'] ?? 220_000); // + the trade-history sync figure (issue 9)
const BASELINE_MAIN = process.env['BENCH_BASELINE_MAIN'];
/** The relay whose subjects are stored in a last-value stream, and its subject prefix. */
const STORED_RELAY = 'stored relay';
const STORED_RELAY_PREFIX = 'bench.storedrelay';
/**
 * BENCH_RELAY_VARIANTS=fat,fat-worker adds the relay again in a process that loaded the connector's modules and
 * holds a heap of its size, and the same with the relay in a worker thread (bench/relay.ts), after the others.
 */
const RELAY_VARIANTS = (process.env['BENCH_RELAY_VARIANTS'] ?? '').split(',').filter((v) => v !== '');
/** BENCH_RESTART=0 skips the restart → first order figure (e.g. while repeating the price rounds). */
const RESTART_FIGURE = process.env['BENCH_RESTART'] !== '0';

const here = dirname(fileURLToPath(import.meta.url));
const root = join(here, '..', '..');

interface Result {
  name: string;
  sent: number;
  received: number;
  hops: number[];
  cpuMicrosPerMessage: number;
  /** CPU µs per message of each measured round. */
  roundCpu: number[];
  /** CPU ms per second while the process had no frames. */
  idleCpuMsPerSecond: number;
  /** Kernel (system) CPU µs per message, part of cpuMicrosPerMessage. */
  systemMicrosPerMessage: number;
  inProcess: string;
  /** Resident memory of the pipeline's process after the rounds, with every stream subscribed (MB). */
  rssMb: number;
  /** CPU µs per message of the main thread and of the others, over the measured rounds. */
  threads: ThreadCpu;
  /** Read and write system calls per message over the measured rounds (socket reads and writes). */
  syscalls: { reads: number; writes: number };
  /** Minor page faults per message over the measured rounds. */
  minorFaults: number;
}

interface Pipeline {
  name: string;
  child: ChildProcess;
  connection: SourceConnection;
  recorder: HopRecorder;
  sent: number;
  received: number;
  cpuMicros: number;
  hops: number[];
  roundCpu: number[];
  /** CPU the process spent while another pipeline was measured (no frames for it): its background work. */
  idleCpuMicros: number;
  idleMs: number;
  /** The kernel's part of cpuMicros (socket reads and writes). */
  systemCpuMicros: number;
  /** CPU µs of the main thread and of the others over the measured rounds. */
  threadCpu: ThreadCpu;
  syscalls: { reads: number; writes: number };
  minorFaults: number;
  /** `/metrics` of the pipeline's process, when it has one. */
  metricsUrl?: string;
  stop(): Promise<void>;
}

const children: ChildProcess[] = [];
let nats: NatsServerHandle | undefined;
let source: FrameSource | undefined;

async function main(): Promise<void> {
  const deadline = setTimeout(() => {
    process.stderr.write(`bench: deadline of ${DEADLINE_MS} ms reached; stopping\n`);
    void cleanup().finally(() => process.exit(2));
  }, DEADLINE_MS);
  deadline.unref();
  // BENCH_ONLY=trade-sync: only the trade-history sync figure (issue 9)
  if (process.env['BENCH_ONLY'] === 'trade-sync') {
    process.stdout.write(`${await tradeSyncFigure(root)}\n`);
    clearTimeout(deadline);
    return;
  }
  // BENCH_ONLY=balance-check: only the account-sync balance check's cost per sync trigger and the sweeps' starts
  // (in process, no I/O); BENCH_ONLY=trade-sweep-start: the trade sweep's start alone
  if (process.env['BENCH_ONLY'] === 'balance-check') {
    process.stdout.write(`${balanceCheckFigure()}\n\n${await tradeSweepStartFigure()}\n`);
    clearTimeout(deadline);
    return;
  }
  if (process.env['BENCH_ONLY'] === 'trade-sweep-start') {
    process.stdout.write(`${await tradeSweepStartFigure()}\n`);
    clearTimeout(deadline);
    return;
  }
  // BENCH_ONLY=admissions: only the cost of sequencing risk admissions across execution instances
  if (process.env['BENCH_ONLY'] === 'admissions') {
    process.stdout.write(`${await riskAdmissionFigure()}\n`);
    clearTimeout(deadline);
    return;
  }
  // BENCH_ONLY=webhooks: only the webhook ingest figure (issue 9)
  if (process.env['BENCH_ONLY'] === 'webhooks') {
    process.stdout.write(`${await webhookIngestFigure(here)}\n`);
    clearTimeout(deadline);
    return;
  }

  nats = await startNatsServer();
  const pipelineCount = (BASELINE_MAIN === undefined ? 3 : 4) + RELAY_VARIANTS.length;
  source = new FrameSource(Math.ceil(((WARMUP_MS + MEASURE_MS * ROUNDS) * RATE * pipelineCount * 1.1) / 1000) + 10_000);
  const urls = await source.listen();
  const strategy = await connect({ servers: nats.url, name: 'bench-strategy' });
  log(`frame source ${urls.wsUrl}; nats ${nats.url}; ${RATE} updates/s over ${STREAMS} streams`);

  const jsm = await jetstreamManager(strategy);
  await jsm.streams.add({
    name: 'bench-stored-relay',
    subjects: [`${STORED_RELAY_PREFIX}.>`],
    storage: StorageType.Memory,
    max_msgs_per_subject: 1,
    allow_direct: true,
  });
  const pipelines = [
    await startRelay('bare relay', 'bench.relay', strategy, source, urls.wsUrl, nats.url),
    await startRelay(STORED_RELAY, STORED_RELAY_PREFIX, strategy, source, urls.wsUrl, nats.url),
  ];
  pipelines.push(
    await startConnectorPipeline(
      'connector',
      join(root, 'dist/apps/connector/src/main.js'),
      strategy,
      source,
      urls,
      nats.url,
    ),
  );
  if (BASELINE_MAIN !== undefined) {
    pipelines.push(await startConnectorPipeline('baseline', BASELINE_MAIN, strategy, source, urls, nats.url));
  }
  for (const variant of RELAY_VARIANTS) {
    const name = `${variant} relay`;
    pipelines.push(await startRelay(name, `bench.${variant}`, strategy, source, urls.wsUrl, nats.url, variant));
  }
  // Warm-up in alternating 1 s slices: a pipeline's CPU per message keeps falling for several seconds
  // (JIT, the server's buffers), and one left idle while the other warms cools again.
  for (let warmed = 0; warmed < WARMUP_MS; warmed += 1_000) {
    for (const pipeline of pipelines) await source.emit(pipeline.connection, RATE, Math.min(1_000, WARMUP_MS - warmed));
  }
  for (let round = 1; round <= ROUNDS; round += 1) {
    log(`round ${round}/${ROUNDS}`);
    for (const pipeline of pipelines) await measure(pipeline, pipelines);
  }
  const results: Result[] = [];
  for (const p of pipelines) results.push(await result(p));
  for (const p of pipelines) await p.stop();
  await strategy.close();
  printTable(results);
  if (RESTART_FIGURE) {
    log('restart figure');
    process.stdout.write(`${await restartFigure(root)}\n`);
  }
  // BENCH_ONLY=prices: the price hop, RSS and restart figures only (a quick run of issue 7's table)
  const pricesOnly = process.env['BENCH_ONLY'] === 'prices';
  if (!pricesOnly) {
    process.stdout.write(`${await webhookIngestFigure(here)}\n`);
    process.stdout.write(`${await tradeSyncFigure(root)}\n`);
    process.stdout.write(`${await riskAdmissionFigure()}\n`);
  }
  clearTimeout(deadline);
  await cleanup();
  if (!pricesOnly) process.stdout.write(`${await executionOrderFigures(root)}\n`);
}

async function startRelay(
  name: string,
  subjectPrefix: string,
  strategy: NatsConnection,
  frames: FrameSource,
  wsUrl: string,
  natsUrl: string,
  variant = '',
): Promise<Pipeline> {
  const recorder = new HopRecorder(frames.sentAt);
  const sub = strategy.subscribe(`${subjectPrefix}.>`, { callback: (_e, msg) => recorder.onMessage(msg.data) });
  await strategy.flush();
  // BENCH_RELAY_NODE_ARGS, e.g. "--cpu-prof", for the relay processes
  const execArgv = (process.env['BENCH_RELAY_NODE_ARGS'] ?? '').split(' ').filter((a) => a !== '');
  const child = fork(join(here, 'relay.js'), [wsUrl, natsUrl, String(STREAMS), subjectPrefix], {
    stdio: 'inherit',
    execArgv,
    env: { ...process.env, RELAY_VARIANT: variant },
  });
  children.push(child);
  await new Promise<void>((resolve, reject) => {
    child.once('message', () => resolve());
    child.once('exit', (code) => reject(new Error(`${name} exited early (${code})`)));
  });
  const connection = lastConnection(frames);
  child.removeAllListeners('exit');
  failOnExit(child, name);
  log(`${name}: subscribed`);
  return pipeline(name, child, connection, recorder, async () => {
    child.removeAllListeners('exit');
    child.send('stop');
    await exited(child);
    sub.unsubscribe();
  });
}

async function startConnectorPipeline(
  name: string,
  main: string,
  strategy: NatsConnection,
  frames: FrameSource,
  urls: { restBaseUrl: string; wsUrl: string },
  natsUrl: string,
): Promise<Pipeline> {
  const recorder = new HopRecorder(frames.sentAt);
  // each connector its own subject prefix and account: their prices and streams stay apart
  const prefix = `gw.${name}`;
  const sub = strategy.subscribe(`${prefix}.price.>`, { callback: (_e, msg) => recorder.onMessage(msg.data) });
  await strategy.flush();
  const port = await freePort();
  // BENCH_CONNECTOR_NODE_ARGS, e.g. "--cpu-prof" or "--trace-gc", for the connector process(es);
  // BENCH_CONNECTOR_STDOUT=inherit shows their stdout (the --trace-gc lines; logs are at level error)
  const nodeArgs = (process.env['BENCH_CONNECTOR_NODE_ARGS'] ?? '').split(' ').filter((a) => a !== '');
  const stdout = process.env['BENCH_CONNECTOR_STDOUT'] === 'inherit' ? 'inherit' : 'ignore';
  const known = frames.connections.length;
  // started as the launcher starts it (its node flags), then the bench's own
  const child = spawn(process.execPath, [...CONNECTOR_NODE_FLAGS, ...nodeArgs, main], {
    stdio: ['ignore', stdout, 'inherit'],
    env: {
      ...process.env,
      LOG_LEVEL: 'error',
      HTTP_PORT: String(port),
      HTTP_HOST: '127.0.0.1',
      NATS_URL: natsUrl,
      NATS_SUBJECT_PREFIX: prefix,
      ACCOUNT: name,
      VENUE_REST_URL: urls.restBaseUrl,
      VENUE_WS_URL: urls.wsUrl,
      VENUE_API_KEY: 'bench-key',
      VENUE_API_SECRET: Buffer.from('bench-secret').toString('base64'),
      VENUE_SESSION_ID: 'bench-session',
      VENUE_MESSAGES_PER_SECOND: '5000',
      DEFAULT_METRICS: 'false',
    },
  });
  children.push(child);
  failOnExit(child, name);
  await until(
    async () => (await fetch(`http://127.0.0.1:${port}/health`).catch(() => undefined))?.status === 200,
    20_000,
  );
  // This connector's socket is the first one opened after it started (its /health may answer before it).
  await until(() => frames.connections.length > known, 20_000);
  const connection = frames.connections[known] as SourceConnection;
  const requests = Array.from({ length: STREAMS }, (_, i) =>
    strategy.request(
      `${prefix}.${name}.stream.subscribe`,
      JSON.stringify({
        instrument: 'BTC.USD',
        quantity: (0.01 * (i + 1)).toFixed(2),
        currency: 'BTC',
        tenor: 'T',
        accountGroup: 'bench-group',
        requester: 'bench-strategy',
        leaseSeconds: 600,
      }),
      { timeout: 15_000 },
    ),
  );
  const replies = await Promise.all(requests);
  const refused = replies.map((r) => r.json<{ ok: boolean }>()).filter((r) => !r.ok);
  if (refused.length > 0) throw new Error(`connector refused ${refused.length} streams: ${JSON.stringify(refused[0])}`);
  await until(() => connection.streams.length === STREAMS, 10_000);
  log(`${name}: subscribed`);
  const connector = pipeline(name, child, connection, recorder, async () => {
    child.removeAllListeners('exit');
    child.kill('SIGTERM');
    await exited(child);
    sub.unsubscribe();
  });
  connector.metricsUrl = `http://127.0.0.1:${port}/metrics`;
  return connector;
}

/**
 * The connector's own share of the hop, from its `connector_price_hop_seconds` histogram (venue frame
 * arrival → PriceMessage handed to the NATS client), over the whole run including warm-up.
 */
async function inProcessHops(metricsUrl: string): Promise<string> {
  const text = await (await fetch(metricsUrl)).text();
  const buckets = [...text.matchAll(/^connector_price_hop_seconds_bucket\{le="([^"]+)"[^}]*\} (\d+)$/gm)];
  const count = Number(/^connector_price_hop_seconds_count\{[^}]*\} (\d+)$/m.exec(text)?.[1] ?? 0);
  if (count === 0) return 'no in-process hop histogram';
  const shares = buckets
    .filter(([, le]) => ['0.00005', '0.0001', '0.0003', '0.001'].includes(le ?? ''))
    .map(([, le, n]) => `${((Number(n) / count) * 100).toFixed(1)}% ≤ ${Math.round(Number(le) * 1e6)} µs`);
  return `${count} updates: ${shares.join(', ')}`;
}

function pipeline(
  name: string,
  child: ChildProcess,
  connection: SourceConnection,
  recorder: HopRecorder,
  stop: () => Promise<void>,
): Pipeline {
  return {
    name,
    child,
    connection,
    recorder,
    sent: 0,
    received: 0,
    cpuMicros: 0,
    hops: [],
    roundCpu: [],
    idleCpuMicros: 0,
    idleMs: 0,
    systemCpuMicros: 0,
    threadCpu: { main: 0, others: 0 },
    syscalls: { reads: 0, writes: 0 },
    minorFaults: 0,
    stop,
  };
}

/** One measured window: frames to this pipeline only; its process's CPU from first frame to last delivery. */
async function measure(p: Pipeline, all: Pipeline[]): Promise<void> {
  const frames = source as FrameSource;
  const pid = p.child.pid ?? 0;
  const others = all.filter((o) => o !== p);
  const othersBefore = others.map((o) => processCpuMicros(o.child.pid ?? 0));
  const before = processCpuSplit(pid);
  const threadsBefore = threadCpuMicros(pid);
  const syscallsBefore = processSyscalls(pid);
  const cpuBefore = processCpuMicros(pid);
  const started = performance.now();
  const [first, end] = await frames.emit(p.connection, RATE, MEASURE_MS);
  await until(() => p.recorder.received(first, end) === end - first, 2_000).catch(() => undefined);
  const after = processCpuSplit(pid);
  const cpu = processCpuMicros(pid) - cpuBefore;
  const threadsAfter = threadCpuMicros(pid);
  const syscallsAfter = processSyscalls(pid);
  p.syscalls.reads += syscallsAfter.reads - syscallsBefore.reads;
  p.syscalls.writes += syscallsAfter.writes - syscallsBefore.writes;
  p.threadCpu.main += threadsAfter.main - threadsBefore.main;
  p.threadCpu.others += threadsAfter.others - threadsBefore.others;
  p.systemCpuMicros += after.system - before.system;
  p.minorFaults += after.minorFaults - before.minorFaults;
  const elapsedMs = performance.now() - started;
  others.forEach((o, i) => {
    o.idleCpuMicros += processCpuMicros(o.child.pid ?? 0) - (othersBefore[i] ?? 0);
    o.idleMs += elapsedMs;
  });
  const received = p.recorder.received(first, end);
  p.cpuMicros += cpu;
  p.roundCpu.push(cpu / Math.max(1, received));
  p.sent += end - first;
  p.received += received;
  p.hops.push(...p.recorder.hopsMicros(first, end));
}

async function result(p: Pipeline): Promise<Result> {
  return {
    name: p.name,
    sent: p.sent,
    received: p.received,
    hops: [...p.hops].sort((a, b) => a - b),
    cpuMicrosPerMessage: p.cpuMicros / Math.max(1, p.received),
    roundCpu: p.roundCpu,
    idleCpuMsPerSecond: p.idleCpuMicros / Math.max(1, p.idleMs),
    systemMicrosPerMessage: p.systemCpuMicros / Math.max(1, p.received),
    inProcess: p.metricsUrl === undefined ? '' : await inProcessHops(p.metricsUrl),
    rssMb: residentMb(p.child.pid ?? 0),
    threads: {
      main: p.threadCpu.main / Math.max(1, p.received),
      others: p.threadCpu.others / Math.max(1, p.received),
    },
    syscalls: {
      reads: p.syscalls.reads / Math.max(1, p.received),
      writes: p.syscalls.writes / Math.max(1, p.received),
    },
    minorFaults: p.minorFaults / Math.max(1, p.received),
  };
}

/** VmRSS of a process from /proc (Linux), in MB. */
function residentMb(pid: number): number {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    const kb = Number(/VmRSS:\s+(\d+) kB/.exec(status)?.[1] ?? Number.NaN);
    return kb / 1024;
  } catch {
    return Number.NaN;
  }
}

const PERCENTILES = [50, 90, 99, 99.9];

function printTable(results: Result[]): void {
  const [relay] = results as [Result];
  const columns = [
    ...PERCENTILES.map((p) => ({ title: `p${p}`, value: (r: Result) => percentile(r.hops, p) })),
    { title: 'max', value: (r: Result) => r.hops[r.hops.length - 1] ?? Number.NaN },
    { title: 'idle CPU ms/s', value: (r: Result) => r.idleCpuMsPerSecond },
    { title: 'sys µs/msg', value: (r: Result) => r.systemMicrosPerMessage },
    { title: 'CPU µs/msg', value: (r: Result) => r.cpuMicrosPerMessage },
  ];
  const width = 13;
  const header = ['pipeline'.padEnd(14), 'delivered'.padStart(13), ...columns.map((c) => c.title.padStart(width))];
  const lines = [
    '',
    'price hop, venue frame → strategy NATS message (µs); CPU of the pipeline process per message',
    `${RATE} updates/s over ${STREAMS} streams; ${ROUNDS} alternating rounds of ${MEASURE_MS / 1000} s per pipeline ` +
      `after ${WARMUP_MS / 1000} s warm-up; the ${STORED_RELAY}'s subjects are stored in a last-value stream ` +
      'as the connector prices are',
    '',
    header.join(' '),
  ];
  for (const r of results) {
    lines.push(
      [
        r.name.padEnd(14),
        `${r.received}/${r.sent}`.padStart(13),
        ...columns.map((c, i) =>
          c
            .value(r)
            .toFixed(i > PERCENTILES.length ? 1 : 0)
            .padStart(width),
        ),
      ].join(' '),
    );
  }
  for (const r of results.slice(1)) {
    lines.push(
      [
        `${r.name} / relay`.padEnd(28),
        ...columns.map((c) =>
          (c.title.startsWith('idle') ? '' : `${(c.value(r) / c.value(relay)).toFixed(2)}×`).padStart(width),
        ),
      ].join(' '),
    );
  }
  lines.push('');
  for (const r of results) {
    lines.push(`${r.name}: CPU µs/msg by round ${r.roundCpu.map((x) => x.toFixed(1)).join(', ')}`);
  }
  for (const r of results) {
    lines.push(
      `${r.name}: CPU µs/msg by thread: main ${r.threads.main.toFixed(1)}, ` +
        `others (GC helpers, compilers, libuv) ${r.threads.others.toFixed(1)}; ` +
        `system calls per msg: ${r.syscalls.reads.toFixed(2)} reads, ${r.syscalls.writes.toFixed(2)} writes; ` +
        `minor page faults per msg: ${r.minorFaults.toFixed(3)}`,
    );
  }
  for (const r of results.slice(1)) {
    const ratios = r.roundCpu.map((cpu, i) => cpu / (relay.roundCpu[i] ?? Number.NaN));
    lines.push(
      `${r.name}: CPU / relay by round ${ratios.map((x) => x.toFixed(2)).join(', ')} ` +
        `(median ${medianCpuRatio(r, relay).toFixed(2)})`,
    );
    if (r.inProcess !== '') lines.push(`${r.name}: in-process hop (frame arrival → NATS client) ${r.inProcess}`);
  }
  const [, stored, connector] = results as [Result, Result, Result];
  const p99Ratio = (of: Result) => (percentile(connector.hops, 99) / percentile(of.hops, 99)).toFixed(2);
  lines.push(
    `RSS with ${STREAMS} streams: ${results.map((r) => `${r.name} ${r.rssMb.toFixed(0)} MB`).join(', ')}`,
    `targets (issue 7): connector CPU per price ≤ 1.25× relay (median of rounds) → ` +
      `${medianCpuRatio(connector, relay).toFixed(2)}×; p99 hop ≤ 1.2× relay's → ${p99Ratio(relay)}×; ` +
      `RSS at ${STREAMS} streams ≤ 150 MB → ${connector.rssMb.toFixed(0)} MB`,
    `against the ${STORED_RELAY} (the same last-value storage as the connector's prices): CPU → ` +
      `${medianCpuRatio(connector, stored).toFixed(2)}×, p99 hop → ${p99Ratio(stored)}×`,
    '',
  );
  process.stdout.write(lines.join('\n'));
}

/** Median over the rounds of `r`'s CPU per message divided by `of`'s in the same round. */
function medianCpuRatio(r: Result, of: Result): number {
  const ratios = r.roundCpu.map((cpu, i) => cpu / (of.roundCpu[i] ?? Number.NaN)).sort((a, b) => a - b);
  return ratios[Math.floor(ratios.length / 2)] ?? Number.NaN;
}

function lastConnection(frames: FrameSource): SourceConnection {
  const connection = frames.connections[frames.connections.length - 1];
  if (connection === undefined) throw new Error('no connection at the frame source');
  return connection;
}

async function until(condition: () => boolean | Promise<boolean>, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error('bench: condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

/** A pipeline process that dies mid-run ends the bench with a clear message instead of a /proc error. */
function failOnExit(child: ChildProcess, name: string): void {
  child.once('exit', (code, signal) => {
    process.stderr.write(`bench: ${name} process exited (code ${code}, signal ${signal}); stopping\n`);
    void cleanup().finally(() => process.exit(1));
  });
}

function exited(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => child.once('exit', () => resolve()));
}

async function cleanup(): Promise<void> {
  for (const child of children) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  await source?.close().catch(() => undefined);
  await nats?.stop().catch(() => undefined);
}

function log(message: string): void {
  process.stderr.write(`bench: ${message}\n`);
}

main().catch(async (error: unknown) => {
  process.stderr.write(`bench failed: ${error instanceof Error ? error.stack : String(error)}\n`);
  await cleanup();
  process.exit(1);
});
