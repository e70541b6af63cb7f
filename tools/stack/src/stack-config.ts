/**
 * The launcher's environment (README "Configuration"), validated before anything starts: every bad variable
 * is listed by name and rule, never its value, and the launcher exits 78. Against the sandbox nothing needs
 * setting; against the real venue (`STACK_VENUE=real`) the URLs and the key are configuration only — the key
 * and the secret from the environment or from files.
 */
import {
  directoryUsable,
  EnvEnum,
  EnvInt,
  EnvHost,
  EnvMs,
  EnvText,
  EnvUrl,
  LOG_LEVELS,
  type CrossChecked,
  type CrossRule,
  type LogLevel,
} from '#observability';
import { DEFAULT_SUBJECT_PREFIX, SUBJECT_PREFIX, SUBJECT_TOKEN } from '#contracts';
import { STACK_APPS } from './apps.js';
import { credential, keyProblem, secretProblem } from './venue.js';

/** A port the launcher names to the user: fixed, never 0 ("any"). */
const EnvFixedPort = (): PropertyDecorator => EnvInt(1, 65_535);

/** The smallest log size rotated at (below it a rotation would copy a few lines every check). */
const LOG_MAX_BYTES_LEAST = 1_000;

const SESSION_ID = /^[^/\s\p{Cc}]{1,64}$/u;

export class StackConfig implements CrossChecked {
  /** Everything the stack keeps between starts: NATS store, session id, logs, sandbox credentials. */
  @EnvText({ max: 4_096 }) STACK_DATA_DIR: string = 'data';
  /** Interface every component listens on. */
  @EnvHost() STACK_HOST: string = '127.0.0.1';
  /** An existing NATS (with JetStream) to use instead of the embedded nats-server. */
  @EnvUrl({ schemes: ['nats', 'tls'], list: true }) NATS_URL?: string;
  /** Port of the embedded nats-server (unused with NATS_URL). */
  @EnvFixedPort() STACK_NATS_PORT: number = 4222;
  @EnvText({ max: 128, pattern: SUBJECT_PREFIX, describe: 'dot-separated subject tokens (at most 128 characters)' })
  NATS_SUBJECT_PREFIX: string = DEFAULT_SUBJECT_PREFIX;
  @EnvText({ max: 64, pattern: SUBJECT_TOKEN, describe: 'one subject token of at most 64 characters' })
  ACCOUNT: string = 'default';
  @EnvEnum(LOG_LEVELS) LOG_LEVEL: LogLevel = 'info';

  /** `sandbox`: the embedded sandbox venue, wired automatically. `real`: the VENUE_* settings below. */
  @EnvEnum(['sandbox', 'real']) STACK_VENUE: 'sandbox' | 'real' = 'sandbox';
  @EnvFixedPort() SANDBOX_PORT: number = 8080;
  @EnvUrl({ schemes: ['http', 'https'] }) VENUE_REST_URL?: string;
  @EnvUrl({ schemes: ['ws', 'wss'] }) VENUE_WS_URL?: string;
  /** The venue's webhook address list (the account-sync app checks senders against it). */
  @EnvUrl({ schemes: ['http', 'https'] }) VENUE_IPS_URL?: string;
  @EnvText({ max: 256 }) VENUE_API_KEY?: string;
  @EnvText({ max: 4_096 }) VENUE_API_KEY_FILE?: string;
  @EnvText({ max: 4_096 }) VENUE_API_SECRET?: string;
  @EnvText({ max: 4_096 }) VENUE_API_SECRET_FILE?: string;
  @EnvEnum(['base64', 'hex']) VENUE_SIGNATURE_ENCODING: 'base64' | 'hex' = 'base64';
  /** Session id of the account at the venue; unset: one chosen at the first start and kept in the data folder. */
  @EnvText({ max: 64, pattern: SESSION_ID, describe: "1-64 characters without '/', whitespace or control characters" })
  VENUE_SESSION_ID?: string;

  /** HTTP port (/health, /metrics) of each app; one variable per app (tools/stack/src/apps.ts). */
  @EnvFixedPort() CONNECTOR_HTTP_PORT: number = 3001;
  @EnvFixedPort() EXECUTION_HTTP_PORT: number = 3002;
  @EnvFixedPort() ACCOUNT_SYNC_HTTP_PORT: number = 3003;
  /** The account-sync app's webhook receiver; the sandbox sends its webhooks there. */
  @EnvFixedPort() ACCOUNT_SYNC_WEBHOOK_PORT: number = 3013;

  /** Each component's log, `<data>/logs/<name>.log`, is rotated once it reaches this size (bytes); 0: never… */
  @EnvInt(0, 1_000_000_000_000) STACK_LOG_MAX_BYTES: number = 50_000_000;
  /** …keeping this many files per component, the live log included (`.1` … `.<STACK_LOG_FILES − 1>`). */
  @EnvInt(1, 100) STACK_LOG_FILES: number = 3;

  /** How long a component may take to become healthy before the start is given up. */
  @EnvMs(1_000, 600_000) STACK_READY_TIMEOUT_MS: number = 60_000;
  /** How long a component may take to stop before it is killed. */
  @EnvMs(100, 120_000) STACK_STOP_TIMEOUT_MS: number = 20_000;

