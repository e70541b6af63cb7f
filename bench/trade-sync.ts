/**
 * Issue 9's trade-history sync figure: how fast the account-sync app reads a long trade history from the
 * sandbox venue (over real HTTP) into NATS (every trade's `trade.created` event stored on its history stream), set
 * against the venue's bound: 30 requests/s × 200 trades per page = 6,000 trades/s. Target ≥ 90 % of it.
 * The app runs as its own process with the whole budget (`VENUE_REST_REQUESTS_PER_SECOND=30`, alone against
 * the venue here); the sandbox runs in this process. The sandbox's 429 counter is read at the end (must be 0).
 */
import { fork } from 'node:child_process';
import { join } from 'node:path';
import { connect } from '@nats-io/transport-node';
import { jetstreamManager } from '@nats-io/jetstream';
import { AccountStateName } from '#bus';
import { startNatsServer } from '#testing';
import { startSandboxVenue } from '../apps/sandbox-venue/src/bootstrap.js';
import { SeedIds } from '../apps/sandbox-venue/src/domain/seed.js';

const TRADES = Number(process.env['BENCH_SYNC_TRADES'] ?? 60_000);
const BOUND_PER_SECOND = 30 * 200;
const ACCOUNT = 'bench';

async function adminPost(adminUrl: string, path: string, body: unknown): Promise<void> {
  const response = await fetch(`${adminUrl}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  if (!response.ok) throw new Error(`admin ${path}: HTTP ${response.status}`);
}

async function sandbox429s(restBaseUrl: string): Promise<number> {
  const text = await (await fetch(`${restBaseUrl}/metrics`)).text();
  return text
    .split('\n')
    .filter((line) => line.startsWith('sandbox_rest_requests_total{') && line.includes('status="429"'))
    .reduce((sum, line) => sum + Number(line.slice(line.lastIndexOf(' ') + 1)), 0);
}

export async function tradeSyncFigure(root: string): Promise<string> {
  const nats = await startNatsServer();
  const venue = await startSandboxVenue({ port: 0 });
  const client = await connect({ servers: nats.url, name: 'bench-trade-sync' });
  const jsm = await jetstreamManager(client);
  try {
    await adminPost(venue.adminUrl, '/trades/otc-bulk', {
      count: TRADES,
      accountGroupUuid: SeedIds.subGroup,
      instrument: 'BTC.USD',
      side: 'BUY',
      baseAmount: '0.001',
      quoteAmount: '60.00',
      price: '60000.00',
    });
    const started = performance.now();
    const child = fork(join(root, 'dist-bench/apps/account-sync/src/main.js'), [], {
      // BENCH_SYNC_PROFILE=<dir>: a CPU profile of the app process.
      execArgv: [
        '--conditions=gw-bench',
        ...(process.env['BENCH_SYNC_PROFILE']
          ? ['--cpu-prof', `--cpu-prof-dir=${process.env['BENCH_SYNC_PROFILE']}`]
          : []),
      ],
      stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
      env: {
        PATH: process.env['PATH'] ?? '',
        HTTP_PORT: '0',
        HTTP_HOST: '127.0.0.1',
        LOG_LEVEL: 'warn',
        NATS_URL: nats.url,
        ACCOUNT,
        VENUE_REST_URL: venue.restBaseUrl,
        VENUE_API_KEY: venue.credentials.primary.apiKey,
        VENUE_API_SECRET: venue.credentials.primary.apiSecret,
        VENUE_REST_REQUESTS_PER_SECOND: '30',
        SYNC_FAST_INTERVAL_MS: '600000',
        SYNC_SLOW_INTERVAL_MS: '600000',
        WEBHOOK_PORT: '0',
        DEFAULT_METRICS: 'false',
      },
    });
    let held = 0;
    /** When the first trade was stored: the read phase is measured from there (the process start is apart). */
    let firstStoredAt: number | undefined;
    try {
      const deadline = Date.now() + Math.max(60_000, (TRADES / BOUND_PER_SECOND) * 4_000);
      for (;;) {
        held = await jsm.streams
          .info(AccountStateName.historyEvents(ACCOUNT))
          .then((info) => info.state.messages)
          .catch(() => 0); // the stream does not exist until the app created it
        if (held > 0 && firstStoredAt === undefined) firstStoredAt = performance.now();
        if (held >= TRADES || Date.now() > deadline) break;
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    } finally {
      child.kill('SIGTERM');
      await new Promise((resolve) => child.once('exit', resolve));
    }
    const endedAt = performance.now();
    const seconds = (endedAt - started) / 1_000;
    const readSeconds = (endedAt - (firstStoredAt ?? started)) / 1_000;
    const perSecond = held / seconds;
    const readPerSecond = held / readSeconds;
    const ratio = readPerSecond / BOUND_PER_SECOND;
    const throttled = await sandbox429s(venue.restBaseUrl);
    return [
      '',
      'trade-history sync (issue 9): account-sync alone with the whole budget (30 req/s), sandbox over HTTP',
      '| trades | synced | s from process start | trades/s incl. start-up | s reading (first → last stored) | trades/s reading | venue bound (30 × 200/s) | ratio (reading) | target ≥ 90 % | 429s |',
      '|---|---|---|---|---|---|---|---|---|---|',
      `| ${TRADES} | ${held} | ${seconds.toFixed(1)} | ${perSecond.toFixed(0)} | ${readSeconds.toFixed(1)} | ${readPerSecond.toFixed(0)} | ${BOUND_PER_SECOND} | ${(ratio * 100).toFixed(1)} % | ${ratio >= 0.9 && held >= TRADES ? 'met' : 'NOT met'} | ${throttled} |`,
    ].join('\n');
  } finally {
    await client.close();
    await venue.close();
    await nats.stop();
  }
}
