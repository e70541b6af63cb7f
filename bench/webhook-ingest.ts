/**
 * Issue 9's webhook ingest figure: the account-sync receiver (each notification stored on JetStream before
 * its 200) side by side with a bare Node HTTP server answering 200, in one run, on loopback. Each endpoint
 * runs in its own process; the load comes from this process (keep-alive connections, a fixed number of
 * requests in flight, every notification a new transaction). Rounds alternate between the two so a change of
 * machine load hits both. Target: ≥ 5,000 requests/s with p99 ≤ 5 ms.
 */
import { fork, type ChildProcess } from 'node:child_process';
import { Agent, request } from 'node:http';
import { join } from 'node:path';
import { startNatsServer } from '#testing';
import { percentile } from './hop-recorder.js';

const IN_FLIGHT = Number(process.env['BENCH_WEBHOOK_IN_FLIGHT'] ?? 32);
const MEASURE_MS = Number(process.env['BENCH_WEBHOOK_MEASURE_MS'] ?? 3_000);
const ROUNDS = Number(process.env['BENCH_WEBHOOK_ROUNDS'] ?? 2);

interface Endpoint {
  name: string;
  port: number;
  child: ChildProcess;
  done: number;
  failed: number;
  ms: number;
  latencies: number[];
}

let counter = 0;

function notification(): string {
  counter += 1;
  const uuid = `bench-${process.pid}-${counter}`;
  return `{"transactionClass":"CASH","uuid":"${uuid}","userUuid":"u1","amount":1250.75,"fee":0,"balanceBefore":10000.5,"balanceAfter":11251.25,"ccy":"USD","transactionState":"PENDING","transactionType":"DEPOSIT","received":1700000000000,"processed":null,"timestampMillis":1700000000000,"displayTitle":null,"displayDescription":null,"paymentTransferType":null,"customRef":"bench","beneficiaryUuid":null}`;
}

function post(agent: Agent, port: number): Promise<number> {
  const body = notification();
  return new Promise((resolve, reject) => {
    const req = request(
      {
        agent,
        host: '127.0.0.1',
        port,
        method: 'POST',
        path: '/webhooks/venue',
        headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) },
      },
      (res) => {
        res.on('data', () => undefined);
        res.on('end', () => resolve(res.statusCode ?? 0));
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

async function load(endpoint: Endpoint, durationMs: number, record: boolean): Promise<void> {
  const agent = new Agent({ keepAlive: true, maxSockets: IN_FLIGHT });
  const until = performance.now() + durationMs;
  const started = performance.now();
  const worker = async () => {
    while (performance.now() < until) {
      const t0 = performance.now();
      const status = await post(agent, endpoint.port).catch(() => 0);
      if (!record) continue;
      if (status === 200) {
        endpoint.done += 1;
        endpoint.latencies.push(performance.now() - t0);
      } else {
        endpoint.failed += 1;
      }
    }
  };
  await Promise.all(Array.from({ length: IN_FLIGHT }, worker));
  if (record) endpoint.ms += performance.now() - started;
  agent.destroy();
}

async function startEndpoint(here: string, name: string, mode: string, natsUrl: string): Promise<Endpoint> {
  const child = fork(join(here, 'webhook-ingest-server.js'), [mode, natsUrl], {
    stdio: 'inherit',
    execArgv: ['--conditions=gw-bench'],
  });
  const port = await new Promise<number>((resolve, reject) => {
    child.once('message', (message) => resolve((message as { port: number }).port));
    child.once('exit', (code) => reject(new Error(`${name} exited early (${code})`)));
  });
  child.removeAllListeners('exit');
  return { name, port, child, done: 0, failed: 0, ms: 0, latencies: [] };
}

export async function webhookIngestFigure(here: string): Promise<string> {
  const nats = await startNatsServer();
  const endpoints: Endpoint[] = [];
  try {
    endpoints.push(await startEndpoint(here, 'bare node http', 'bare', nats.url));
    endpoints.push(await startEndpoint(here, 'account-sync receiver', 'receiver', nats.url));
    for (const endpoint of endpoints) await load(endpoint, 1_000, false); // warm-up
    for (let round = 0; round < ROUNDS; round += 1) {
      for (const endpoint of endpoints) await load(endpoint, MEASURE_MS, true);
    }
    const lines = [
      '',
      `webhook ingest (issue 9): ${IN_FLIGHT} requests in flight on keep-alive loopback connections, ${ROUNDS} × ${MEASURE_MS} ms each`,
      'endpoint                 requests/s   p50 ms   p99 ms   max ms   non-200',
    ];
    for (const e of endpoints) {
      const sorted = [...e.latencies].sort((a, b) => a - b);
      lines.push(
        [
          e.name.padEnd(24),
          ((e.done / e.ms) * 1_000).toFixed(0).padStart(10),
          percentile(sorted, 50).toFixed(2).padStart(8),
          percentile(sorted, 99).toFixed(2).padStart(8),
          (sorted.at(-1) ?? 0).toFixed(2).padStart(8),
          String(e.failed).padStart(9),
        ].join(' '),
      );
    }
    const receiver = endpoints[1] as Endpoint;
    const sorted = [...receiver.latencies].sort((a, b) => a - b);
    lines.push(
      `target: receiver ≥ 5,000 requests/s → ${((receiver.done / receiver.ms) * 1_000).toFixed(0)}; p99 ≤ 5 ms → ${percentile(sorted, 99).toFixed(2)} ms (each notification stored on JetStream before its 200)`,
      '',
    );
    return lines.join('\n');
  } finally {
    for (const endpoint of endpoints) endpoint.child.kill('SIGKILL');
    await nats.stop();
  }
}