  crossChecks(): CrossRule<this>[] {
    const VENUE_VARIABLES = [
      'VENUE_REST_URL',
      'VENUE_WS_URL',
      'VENUE_IPS_URL',
      'VENUE_API_KEY',
      'VENUE_API_KEY_FILE',
      'VENUE_API_SECRET',
      'VENUE_API_SECRET_FILE',
    ] as const;
    const real =
      (rule: CrossRule<this>): CrossRule<this> =>
      (c) =>
        c.STACK_VENUE === 'real' ? rule(c) : undefined;
    return [
      ...(['VENUE_REST_URL', 'VENUE_WS_URL', 'VENUE_IPS_URL'] as const).map((name) =>
        real((c) => (c[name] === undefined ? `${name} must be set with STACK_VENUE=real` : undefined)),
      ),
      real((c) => exactlyOne(c, 'VENUE_API_KEY', 'VENUE_API_KEY_FILE')),
      real((c) => exactlyOne(c, 'VENUE_API_SECRET', 'VENUE_API_SECRET_FILE')),
      // the key and the secret themselves, here rather than after the configuration (security tester: a secret
      // that is not Base64 was named only once every other problem was fixed)
      real((c) => {
        if (exactlyOne(c, 'VENUE_API_KEY', 'VENUE_API_KEY_FILE').length > 0) return undefined;
        const key = credential(c.VENUE_API_KEY, c.VENUE_API_KEY_FILE, 'VENUE_API_KEY_FILE');
        return key.problem ?? keyProblem(c, key.value);
      }),
      real((c) => {
        if (exactlyOne(c, 'VENUE_API_SECRET', 'VENUE_API_SECRET_FILE').length > 0) return undefined;
        const secret = credential(c.VENUE_API_SECRET, c.VENUE_API_SECRET_FILE, 'VENUE_API_SECRET_FILE');
        return secret.problem ?? secretProblem(c, secret.value);
      }),
      ...VENUE_VARIABLES.map(
        (name): CrossRule<this> =>
          (c) =>
            c.STACK_VENUE === 'sandbox' && c[name] !== undefined
              ? `${name} is set but STACK_VENUE is sandbox: set STACK_VENUE=real to use the real venue`
              : undefined,
      ),
      (c) => dataDirProblem(c.STACK_DATA_DIR),
      (c) =>
        c.STACK_LOG_MAX_BYTES > 0 && c.STACK_LOG_MAX_BYTES < LOG_MAX_BYTES_LEAST
          ? `STACK_LOG_MAX_BYTES must be 0 (no rotation) or at least ${LOG_MAX_BYTES_LEAST}`
          : undefined,
      ...portPairs().map(([earlier, later]): CrossRule<this> => (c) => {
        const used = usedPorts(c);
        return used.has(earlier) && used.has(later) && c[earlier] === c[later]
          ? `${later} must differ from ${earlier}`
          : undefined;
      }),
    ];
  }
}

/** A data folder that is a file, or lies under one, cannot be made (it failed after the configuration, `EEXIST`). */
function dataDirProblem(path: string): string | undefined {
  return directoryUsable(path)
    ? undefined
    : 'STACK_DATA_DIR must be a directory, or a path where one can be made (a file is in the way)';
}

type PortVariable =
  (typeof STACK_APPS)[number]['portVariable'] | 'ACCOUNT_SYNC_WEBHOOK_PORT' | 'SANDBOX_PORT' | 'STACK_NATS_PORT';

/** Every port variable in the order they are named, and each pair of them (the later one named as the clash). */
function portPairs(): [PortVariable, PortVariable][] {
  const names: PortVariable[] = [
    ...STACK_APPS.map((app) => app.portVariable),
    'ACCOUNT_SYNC_WEBHOOK_PORT',
    'SANDBOX_PORT',
    'STACK_NATS_PORT',
  ];
  return names.flatMap((later, i) =>
    names.slice(0, i).map((earlier): [PortVariable, PortVariable] => [earlier, later]),
  );
}

/** The port variables this configuration listens on: the sandbox's only with it, NATS's only when embedded. */
function usedPorts(config: StackConfig): Set<PortVariable> {
  const used = new Set<PortVariable>([...STACK_APPS.map((app) => app.portVariable), 'ACCOUNT_SYNC_WEBHOOK_PORT']);
  if (config.STACK_VENUE === 'sandbox') used.add('SANDBOX_PORT');
  if (config.NATS_URL === undefined) used.add('STACK_NATS_PORT');
  return used;
}

function exactlyOne(config: StackConfig, value: 'VENUE_API_KEY' | 'VENUE_API_SECRET', file: string): string[] {
  const fromFile = (config as unknown as Record<string, unknown>)[file] !== undefined;
  if (config[value] !== undefined && fromFile) return [`set ${value} or ${file}, not both`];
  if (config[value] === undefined && !fromFile) return [`${value} or ${file} must be set with STACK_VENUE=real`];
  return [];
}
