/**
 * The order table of `npm run bench` (issue 8): place request → order frame at the venue, through the
 * execution app (intent written durably, risk, journal) and the connector, beside a bare two-hop NATS relay
 * in the same run; orders spaced beyond the venue's pacing (1 per 250 ms, the connector waits 300 ms) so no
 * pacing wait is in the figure. Then BENCH_EXEC_QUEUED orders (default 1,000) placed at once drain at the
 * venue's pace: none lost, none reordered, none twice. RSS of the execution process at the end.
 * Everything runs from builds as child processes; the venue stand-in and the algo share this process's clock.
 * Bounded by BENCH_EXEC_DEADLINE_MS (default: the drain's own length plus 3 minutes).
 */
import 'reflect-metadata';
import { fork, spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { connect, type NatsConnection } from '@nats-io/transport-node';
import { ExecutionSubjects, Subjects, type PlaceOrderReply, type PriceMessage, type StreamReply } from '#contracts';
import { startNatsServer } from '#testing';
import { percentile } from './hop-recorder.js';
import { OrderVenue } from './order-venue.js';

const ACCOUNT = 'bench-exec';
const SAMPLES = Number(process.env['BENCH_EXEC_SAMPLES'] ?? 40);
const QUEUED = Number(process.env['BENCH_EXEC_QUEUED'] ?? 1_000);
const SPACING_MS = 350;
const DRAIN_PACE_MS = 300;
const DEADLINE_MS = Number(process.env['BENCH_EXEC_DEADLINE_MS'] ?? QUEUED * DRAIN_PACE_MS + 180_000);

export async function executionOrderFigures(root: string): Promise<string> {
  const children: ChildProcess[] = [];
  const nats = await startNatsServer();
  const venue = new OrderVenue(5);
  const { restBaseUrl, wsUrl } = await venue.listen();
  let algo: NatsConnection | undefined;
  const deadline = setTimeout(() => {
    process.stderr.write(`bench: execution deadline of ${DEADLINE_MS} ms reached; stopping\n`);
    for (const child of children) child.kill('SIGKILL');
    process.exit(2);
  }, DEADLINE_MS);
  deadline.unref();
  try {
    const common = {
      PATH: process.env['PATH'] ?? '',
      HTTP_HOST: '127.0.0.1',
      HTTP_PORT: '0',
      NATS_URL: nats.url,
      ACCOUNT,
      LOG_LEVEL: 'info',
      DEFAULT_METRICS: 'false',
      VENUE_REST_URL: restBaseUrl,
      VENUE_API_KEY: 'bench-key',
      VENUE_API_SECRET: Buffer.from('bench-secret').toString('base64'),
    };
    children.push(
      await startApp(join(root, 'dist/apps/connector/src/main.js'), 'connector started', {
        ...common,
        VENUE_WS_URL: wsUrl,
        VENUE_SESSION_ID: 'bench-exec-1',
      }),
    );
    const execution = await startApp(join(root, 'dist/apps/execution/src/main.js'), 'execution started', {
      ...common,
      INSTANCE_ID: 'bench',
      VENUE_CHECK_AFTER_MS: '600000',
      // the queued figure drains a backlog of 1,000 orders (≈ 5 min at the venue's pace): none may miss its send
      // deadline, which by default (10 s) would end most of them FAILED SEND_DEADLINE_PASSED, never sent
      ORDER_SEND_DEADLINE_MS: '600000',
    });
    children.push(execution);
    const relayMain = join(root, 'dist-bench/bench/order-relay.js');
    children.push(
      await forkRelay(relayMain, ['first', nats.url]),
      await forkRelay(relayMain, ['second', nats.url, wsUrl]),
    );

    algo = await connect({ servers: nats.url, name: 'bench-algo' });
    const subjects = new Subjects('gw.v1', ACCOUNT);
    const exec = new ExecutionSubjects(subjects);
    const quotes = await quotePool(algo, subjects, SAMPLES + QUEUED);
    let next = 0;
    const order = (key: string) =>
      JSON.stringify({
        idempotencyKey: key,
        strategyId: 'bench',
        accountGroup: 'bench-group',
        side: 'BUY',
        quoteId: quotes[next++],
      });

    // 1. hop: place request → order frame at the venue, beside the bare relay, interleaved
    const execHops: number[] = [];
    const relayHops: number[] = [];
    const idleUntil = performance.now() + 1_000;
    while (performance.now() < idleUntil) await sleep(50);
    for (let i = 0; i < SAMPLES; i += 1) {
      const sent = performance.now();
      const reply = (await algo.request(exec.place, order(`hop-${i}`), { timeout: 10_000 })).json<PlaceOrderReply>();
      if (!reply.ok) throw new Error(`bench order refused: ${JSON.stringify(reply.error)}`);
      const arrived = await waitFor(() => venue.arrivals.get(reply.clientRequestId), 5_000);
      execHops.push((arrived - sent) * 1_000);
      const relayId = `relay-${i}`;
      const relaySent = performance.now();
      algo.publish('bench.order.place', JSON.stringify({ id: relayId }));
      const relayArrived = await waitFor(() => venue.arrivals.get(relayId), 5_000);
      relayHops.push((relayArrived - relaySent) * 1_000);
      await sleep(SPACING_MS);
    }
    execHops.sort((a, b) => a - b);
    relayHops.sort((a, b) => a - b);
    const ownHop = await histogramMeanMs(execution.httpUrl, 'execution_order_hop_seconds');

    // 2. queued orders drain at the venue's pace
    const placed: string[] = [];
    const firstArrival = venue.arrivalOrder.length;
    const drainStart = performance.now();
    for (let i = 0; i < QUEUED; i += 1) {
      const reply = (await algo.request(exec.place, order(`queued-${i}`), { timeout: 10_000 })).json<PlaceOrderReply>();
      if (!reply.ok) throw new Error(`queued order refused: ${JSON.stringify(reply.error)}`);
      placed.push(reply.clientRequestId);
    }
    const placedMs = performance.now() - drainStart;
    await waitFor(
      () => (placed.every((id) => venue.arrivals.has(id)) ? true : undefined),
      QUEUED * DRAIN_PACE_MS * 2 + 30_000,
      500,
    );
    const drained = venue.arrivalOrder.slice(firstArrival).filter((id) => id.startsWith('x'));
    const lastArrival = venue.arrivals.get(placed[placed.length - 1] as string) ?? drainStart;
    const drainSeconds = (lastArrival - drainStart) / 1_000;
    const reordered = drained.filter((id, index) => placed[index] !== id).length;
    const lost = placed.filter((id) => !venue.arrivals.has(id)).length;
    const rssMb = rssOf(execution.pid as number);

    const us = (values: number[], p: number) => `${(percentile(values, p) / 1_000).toFixed(3)} ms`;
    return [
      '',
      'Orders (issue 8): place request → order frame at the venue (pacing wait excluded: orders 300 ms apart)',
      `| path | samples | p50 | p99 |`,
      `|---|---|---|---|`,
      `| execution app + connector (intent durable, risk, journal, command stream) | ${execHops.length} | ${us(execHops, 50)} | ${us(execHops, 99)} |`,
      `| bare two-hop NATS relay | ${relayHops.length} | ${us(relayHops, 50)} | ${us(relayHops, 99)} |`,
      `the execution app's own part (request received → command stored, its histogram): mean ${ownHop.toFixed(3)} ms`,
      `${QUEUED} queued orders: placed in ${(placedMs / 1_000).toFixed(1)} s, drained at the venue in ${drainSeconds.toFixed(1)} s ` +
        `(${(QUEUED / drainSeconds).toFixed(2)} orders/s, venue pace 4/s); lost ${lost}, reordered ${reordered}, sent twice ${venue.duplicates}`,
      `RSS of the execution process after the drain: ${rssMb.toFixed(0)} MB`,
      `targets: p50 ≤ 1 ms → ${us(execHops, 50)}; p99 ≤ 3 ms → ${us(execHops, 99)}`,
      '',
    ].join('\n');
  } finally {
    clearTimeout(deadline);
    await algo?.close().catch(() => undefined);
    for (const child of children.reverse()) {
      if (child.exitCode === null && child.signalCode === null) {
        child.kill('SIGTERM');
        await Promise.race([new Promise((resolve) => child.once('exit', resolve)), sleep(10_000)]);
        if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
      }
    }
    await venue.close();
    await nats.stop();
  }
}

/** `count` distinct live quoteIds of one stream, asked for through the connector as an algo would. */
async function quotePool(algo: NatsConnection, subjects: Subjects, count: number): Promise<string[]> {
  const request = {
    instrument: 'BTC.USD',
    quantity: '0.5',
    currency: 'BTC',
    tenor: 'T',
    accountGroup: 'bench-group',
    requester: 'bench-algo',
    leaseSeconds: 3_600,
  };
  const granted = (
    await algo.request(subjects.streamSubscribe, JSON.stringify(request), { timeout: 10_000 })
  ).json<StreamReply>();
  if (!granted.ok) throw new Error(`stream refused: ${JSON.stringify(granted.error)}`);
  const found = new Set<string>();
  const sub = algo.subscribe(granted.subject);
  for await (const msg of sub) {
    const price = msg.json<PriceMessage>();
    if (price.status === 'live' && price.quoteId !== undefined) found.add(price.quoteId);
    if (found.size >= count) break;
  }
  sub.unsubscribe();
  return [...found];
}

/** A built app as a child process, resolved with its `/health`-`/metrics` address once runApp says it started. */
function startApp(
  main: string,
  ready: string,
  env: Record<string, string>,
): Promise<ChildProcess & { httpUrl: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [main], { env, stdio: ['ignore', 'pipe', 'inherit'] });
    let seen = '';
    const onData = (chunk: Buffer): void => {
      seen += chunk.toString();
      const started = new RegExp(`"msg":"${ready}","http":"([^"]+)"`).exec(seen);
      if (started?.[1] !== undefined) {
        child.stdout?.off('data', onData);
        child.stdout?.resume();
        resolve(Object.assign(child, { httpUrl: started[1] }));
      }
      if (seen.length > 1_000_000) seen = seen.slice(-10_000);
    };
    child.stdout?.on('data', onData);
    child.once('exit', (code) => reject(new Error(`${main} exited (${code}) before it was ready`)));
  });
}

