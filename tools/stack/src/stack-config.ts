/**
 * The launcher's environment (README "Configuration"), validated before anything starts: every bad variable
 * is listed by name and rule, never its value, and the launcher exits 78. Against the sandbox nothing needs
 * setting; against the real venue (`STACK_VENUE=real`) the URLs and the key are configuration only — the key
 * and the secret from the environment or from files.
 */
import {
  EnvEnum,
  EnvInt,
  EnvHost,
  EnvMs,
  EnvText,
  EnvUrl,
  LOG_LEVELS,
  type CrossChecked,
  type LogLevel,
} from '#observability';
import { DEFAULT_SUBJECT_PREFIX, SUBJECT_PREFIX, SUBJECT_TOKEN } from '#contracts';
import { STACK_APPS } from './apps.js';

/** A port the launcher names to the user: fixed, never 0 ("any"). */
const EnvFixedPort = (): PropertyDecorator => EnvInt(1, 65_535);

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

  /** How long a component may take to become healthy before the start is given up. */
  @EnvMs(1_000, 600_000) STACK_READY_TIMEOUT_MS: number = 60_000;
  /** How long a component may take to stop before it is killed. */
  @EnvMs(100, 120_000) STACK_STOP_TIMEOUT_MS: number = 20_000;

  crossCheck(): string[] {
    const problems: string[] = [];
    if (this.STACK_VENUE === 'real') {
      for (const name of ['VENUE_REST_URL', 'VENUE_WS_URL', 'VENUE_IPS_URL'] as const) {
        if (this[name] === undefined) problems.push(`${name} must be set with STACK_VENUE=real`);
      }
      problems.push(...exactlyOne(this, 'VENUE_API_KEY', 'VENUE_API_KEY_FILE'));
      problems.push(...exactlyOne(this, 'VENUE_API_SECRET', 'VENUE_API_SECRET_FILE'));
    } else {
      for (const name of [
        'VENUE_REST_URL',
        'VENUE_WS_URL',
        'VENUE_IPS_URL',
        'VENUE_API_KEY',
        'VENUE_API_KEY_FILE',
        'VENUE_API_SECRET',
        'VENUE_API_SECRET_FILE',
      ] as const) {
        if (this[name] !== undefined) {
          problems.push(`${name} is set but STACK_VENUE is sandbox: set STACK_VENUE=real to use the real venue`);
        }
      }
    }
    const ports: [string, number][] = STACK_APPS.map((app) => [app.portVariable, this[app.portVariable]]);
    ports.push(['ACCOUNT_SYNC_WEBHOOK_PORT', this.ACCOUNT_SYNC_WEBHOOK_PORT]);
    if (this.STACK_VENUE === 'sandbox') ports.push(['SANDBOX_PORT', this.SANDBOX_PORT]);
    if (this.NATS_URL === undefined) ports.push(['STACK_NATS_PORT', this.STACK_NATS_PORT]);
    for (const [i, [name, port]] of ports.entries()) {
      const other = ports.slice(0, i).find(([, p]) => p === port && p !== 0);
      if (other !== undefined) problems.push(`${name} must differ from ${other[0]}`);
    }
    return problems;
  }
}

function exactlyOne(config: StackConfig, value: 'VENUE_API_KEY' | 'VENUE_API_SECRET', file: string): string[] {
  const fromFile = (config as unknown as Record<string, unknown>)[file] !== undefined;
  if (config[value] !== undefined && fromFile) return [`set ${value} or ${file}, not both`];
  if (config[value] === undefined && !fromFile) return [`${value} or ${file} must be set with STACK_VENUE=real`];
  return [];
}
