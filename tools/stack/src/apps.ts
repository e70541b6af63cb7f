/**
 * The table of the gateway's apps the launcher starts, in order, after NATS and the venue. One entry per app:
 * where its built main is, which launcher variable holds its HTTP port, and the environment that wires it to
 * NATS, the venue and the account. The execution and account-sync apps become one entry each.
 */
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
  /** Absolute data folder (an app that keeps files puts them under `<dataDir>/<app>/`). */
  dataDir: string;
}

export interface StackApp {
  /** As in `dist/apps/<name>/src/main.js` and in the banner. */
  readonly name: string;
  /** The built entry point, relative to the repository root. */
  readonly main: string;
  /** The launcher variable of its HTTP port (/health, /metrics): a port field of StackConfig. */
  readonly portVariable: PortVariable;
  /** Its environment (on top of the launcher's own, so any of its settings can still be given). */
  env(wiring: StackWiring, httpPort: number): Record<string, string>;
  /** What the banner says after where it listens. */
  describe(wiring: StackWiring): string;
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

export const STACK_APPS: readonly StackApp[] = [
  {
    name: 'connector',
    main: 'dist/apps/connector/src/main.js',
    portVariable: 'CONNECTOR_HTTP_PORT',
    env: (wiring, httpPort) => ({
      ...sharedEnv(wiring, httpPort),
      VENUE_WS_URL: wiring.venue.wsUrl,
      VENUE_SESSION_ID: wiring.sessionId,
      VENUE_REST_REQUESTS_PER_SECOND: '4',
    }),
    describe: (wiring) => `account ${wiring.account}, venue session ${wiring.sessionId}`,
  },
];
