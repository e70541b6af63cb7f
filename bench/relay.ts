/**
 * The bare relay the connector is measured against, in its own process: WebSocket → JSON.parse → NATS
 * publish of the frame, routed by tag. No validation, ordering, staleness, decimals or re-encoding.
 * Usage (by bench/run.ts): node dist/bench/relay.js <wsUrl> <natsUrl> <streams> [subject prefix, default bench.relay]
 *
 * RELAY_VARIANT (BENCH_RELAY_VARIANTS in run.ts), to find where the connector process's own cost comes from:
 *  - `fat`: the process first loads the connector's whole module graph and holds a heap of the connector's size;
 *  - `fat-worker`: the same, with the relay itself in a worker thread (its own V8 isolate, heap and event loop).
 */
import { isMainThread, parentPort, Worker, workerData } from 'node:worker_threads';
import WebSocket from 'ws';
import { connect } from '@nats-io/transport-node';

type RelayArgs = [wsUrl: string, natsUrl: string, count: string, prefix: string];

/** Runs the relay; `ready` once every stream is acknowledged; resolves a stop function. */
async function relay([wsUrl, natsUrl, count, prefix]: RelayArgs, ready: () => void): Promise<() => Promise<void>> {
  const nc = await connect({ servers: natsUrl, name: 'bench-relay' });
  const socket = new WebSocket(`${wsUrl}?token=relay`);
  const encoder = new TextEncoder();
  let acks = 0;
  socket.on('message', (data) => {
    const text = String(data);
    const frame = JSON.parse(text) as { messageType: string; tag?: string };
    if (frame.messageType === 'pricestream') {
      nc.publish(`${prefix}.${frame.tag ?? 'none'}`, encoder.encode(text));
    } else if (frame.messageType === 'subscribe' && ++acks === Number(count)) {
      ready();
    }
  });
  socket.on('open', () => {
    for (let i = 0; i < Number(count); i += 1) {
      socket.send(
        JSON.stringify({
          messageType: 'subscribe',
          instrument: 'BTC.USD',
          quantity: (0.01 * (i + 1)).toFixed(2),
          currency: 'BTC',
          accountGroupUuid: 'bench-group',
          tenor: 'T',
          tag: `r${i}`,
        }),
      );
    }
  });
  return async () => {
    socket.close();
    await nc.drain();
  };
}

/** Module graph and heap of the connector's size (≈ 30 MB used after a scavenge), kept alive. */
const ballast: unknown[] = [];
async function loadConnectorWeight(): Promise<void> {
  await import('../apps/connector/src/app.module.js');
  for (let i = 0; i < 250_000; i += 1) ballast.push({ id: i, name: `provider-${i}`, deps: [i, i + 1] });
}

async function main(): Promise<void> {
  const args = process.argv.slice(2);
  const [wsUrl, natsUrl, count, prefix = 'bench.relay'] = args;
  if (wsUrl === undefined || natsUrl === undefined || count === undefined)
    throw new Error('usage: relay <ws> <nats> <n>');
  const relayArgs: RelayArgs = [wsUrl, natsUrl, count, prefix];
  const variant = process.env['RELAY_VARIANT'] ?? '';
  if (variant.startsWith('fat')) await loadConnectorWeight();
  if (variant === 'fat-worker') {
    const worker = new Worker(new URL(import.meta.url), { workerData: relayArgs });
    worker.on('message', (message) => {
      if (message === 'ready') process.send?.('ready');
      if (message === 'stopped') process.exit(0);
    });
    process.on('message', (message) => {
      if (message === 'stop') worker.postMessage('stop');
    });
    return;
  }
  const stop = await relay(relayArgs, () => process.send?.('ready'));
  process.on('message', (message) => {
    if (message === 'stop') void stop().then(() => process.exit(0));
  });
}

async function inWorker(): Promise<void> {
  const port = parentPort;
  if (port === null) return;
  const stop = await relay(workerData as RelayArgs, () => port.postMessage('ready'));
  port.on('message', (message) => {
    if (message === 'stop') void stop().then(() => port.postMessage('stopped'));
  });
}

(isMainThread ? main() : inWorker()).catch((error: unknown) => {
  process.stderr.write(`relay failed: ${String(error)}\n`);
  process.exit(1);
});
