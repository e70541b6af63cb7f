import type { SignatureEncoding } from '#venue-api';
import { CONTESTED_WINDOW_MS } from './session/session-machine.js';

/**
 * Everything the venue side of the connector needs, validated by the app's config before it gets here.
 * The NATS side provides it under the `VENUE_OPTIONS` injection token.
 */
export interface VenueOptions {
  restBaseUrl: string;
  /** `ws(s)://host/svc/ws/ws-client`, without query string: token and sessionId are added per connect. */
  wsUrl: string;
  apiKey: string;
  apiSecret: string;
  signatureEncoding: SignatureEncoding;
  /** Stable per account: order outcomes are redelivered on it after a reconnect (W7). */
  sessionId: string;
  antiReplay: 'tonce' | 'nonce';
  /** Where the persistent nonce lives when `antiReplay` is `nonce`. */
  nonceDir?: string;
  /** A stream with no update for this long is published as `stale`. */
  staleAfterMs: number;
  /** W13: the venue's price updates per second shared by the connection's streams, told; unset: judged from the updates. */
  connectionPriceRate?: number;
  /** No frame (nor pong) for this long: the socket is dead even if TCP says otherwise; reconnect. */
  stallTimeoutMs: number;
  reconnect: { initialMs: number; maxMs: number };
  /** Refresh the connection (fresh token, same sessionId) before this age, ahead of any venue limit. */
  connectionMaxAgeMs: number;
  /** No reply to an order within this → reconcile through the order-state endpoint. */
  orderReplyTimeoutMs: number;
  /** The NATS account token (names the venue account this connector serves). */
  account: string;

  // ---- optional tuning (defaults in `withDefaults`)
  /** Client-side budget of the whole socket (§8: 30/s per account). */
  messagesPerSecond?: number;
  /** Sliding window for `messagesPerSecond`; a little over 1 s absorbs network jitter (default 1100). */
  messageWindowMs?: number;
  /** Minimum gap between order frames (§8: 1 per 250 ms; default 300: 50 ms for jitter between us and the venue's count). */
  orderIntervalMs?: number;
  /**
   * The order gap adapts (spec-gaps K1): each `ORDER_RATE_LIMITED` refusal widens it by `orderIntervalStepMs`
   * up to `orderIntervalMaxMs`; each run of `orderIntervalNarrowAfter` orders let through narrows it by one
   * step, never below `orderIntervalMs` (defaults 1000 ms, 50 ms, 20 orders).
   */
  orderIntervalMaxMs?: number;
  orderIntervalStepMs?: number;
  orderIntervalNarrowAfter?: number;
  /**
   * The venue's interval between two orders' arrivals (§8: 1 per 250 ms; default 250), counted from its first
   * answer to the previous order, which it read no later (spec-gaps K1). An unanswered order holds the next one
   * until its answer, at most `orderIntervalMaxMs` from its send.
   */
  orderPaceMs?: number;
  /** How long `acquire` waits for the venue's subscribe acknowledgement (default 10 s). */
  subscribeTimeoutMs?: number;
  /** A price stamped more than this ahead of the local clock is refused and counted (default 60 s). */
  priceMaxAheadMs?: number;
  /** How long an account-group lookup waits for its reply (default 5 s). */
  accountGroupsTimeoutMs?: number;
  /** How long an order waits for an open session before it is refused unsent (default 5 s). */
  orderSendTimeoutMs?: number;
  /** After a (re)connect, how long reconciliation waits for redelivered outcomes (default 1 s). */
  redeliveryGraceMs?: number;
  /** A connection open at least this long resets the backoff; shorter ones count as failures (default 2 s). */
  stableConnectionMs?: number;
  /**
   * The session is contested (another client connects with our sessionId) once the venue replaced our connection
   * twice within this window (default 5 min); /health and `connector_venue_session_replacements_recent` read it.
   */
  sessionContestedWindowMs?: number;
  /** Price streams this connector holds at most; a request for one more is refused STREAM_LIMIT (default 2,000). */
  maxStreams?: number;
  /** Bound on draining at shutdown (default 2 s). */
  drainTimeoutMs?: number;
  /** REST request timeout for token and order-state calls (default 10 s). */
  restTimeoutMs?: number;
  /** This process's share of the venue's 30 REST requests/s per IP (COMMON decision: connector 4). */
  restRequestsPerSecond?: number;
  /** Order-state checks of an unresolved order: first backoff delay (default 5 s), doubled up to the max (5 min). */
  reconcileInitialMs?: number;
  reconcileMaxMs?: number;
  /** How long an unresolved order is checked: the venue's order-state retention (default 24 h, §4.10). */
  reconcileHorizonMs?: number;
  /** Where the WebSocket token sits in the token reply (dotted path); default: any plausible shape (W1). */
  tokenPath?: string;
}

export const VENUE_OPTIONS = 'VENUE_OPTIONS';

export type ResolvedVenueOptions = Required<Omit<VenueOptions, 'nonceDir' | 'tokenPath' | 'connectionPriceRate'>> &
  Pick<VenueOptions, 'nonceDir' | 'tokenPath' | 'connectionPriceRate'>;

export function withDefaults(options: VenueOptions): ResolvedVenueOptions {
  return {
    restRequestsPerSecond: 4,
    messagesPerSecond: 30,
    messageWindowMs: 1100,
    orderIntervalMs: 300,
    orderIntervalMaxMs: 1_000,
    orderIntervalStepMs: 50,
    orderIntervalNarrowAfter: 20,
    orderPaceMs: 250,
    subscribeTimeoutMs: 10_000,
    priceMaxAheadMs: 60_000,
    accountGroupsTimeoutMs: 5_000,
    orderSendTimeoutMs: 5_000,
    redeliveryGraceMs: 1_000,
    stableConnectionMs: 2_000,
    sessionContestedWindowMs: CONTESTED_WINDOW_MS,
    maxStreams: 2_000,
    drainTimeoutMs: 2_000,
    restTimeoutMs: 10_000,
    reconcileInitialMs: 5_000,
    reconcileMaxMs: 300_000,
    reconcileHorizonMs: 24 * 60 * 60 * 1000,
    ...options,
  };
}
