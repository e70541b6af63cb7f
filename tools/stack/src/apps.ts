/**
 * The table of the gateway's apps the launcher starts, in order, after NATS and the venue. One entry per app:
 * where its built main is, which launcher variable holds its HTTP port, and the environment that wires it to
 * NATS, the venue and the account.
 */
import { EXIT_CODE } from '#observability';
import type { StackConfig } from './stack-config.js';
import type { VenueWiring } from './venue.js';

/** The launcher's per-app port variables (each a field of StackConfig with its default port). */
export type PortVariable = Extract<keyof StackConfig, `${string}_HTTP_PORT`>;

/** What every app is wired with. */
export interface StackWiring {
  natsUrl: string;
  prefix: string;
  account: string;
  /** The account's venue session id, kept in the data folder across starts. */
  sessionId: string;
  host: string;
  logLevel: string;
  venue: VenueWiring;
  /** The account-sync app's webhook receiver port (ACCOUNT_SYNC_WEBHOOK_PORT). */
  webhookPort: number;
  /** Absolute data folder (an app that keeps files puts them under `<dataDir>/<app>/`). */
  dataDir: string;
}

export interface StackApp {
  /** As in `dist/apps/<name>/src/main.js` and in the banner. */
  readonly name: string;
  /** The built entry point, relative to the repository root. */
  readonly main: string;
  /** Node flags it runs with (before `main`); `npm run start:<name>` passes the same. */
  readonly nodeFlags?: readonly string[];
  /** The launcher variable of its HTTP port (/health, /metrics): a port field of StackConfig. */
  readonly portVariable: PortVariable;
  /** Its environment (on top of the launcher's own, so any of its settings can still be given). */
  env(wiring: StackWiring, httpPort: number): Record<string, string>;
  /** What the banner says after where it listens. */
  describe(wiring: StackWiring): string;
  /**
   * Exit codes that mean "start me again" rather than a failure: the launcher restarts the app (after a pause
   * that grows while it keeps exiting) and the rest of the stack runs on.
   */
  readonly restartExitCodes?: readonly number[];
}

/** The settings every app of the gateway shares (COMMON names: NATS_URL, ACCOUNT, HTTP_PORT, VENUE_* …). */
export function sharedEnv(wiring: StackWiring, httpPort: number): Record<string, string> {
  return {
    HTTP_PORT: String(httpPort),
    HTTP_HOST: wiring.host,
    LOG_LEVEL: wiring.logLevel,
    NATS_URL: wiring.natsUrl,
    NATS_SUBJECT_PREFIX: wiring.prefix,
    ACCOUNT: wiring.account,
    VENUE_REST_URL: wiring.venue.restUrl,
    VENUE_API_KEY: wiring.venue.apiKey,
    VENUE_API_SECRET: wiring.venue.apiSecret,
    VENUE_SIGNATURE_ENCODING: wiring.venue.signatureEncoding,
  };
}

/**
 * V8 flags of the connector's price process (docs/benchmarks.md, the Issue 7 sections of stops 31 and 32):
 * - `--max-semi-space-size=8`: its young generation is capped at 8 MB semi-spaces (V8's default grows them to
 *   16 MB); its live set is small (≈ 30 MB with 500 price streams), so this keeps resident memory down.
 * - `--no-allocation-site-pretenuring`: a stream's newest price and state live until its next price (a few hundred
 *   ms), long enough for V8 to decide that the transition's allocations should be made in the old generation. Each
 *   price then lands on fresh old-generation pages (0.11 page faults per price) and is collected by full GCs: ≈ 0.1×
 *   of the bare relay's CPU per price, and more resident memory. Without pretenuring they die young.
 * - `--single-threaded-gc`: its heap is small (≈ 30 MB live), so the collector's helper threads save little and, on a
 *   machine whose cores the venue socket, NATS and the other apps share, cost more CPU per price than they save (their
 *   start-up and hand-offs): ≈ 0.05× of the bare relay's, and a lower p99 hop (stop 32). Scavenges stay ≈ 1–5 ms.
 * Command-line flags: V8 reads them at start-up.
 */
export const CONNECTOR_NODE_FLAGS: readonly string[] = [
  '--max-semi-space-size=8',
  '--no-allocation-site-pretenuring',
  '--single-threaded-gc',
];

export const STACK_APPS: readonly StackApp[] = [
  {
    name: 'connector',
    main: 'dist/apps/connector/src/main.js',
    nodeFlags: CONNECTOR_NODE_FLAGS,
    portVariable: 'CONNECTOR_HTTP_PORT',
    env: (wiring, httpPort) => ({
      ...sharedEnv(wiring, httpPort),
      VENUE_WS_URL: wiring.venue.wsUrl,
      VENUE_SESSION_ID: wiring.sessionId,
      VENUE_REST_REQUESTS_PER_SECOND: '4',
    }),
    describe: (wiring) => `account ${wiring.account}, venue session ${wiring.sessionId}`,
    // NATS went away during its start-up
    restartExitCodes: [EXIT_CODE.unavailable],
  },
  {
    name: 'execution',
    main: 'dist/apps/execution/src/main.js',
    portVariable: 'EXECUTION_HTTP_PORT',
    env: (wiring, httpPort) => ({
      ...sharedEnv(wiring, httpPort),
      VENUE_REST_REQUESTS_PER_SECOND: '4',
      // stable per data folder (unless given): a restarted stack resumes its own orders as its own, not as a dead
      // instance's (taken over only after INSTANCE_LEASE_MS)
      INSTANCE_ID:
        process.env['INSTANCE_ID'] ?? `exec-${wiring.sessionId}`.replace(/[^A-Za-z0-9_-]/g, '_').slice(0, 64),
    }),
    describe: (wiring) => `order API on ${wiring.prefix}.${wiring.account}.exec.order.place`,
    restartExitCodes: [EXIT_CODE.unavailable],
  },
  {
    name: 'account-sync',
    main: 'dist/apps/account-sync/src/main.js',
    portVariable: 'ACCOUNT_SYNC_HTTP_PORT',
    env: (wiring, httpPort) => ({
      ...sharedEnv(wiring, httpPort),
      VENUE_REST_REQUESTS_PER_SECOND: '20',
      VENUE_WEBHOOK_IPS_URL: wiring.venue.ipsUrl,
      WEBHOOK_PORT: String(wiring.webhookPort),
      WEBHOOK_HOST: wiring.host,
      WEBHOOK_PATH: WEBHOOK_PATH,
    }),
    describe: (wiring) => `balances, trades, transactions, withdrawals; webhooks at ${webhookUrl(wiring)}`,
    // lost its writer lease: it must stop writing at once, and be started again (docs/runbook.md); or NATS went
    // away during its start-up (the same 75)
    restartExitCodes: [EXIT_CODE.leaseLost],
  },
];

/** Where the account-sync app receives the venue's webhooks (the sandbox is pointed at it). */
export const WEBHOOK_PATH = '/webhooks/venue';

export function webhookUrl(wiring: Pick<StackWiring, 'host' | 'webhookPort'>): string {
  return `http://${wiring.host === '0.0.0.0' ? '127.0.0.1' : wiring.host}:${wiring.webhookPort}${WEBHOOK_PATH}`;
}