async function histogramMeanMs(httpUrl: string, name: string): Promise<number> {
  const text = await (await fetch(`${httpUrl}/metrics`)).text();
  const value = (suffix: string) =>
    Number(
      text
        .split('\n')
        .find((line) => line.startsWith(`${name}_${suffix}`))
        ?.split(' ')
        .pop() ?? Number.NaN,
    );
  return (value('sum') / value('count')) * 1_000;
}

function forkRelay(main: string, args: string[]): Promise<ChildProcess> {
  return new Promise((resolve, reject) => {
    const child = fork(main, args, { stdio: 'inherit' });
    child.once('message', () => resolve(child));
    child.once('exit', (code) => reject(new Error(`order relay exited (${code})`)));
  });
}

async function waitFor<T>(read: () => T | undefined, timeoutMs: number, intervalMs = 0): Promise<T> {
  const deadline = performance.now() + timeoutMs;
  for (;;) {
    const value = read();
    if (value !== undefined) return value;
    if (performance.now() > deadline) throw new Error('bench: timed out');
    await (intervalMs > 0 ? sleep(intervalMs) : new Promise((resolve) => setImmediate(resolve)));
  }
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

function rssOf(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0);
  return kb / 1024;
}

// `node --conditions=gw-bench dist-bench/bench/execution.js`: this table alone (after `npm run build`).
if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  executionOrderFigures(join(dirname(fileURLToPath(import.meta.url)), '..', '..')).then(
    (table) => process.stdout.write(`${table}\n`),
    (error: unknown) => {
      process.stderr.write(`bench failed: ${error instanceof Error ? error.stack : String(error)}\n`);
      process.exit(1);
    },
  );
}
