/**
 * Issue 7, point 3 as a figure: connector restart (kill -9 and SIGTERM, alternately) → the first order
 * command published after it reaches the venue, with a `>` subscriber on the bus (a monitoring tap). The
 * connector runs from `dist/` as a child process against its own nats-server and the sandbox venue; the
 * order names an unknown quote, so the venue's immediate FAILED RFS100019 proves the order got there.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { CONNECTOR_NODE_FLAGS } from '../tools/stack/src/apps.js';
import { join } from 'node:path';
import { connect } from '@nats-io/transport-node';
import { jetstream } from '@nats-io/jetstream';
import { Subjects } from '#contracts';
import { freePort, startNatsServer } from '#testing';
import { startSandboxVenue } from '../apps/sandbox-venue/src/bootstrap.js';

const READY = 'connector started'; // runApp's line: HTTP listening, signals taken
const ACCOUNT = 'bench-restart';

export async function restartFigure(root: string, restarts = 6): Promise<string> {
  const nats = await startNatsServer();
  const venue = await startSandboxVenue({ trading: { priceIntervalMs: 250, offContractEveryNTicks: 0 } });
  const client = await connect({ servers: nats.url, name: 'bench-restart' });
  const tap = client.subscribe('>', { callback: () => undefined });
  const js = jetstream(client);
  const subjects = new Subjects('gw.v1', ACCOUNT);
  const env: Record<string, string> = {
    PATH: process.env['PATH'] ?? '',
    HTTP_PORT: String(await freePort()),
    HTTP_HOST: '127.0.0.1',
    NATS_URL: nats.url,
    ACCOUNT,
    LOG_LEVEL: 'info',
    DEFAULT_METRICS: 'false',
    VENUE_REST_URL: venue.restBaseUrl,
    VENUE_WS_URL: venue.wsUrl,
    VENUE_API_KEY: venue.credentials.primary.apiKey,
    VENUE_API_SECRET: venue.credentials.primary.apiSecret,
    VENUE_SESSION_ID: 'bench-restart-1',
  };
  const start = (): Promise<ChildProcess> =>
    new Promise((resolve, reject) => {
      const child = spawn(process.execPath, [...CONNECTOR_NODE_FLAGS, join(root, 'dist/apps/connector/src/main.js')], {
        env,
        stdio: ['ignore', 'pipe', 'ignore'],
      });
      let seen = '';
      child.stdout?.on('data', (chunk: Buffer) => {
        seen += chunk.toString();
        if (seen.includes(READY)) resolve(child);
      });
      child.once('exit', (code) => reject(new Error(`connector exited (${code}) before it was ready`)));
    });
  const order = async (clientRequestId: string): Promise<number> => {
    const outcome = client.subscribe(subjects.orderOutcome(clientRequestId), { max: 1 });
    const started = performance.now();
    await js.publish(subjects.orderCommand, JSON.stringify({ clientRequestId, quoteId: 'q-unknown', side: 'BUY' }), {
      msgID: clientRequestId,
    });
    for await (const _ of outcome) return performance.now() - started;
    throw new Error(`no outcome for ${clientRequestId}`);
  };
  let child = await start();
  const latencies: number[] = [];
  try {
    await order('warm-up');
    for (let i = 0; i < restarts; i += 1) {
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill(i % 2 === 0 ? 'SIGKILL' : 'SIGTERM');
      await exited;
      child = await start();
      latencies.push(await order(`after-restart-${i}`));
    }
  } finally {
    child.kill('SIGKILL');
    tap.unsubscribe();
    await client.close();
    await venue.close();
    await nats.stop();
  }
  const sorted = [...latencies].sort((a, b) => a - b);
  const median =
    ((sorted[Math.floor((sorted.length - 1) / 2)] ?? 0) + (sorted[Math.ceil((sorted.length - 1) / 2)] ?? 0)) / 2;
  return (
    `restart → first order at the venue (${restarts} restarts, kill -9 and SIGTERM alternately, a '>' subscriber ` +
    `present): median ${median.toFixed(0)} ms, max ${Math.max(...latencies).toFixed(0)} ms ` +
    `(${latencies.map((ms) => ms.toFixed(0)).join(', ')}); target ≈ 1 s`
  );
}
