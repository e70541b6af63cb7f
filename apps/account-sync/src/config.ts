/**
 * The account-sync app's environment, validated once at start-up by `loadConfig` (every bad variable is
 * listed by name, never with its value). Nothing else in the app reads `process.env`. Documented in
 * docs/account-sync.md#configuration. The variables every app shares are ServiceEnv (#observability) and the
 * mixins of #bus (NATS) and #venue-api (credentials, anti-replay).
 *
 * Sections: HTTP, logs, NATS, venue REST (one budget per process, COMMON decision), REST sync schedule. The
 * webhook receiver and withdrawals add their own sections below theirs markers.
 */
import { IsOptional, ValidateBy } from 'class-validator';
import { withNatsEnv } from '#bus';
import {
  EnvEnum,
  EnvHost,
  EnvInt,
  EnvMs,
  EnvPort,
  EnvText,
  EnvUrl,
  ServiceEnv,
  type CrossChecked,
  type CrossRule,
} from '#observability';
import { withVenueAntiReplayEnv, withVenueCredentialsEnv } from '#venue-api';
import { cidrListProblems } from './webhooks/cidr-set.js';

const DAY_MS = 24 * 3_600_000;

export class AccountSyncConfig
  extends withVenueAntiReplayEnv(withVenueCredentialsEnv(withNatsEnv(ServiceEnv)))
  implements CrossChecked
{
  // Shared variables (HTTP, logs, NATS, venue credentials, anti-replay, DEFAULT_METRICS): ServiceEnv and its mixins.
  override HTTP_PORT: number = 3003;

  // ---- NATS (account event streams)
  /** JetStream duplicate window of the account event streams (the KV state deduplicates beyond it). */
  @EnvInt(1_000, 7 * DAY_MS) ACCOUNT_EVENT_DUPLICATE_WINDOW_MS: number = DAY_MS;
  /** How long account events are kept on their stream; at least the duplicate window (cross-checked). */
  @EnvInt(60_000, 365 * DAY_MS) ACCOUNT_EVENT_RETENTION_MS: number = 30 * DAY_MS;

  // ---- Venue REST
  /**
   * This process's share of the venue's 30 requests/s per IP (§8). Connector 4 + execution 4 + account-sync
   * 20 = 28: the sum over every process behind one egress address must stay at or below 30.
   */
  @EnvInt(1, 30) VENUE_REST_REQUESTS_PER_SECOND: number = 20;
  @EnvMs(100, 600_000) VENUE_REST_TIMEOUT_MS: number = 10_000;
  /** At SIGTERM, how long the parts together may take to stop (a call to a venue that does not answer is left). */
  @EnvMs(100, 600_000) SHUTDOWN_WAIT_MS: number = 5_000;
  /** §4.12 address list; default `{VENUE_REST_URL}/.well-known/webhooks/ips.json`. */
  @IsOptional() @EnvUrl({ schemes: ['http', 'https'] }) VENUE_WEBHOOK_IPS_URL?: string;

  // ---- REST sync schedule
  /** Balances, trades, transactions (with a few pages of their sweeps), transfers and credit limits this often. */
  @EnvMs(500, DAY_MS) SYNC_FAST_INTERVAL_MS: number = 15_000;
  /** Account details, beneficiaries, senders and pairs (they rarely change) are refreshed this often. */
  @EnvMs(1_000, DAY_MS) SYNC_SLOW_INTERVAL_MS: number = 300_000;
  /** The trade and transaction sweeps go back this far before the newest record held (late or re-dated records). */
  @EnvMs(0, 30 * DAY_MS) SYNC_OVERLAP_MS: number = 3_600_000;
  /**
   * Pages (of 200) of the trade and of the transaction sweep each periodic run reads: a pass over N records in the
   * window takes ceil(N / (200 × this)) fast intervals, and a pending record's state change is seen within two.
   */
  @EnvInt(1, 100) SYNC_SWEEP_PAGES: number = 5;
  /** A resource whose last good sync is older than this many of its intervals makes /health down. */
  @EnvInt(2, 1_000) SYNC_STALE_INTERVALS: number = 3;
  /**
   * How long the venue's transaction list must keep showing another final state than a webhook gave before the leg
   * is corrected to the list's (spec-gaps WH12): several list reads, so a read that lags a genuine webhook is none.
   */
  @EnvMs(0, DAY_MS) TRANSACTION_CORRECTION_AFTER_MS: number = 60_000;
  /** A leg only a webhook gave, still not in the venue's transaction list this long after: flagged (WH13). */
  @EnvMs(1_000, DAY_MS) TRANSACTION_UNCONFIRMED_AFTER_MS: number = 600_000;
  /** Wait after an order outcome or a webhook before the refresh (coalesces a burst into one refresh). */
  @EnvMs(0, 60_000) SYNC_TRIGGER_DELAY_MS: number = 250;
  /** A triggered read of a resource starts at least this long after its previous read started (at most one per gap). */
  @EnvMs(0, 60_000) SYNC_TRIGGER_MIN_GAP_MS: number = 1_000;
  /** How long an order outcome may stay unacknowledged before the server redelivers it to this app. */
  @EnvMs(1_000, 3_600_000) ORDER_OUTCOME_ACK_WAIT_MS: number = 30_000;

  // ---- One writer per account (apps/account-sync/src/lease)
  /**
   * The account's writer lease: a holder not renewing it for this long is taken over by a standby (a holder
   * stops writing earlier, after ¾ of it); renewed every ¼ of it.
   */
  @EnvMs(1_000, 120_000) ACCOUNT_LEASE_MS: number = 30_000;

  // ---- Webhook receiver (apps/account-sync/src/webhooks): variables below this line
  /** The receiver's own port (the URL registered in the venue portal); /health and /metrics stay on HTTP_PORT. */
  @EnvPort() WEBHOOK_PORT: number = 3013;
  @EnvHost() WEBHOOK_HOST: string = '0.0.0.0';
  @EnvText({ max: 255, pattern: /^\/[A-Za-z0-9._~/-]*$/, describe: 'a URL path such as /webhooks/venue' })
  WEBHOOK_PATH: string = '/webhooks/venue';
  /** A notification is about 1 KB; a larger body is refused with 413. */
  @EnvInt(1_024, 1_048_576) WEBHOOK_MAX_BODY_BYTES: number = 65_536;
  /** Comma-separated CIDRs of reverse proxies whose X-Forwarded-For is trusted; unset: the socket peer only. */
  @IsOptional()
  @ValidateBy({
    name: 'isCidrList',
    validator: {
      validate: (value: unknown) => typeof value === 'string' && value.length <= 4_096 && cidrListProblems(value) === 0,
      defaultMessage: () => 'WEBHOOK_TRUSTED_PROXIES must be a comma-separated list of CIDR blocks or addresses',
    },
  })
  WEBHOOK_TRUSTED_PROXIES?: string;
  /** ips.json is fetched at start and this often (a new `version` reloads it; a failed fetch keeps the last list). */
  @EnvMs(1_000, DAY_MS) WEBHOOK_IPS_REFRESH_MS: number = 300_000;
  /** A notification not stored by then is answered 503 (retried with backoff) and stored on; below the venue's 10 s (§6.1). */
  @EnvMs(100, 9_500) WEBHOOK_ANSWER_DEADLINE_MS: number = 8_000;
  /** How long transaction states and withdrawal changes stay on their streams; 0 keeps them (a late notification of an old uuid stays stale). */
  @EnvInt(0, 10 * 365 * DAY_MS) TRANSACTION_RETENTION_MS: number = 0;

  // ---- Withdrawals (apps/account-sync/src/withdrawals): variables below this line
  /** The venue's withdrawal lists are polled this often while a request is not final. */
  @EnvMs(100, 3_600_000) WITHDRAWAL_POLL_MS: number = 5_000;
  /** A request of unknown outcome absent from the lists this long is NOT_FOUND (never re-sent either way). */
  @EnvMs(1_000, DAY_MS) WITHDRAWAL_UNKNOWN_SETTLE_MS: number = 120_000;
  /** A NOT_FOUND request is still looked for in the lists this long: a later sighting moves it on. */
  @EnvMs(0, 90 * DAY_MS) WITHDRAWAL_NOT_FOUND_WATCH_MS: number = 7 * DAY_MS;
  /**
   * A request answered REJECTED on a 401 (§5.5: "not processed") is still looked for in the lists this long: a venue
   * that carried it out anyway moves it to the venue's state, reported once. As long as the NOT_FOUND watch (the
   * same lagging lists); 0 turns it off.
   */
  @EnvMs(0, 90 * DAY_MS) WITHDRAWAL_REJECTED_WATCH_MS: number = 7 * DAY_MS;
  /** A request not final and unchanged this long counts in account_sync_withdrawals_stuck. */
  @EnvMs(1_000, 30 * DAY_MS) WITHDRAWAL_STUCK_AFTER_MS: number = DAY_MS;
  /**
   * The withdrawal records' restoration after NATS lost them (WD9) failing this long turns /health's `withdrawals`
   * check down, naming why (the metric account_sync_withdrawals_restoring_seconds counts from the first failure).
   */
  @EnvMs(0, DAY_MS) WITHDRAWAL_RESTORE_GRACE_MS: number = 60_000;
  /** Account details (bank accounts, wallets) used to check a withdrawal are reused this long. */
  @EnvMs(0, DAY_MS) WITHDRAWAL_ACCOUNT_DETAILS_TTL_MS: number = 60_000;
  /** Most rows per kind a list reply carries (a NATS reply is bounded). */
  @EnvInt(1, 2_000) WITHDRAWAL_LIST_LIMIT: number = 500;

  /** Fault injection for tests only: SIGKILL itself at this step of a withdrawal's send. Never set in production. */
  @IsOptional()
  @EnvEnum(['before-send-mark', 'after-send-mark', 'before-send-mark-removal'])
  FAULT_CRASH_AT?: 'before-send-mark' | 'after-send-mark' | 'before-send-mark-removal';

  crossChecks(): CrossRule<this>[] {
    // Every stream with a retention takes ACCOUNT_EVENT_DUPLICATE_WINDOW_MS as its duplicate window: the account
    // events, and (when TRANSACTION_RETENTION_MS is not 0, "kept") the transaction and withdrawal change streams.
    const retention =
      (name: 'ACCOUNT_EVENT_RETENTION_MS' | 'TRANSACTION_RETENTION_MS', zeroKeeps: boolean): CrossRule<this> =>
      (c) =>
        (zeroKeeps && c[name] === 0) || c[name] >= c.ACCOUNT_EVENT_DUPLICATE_WINDOW_MS
          ? undefined
          : `${name} must be ${zeroKeeps ? '0 (kept) or ' : ''}at least ACCOUNT_EVENT_DUPLICATE_WINDOW_MS (JetStream refuses a duplicate window longer than the retention)`;
    return [
      retention('ACCOUNT_EVENT_RETENTION_MS', false),
      retention('TRANSACTION_RETENTION_MS', true),
      (c) =>
        c.WEBHOOK_PORT !== 0 && c.WEBHOOK_PORT === c.HTTP_PORT
          ? 'WEBHOOK_PORT must differ from HTTP_PORT (/metrics is not exposed to the webhook sender)'
          : undefined,
      (c) =>
        c.SYNC_FAST_INTERVAL_MS > c.SYNC_SLOW_INTERVAL_MS
          ? 'SYNC_FAST_INTERVAL_MS must not exceed SYNC_SLOW_INTERVAL_MS'
          : undefined,
    ];
  }
}

/** The token the validated config is provided under. */
export const ACCOUNT_SYNC_CONFIG = Symbol('AccountSyncConfig');
