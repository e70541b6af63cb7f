/**
 * The execution app's environment, validated once at start-up by `loadConfig` (every bad variable is listed
 * by name, never with its value). Nothing else in the app reads `process.env`. Documented in
 * docs/execution.md#configuration. The variables every app shares are ServiceEnv (#observability) and the
 * mixins of #bus (NATS) and #venue-api (credentials).
 */
import { IsOptional } from 'class-validator';
import { withNatsEnv } from '#bus';
import {
  EnvBoolean,
  EnvEnum,
  EnvInt,
  EnvMs,
  EnvText,
  ServiceEnv,
  type CrossChecked,
  type CrossRule,
} from '#observability';
import { withVenueCredentialsEnv } from '#venue-api';
import { limitsFileProblemsAt } from './risk/limits-file.js';

const DAY_MS = 24 * 3_600_000;
const INSTANCE = /^[A-Za-z0-9_-]{1,64}$/;

export class ExecutionConfig extends withVenueCredentialsEnv(withNatsEnv(ServiceEnv)) implements CrossChecked {
  // Shared variables (HTTP, logs, NATS, venue credentials, DEFAULT_METRICS): ServiceEnv and its mixins.
  override HTTP_PORT: number = 3002;

  // ---- NATS (order streams)
  /** How long order events and journal records are kept. */
  @EnvInt(60_000, 365 * DAY_MS) ORDER_RETENTION_MS: number = 30 * DAY_MS;
  /** JetStream duplicate window of the order event stream (cross-checked against the retention). */
  @EnvInt(1_000, 7 * DAY_MS) ORDER_EVENT_DUPLICATE_WINDOW_MS: number = 3_600_000;

  // ---- Instances and ownership
  /** This instance's id (letters, digits, _ and -). Stable per replica resumes its own orders at once after a restart; unset: random. */
  @IsOptional()
  @EnvText({ max: 64, pattern: INSTANCE, describe: '1-64 letters, digits, _ or -' })
  INSTANCE_ID?: string;
  /** An instance whose heartbeat has not moved this long is dead: its orders are taken over. */
  @EnvMs(500, 600_000) INSTANCE_LEASE_MS: number = 3_000;
  /** How often open orders are checked for an owner (resume, takeover). */
  @EnvMs(100, 600_000) OWNERSHIP_SWEEP_MS: number = 1_000;

  // ---- Quotes
  /** A quote's life (§2.2 rule 4, §8: 10 minutes). */
  @EnvMs(1_000, DAY_MS) QUOTE_LIFE_MS: number = 600_000;
  /**
   * An accepted order's command must leave for the venue within this (and before its quote expires): the
   * connector refuses to send it later (FAILED SEND_DEADLINE_PASSED, never sent) — a connector down or stalled
   * must not fire orders minutes later on quotes the market has left.
   */
  @EnvMs(1_000, 600_000) ORDER_SEND_DEADLINE_MS: number = 10_000;
  /** How long a place request by quote request waits for a live quote of its stream. */
  @EnvMs(10, 60_000) QUOTE_WAIT_MS: number = 3_000;
  /** Timeout of requests to the connector (stream.subscribe). */
  @EnvMs(100, 60_000) CONNECTOR_REQUEST_TIMEOUT_MS: number = 5_000;
  /**
   * /health degrades (check `connector`) once no connector has been heard with its venue session open for this
   * long: orders accepted then fail SEND_DEADLINE_PASSED. Above the connector's STATUS_INTERVAL_MS (5 s).
   */
  @EnvMs(1_000, 3_600_000) CONNECTOR_STALE_MS: number = 15_000;
  /**
   * A live price stream counts as stale here once neither it nor the connector (its status) has been heard for
   * this long: its quotes are refused (QUOTE_STALE) and an order by quote request waits for a fresh one. A
   * connector that dies or is cut off never publishes `stale` itself. Above the connector's STATUS_INTERVAL_MS (5 s).
   */
  @EnvMs(1_000, 600_000) PRICE_SILENT_STALE_MS: number = 12_000;

