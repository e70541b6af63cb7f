/** Last-value message on `{prefix}.{account}.connector.status`. */
export type SessionState = 'idle' | 'fetchingToken' | 'connecting' | 'open' | 'backoff' | 'draining' | 'stopped';

/**
 * Why the last attempt to open the venue session failed, as a code of this list: the token request refused
 * (401/403: key, secret, signature encoding, clock), throttled (429) or failed otherwise (unreachable, no answer,
 * 5xx), or the socket refused (a non-101 answer) or failed before it opened.
 */
export const SESSION_FAILURE_CODES = [
  'token-refused',
  'token-throttled',
  'token-failed',
  'socket-refused',
  'socket-failed',
] as const;
export type SessionFailureCode = (typeof SESSION_FAILURE_CODES)[number];

export interface SessionFailure {
  code: SessionFailureCode;
  /**
   * Bounded (at most 64 characters) and made by the gateway, never venue text nor a secret: `HTTP 401`,
   * `no response in time`, `venue unreachable`, a system code (`ECONNRESET`) or an error class name.
   */
  reason: string;
  /** Epoch ms of the failure. */
  at: number;
}

export interface ConnectorStatus {
  v: 1;
  account: string;
  sessionState: SessionState;
  /** Epoch ms the session entered its state (a session cycling backoff → fetchingToken … moves it at every retry). */
  since: number;
  /**
   * Epoch ms since when the session has not been open: when it last left `open`, or when the connector started if
   * it has not been open since. Absent while open (and from a connector older than it).
   */
  notOpenSince?: number;
  /** Whether the session has been open since the connector started. Absent from a connector older than it. */
  everOpen?: boolean;
  /** Why the last attempt to open it failed; absent once it opens, or when no attempt has failed since. */
  lastFailure?: SessionFailure;
  reconnects: number;
  subscriptions: { live: number; stale: number; pending: number };
  /** Age of the newest price published, ms; absent before the first price. */
  lastPriceAgeMs?: number;
  /**
   * How long each order waiting to be sent holds the ones behind it now, ms (whole): the mean of the last few
   * orders' cycles — the order gap, or the venue's late answer + its interval — never below the gap. An order with
   * N commands ahead of it leaves in about (N + 1) × this. Absent from a connector older than it.
   */
  orderQueuePaceMs?: number;
  /**
   * Epoch ms this connector process started (the same in every status of one life): a later value means it was
   * restarted — a live price heard before that life's first status is the earlier life's, which no one keeps
   * fresh. Absent from a connector older than it.
   */
  startedAt?: number;
  publishedAt: number;
}
