/** Configuration of {@link VenueRestClient}. */
import type { AntiReplaySource } from '../auth/anti-replay.js';
import type { SignatureEncoding } from '../auth/signing.js';
import type { FetchFunction } from './fresh-connection-fetch.js';
import type { LimiterClock } from './rate-limiter.js';

/** Hooks for metrics; never called with a secret, a signature or a token. */
export interface VenueRestEvents {
  /** The venue throttled `operation`; the limiter paused for `pauseMs` (0 when an earlier pause covered it). */
  onThrottled?(operation: string, pauseMs: number): void;
  /** `operation` is being sent again, with a fresh anti-replay value and signature. */
  onRetry?(operation: string, reason: 'throttled' | 'auth-failure' | 'connection-lost'): void;
  /** `operation` waited `waitMs` for the limiter before it could leave (0 when it left at once). */
  onBudgetWait?(operation: string, waitMs: number): void;
  /**
   * An attempt of `operation` ended: its HTTP status, or `timeout` / `connection` when none came back; with
   * `connection`, the failure's low-level code from a bounded set (`ECONNRESET`, `UND_ERR_SOCKET`…, else `other`).
   */
  onResponse?(operation: string, status: number | 'timeout' | 'connection', cause?: string): void;
  /** A row of `operation`'s list could not be read (it lacks what identifies it) and was left out. */
  onRowSkipped?(operation: string, problem: string): void;
}

export interface VenueRestClientConfig {
  /** REST base address, e.g. `https://api.example` (no trailing `/api/3`). */
  baseUrl: string;
  apiKey: string;
  /** Never logged, never part of an error. */
  apiSecret: string;
  /** R1: default `base64` (secret Base64-decoded, digest Base64). */
  signatureEncoding?: SignatureEncoding;
  /** Supplies `tonce` or `nonce` for every body (§4.1). One source per API key. */
  antiReplay: AntiReplaySource;
  /**
   * Requests per sliding second (§8: 30 per connecting IP). Processes sharing an egress IP must split
   * the venue's 30 between them. Default 30.
   */
  requestsPerSecond?: number;
  /**
   * Requests in flight at once (default unlimited within the window). Nonce mode: the venue refuses a
   * nonce lower than one it already saw, and requests on different connections can overtake each other;
   * an auth failure is retried once, but `1` guarantees arrival in draw order (at the cost of throughput).
   */
  maxInFlight?: number;
  /** See `RateLimiterOptions.startWindowFull`: the first second after start-up is counted as fully used. */
  startWindowFull?: boolean;
  /** Fetch of reads, which may reuse pooled keep-alive connections (default: Node's global fetch). */
  fetch?: FetchFunction;
  /**
   * Fetch of state-changing calls and of a read's one retry after its pooled connection was lost: a fresh
   * connection per request, so no server idle timeout can close it under the request (default:
   * `freshConnectionFetch`). Injectable for tests.
   */
  freshConnectionFetch?: FetchFunction;
  /** Whole-request timeout (headers and body), default 10 000 ms. */
  timeoutMs?: number;
  /** How often a throttled (429) request is retried before `VenueRateLimitedError`; default 5. */
  throttleRetries?: number;
  /** First throttle pause before jitter (default 500 ms) and the backoff cap (default 30 s). */
  initialBackoffMs?: number;
  maxBackoffMs?: number;
  /**
   * W1: dotted path of the token in the token response (e.g. `token`, `data.token`); default: any of the
   * plausible shapes (records/token.ts).
   */
  tokenPath?: string;
  /** §4.12 address list; default `{baseUrl}/.well-known/webhooks/ips.json`. */
  webhookIpsUrl?: string;
  /** Limiter clock and jitter source, for tests. */
  clock?: LimiterClock;
  random?: () => number;
  events?: VenueRestEvents;
}