  // ---- Reconciliation
  /** The venue's own records (trade list) are first read this long after an order was sent without outcome. */
  @EnvMs(0, DAY_MS) VENUE_CHECK_AFTER_MS: number = 30_000;
  @EnvMs(10, 600_000) RECONCILE_INITIAL_MS: number = 2_000;
  @EnvMs(10, DAY_MS) RECONCILE_MAX_MS: number = 60_000;
  /** "Not executed" is concluded no earlier than this after the quote's expiry. */
  @EnvMs(0, DAY_MS) NOT_EXECUTED_GRACE_MS: number = 60_000;
  /** Trade-list reads for the figures of a SUCCESS whose outcome has none, before the quote's are used. */
  @EnvInt(1, 100) FILL_LOOKUPS: number = 5;

  // ---- Venue REST (trade list, order state); the credentials are shared
  /** The execution app uses tonce (a nonce is per API key and owned by the connector's process). */
  @EnvEnum(['tonce']) VENUE_ANTI_REPLAY = 'tonce' as const;
  /** This process's share of the venue's 30 requests/s per IP (connector 4, execution 4, account-sync 20). */
  @EnvInt(1, 30) VENUE_REST_REQUESTS_PER_SECOND: number = 4;
  @EnvMs(100, 600_000) VENUE_REST_TIMEOUT_MS: number = 10_000;

  // ---- Pre-trade risk (docs/execution-risk.md)
  /** The limits file (JSON), validated at start-up naming each bad entry; unset: only quote checks and trading states. */
  @IsOptional() @EnvText({ max: 4_096, describe: 'a file path' }) RISK_LIMITS_FILE?: string;
  /** true: global HALTED is written (audited) at start, before any order; resume over NATS. */
  @EnvBoolean() TRADING_KILL_SWITCH: boolean = false;

  // ---- Process
  @EnvMs(100, 600_000) SHUTDOWN_WAIT_MS: number = 5_000;
  /** Distinct reject codes, and strategy ids configured or with an accepted order, kept as metric labels (then `other`). */
  @EnvInt(1, 10_000) METRIC_LABEL_VALUES_MAX: number = 100;
  /** Fault injection for tests only: SIGKILL itself right after this step of a new order. Never set in production. */
  @IsOptional()
  @EnvEnum(['after-key-claim', 'after-intent', 'after-send'])
  FAULT_CRASH_AT?: 'after-key-claim' | 'after-intent' | 'after-send';
  /** Fault injection for tests only: start-up pauses this long once its streams are declared. Never in production. */
  @IsOptional()
  @EnvInt(1, 600_000)
  FAULT_START_PAUSE_MS?: number;

  crossChecks(): CrossRule<this>[] {
    return [
      (c) =>
        c.ORDER_RETENTION_MS < c.ORDER_EVENT_DUPLICATE_WINDOW_MS
          ? 'ORDER_RETENTION_MS must be at least ORDER_EVENT_DUPLICATE_WINDOW_MS'
          : undefined,
      (c) =>
        c.RECONCILE_INITIAL_MS > c.RECONCILE_MAX_MS
          ? 'RECONCILE_INITIAL_MS must not exceed RECONCILE_MAX_MS'
          : undefined,
      (c) =>
        c.OWNERSHIP_SWEEP_MS > c.INSTANCE_LEASE_MS ? 'OWNERSHIP_SWEEP_MS must not exceed INSTANCE_LEASE_MS' : undefined,
      (c) => (c.RISK_LIMITS_FILE !== undefined ? limitsFileProblemsAt(c.RISK_LIMITS_FILE) : undefined),
    ];
  }
}

/** The token the validated config is provided under. */
export const EXECUTION_CONFIG = Symbol('ExecutionConfig');
