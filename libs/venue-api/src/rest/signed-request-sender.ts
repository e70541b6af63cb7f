/**
 * Sends one venue REST call: waits for the rate limiter, takes a fresh tonce/nonce, writes the body once
 * with `stringifyJson`, signs exactly that text (§5.2) and sends exactly that text. Retries are new
 * requests (fresh anti-replay value, new signature):
 *   - throttled (429): after the limiter's shared pause, up to `throttleRetries` times;
 *   - an authentication failure: once, because a nonce that lost a race with a concurrent request (or a tonce
 *     overtaken by one, where the venue wants tonces increasing, §5.4 rule 4) reads as an auth failure, and an
 *     auth failure is definitively "not processed" (§5.5).
 *   - a read whose connection was lost under it (ECONNRESET, "other side closed", EPIPE: the server closed the
 *     pooled keep-alive connection it was sent on): once, on a fresh connection (reads are safe to repeat).
 * Never retried: 5xx, timeouts and lost connections of state-changing calls (outcome unknown, §7.2). Those never
 * ride a pooled connection (`freshConnectionFetch`): a server's idle timeout closing one as it is reused would
 * lose a request the venue never saw, reported as outcome unknown (t2 F3).
 */
import type { AntiReplaySource } from '../auth/anti-replay.js';
import { signRequest, type SignatureEncoding } from '../auth/signing.js';
import { stringifyJson } from '../money/lossless-json.js';
import type { VenueRestClientConfig, VenueRestEvents } from './client-config.js';
import {
  VenueConnectionError,
  VenueOutcomeUnknownError,
  VenueRateLimitedError,
  VenueTimeoutError,
  type VenueErrorDetails,
} from './errors.js';
import { freshConnectionFetch, type FetchFunction } from './fresh-connection-fetch.js';
import { RestHeader } from './paths.js';
import { RestRateLimiter, systemLimiterClock, type LimiterClock } from './rate-limiter.js';
import { classifyResponse, type EndpointFamily } from './response-outcome.js';
import { connectionLost, neverSent, transportCauseLabel, transportCauseOf } from './transport-cause.js';

export interface VenueCall {
  /** Client operation name, used in errors and events. */
  operation: string;
  /** Path with its leading slash, no query (e.g. `/api/3/trades`). */
  path: string;
  family: EndpointFamily;
  /** Submit, cancel, transfer: a 5xx or a lost response means the outcome is unknown. */
  stateChanging: boolean;
  /** A 2xx with no body is a success (a response the spec does not show; `ResponseContext`). */
  emptySuccessBody?: boolean;
  /** Body fields besides tonce/nonce; `undefined` values are left out. */
  body?: Record<string, unknown>;
  /** Unsigned query parameters (§5.2: the query string is never signed). */
  query?: Record<string, string>;
  /**
   * Runs once, after the limiter let the first attempt go and right before its request is made: the caller's
   * durable "this may leave now" (a withdrawal's send mark). A rejection sends nothing and is thrown as is.
   */
  beforeSend?: () => Promise<void>;
}

export interface VenueReply {
  status: number;
  /** Losslessly parsed body (numbers are `JsonNumber`). */
  body: unknown;
}

interface Exchange {
  status: number;
  text: string;
  retryAfter: string | null;
}

// Duck-typed on purpose: fetch's errors may come from another realm (e.g. a test VM), where `instanceof` fails.
function property(value: unknown, key: string): unknown {
  return typeof value === 'object' && value !== null && key in value
    ? (value as Record<string, unknown>)[key]
    : undefined;
}

function timedOut(error: unknown): boolean {
  const name = property(error, 'name');
  return name === 'TimeoutError' || name === 'AbortError';
}

export class SignedRequestSender {
  private readonly baseUrl: string;
  private readonly apiKey: string;
  private readonly apiSecret: string;
  private readonly encoding: SignatureEncoding;
  private readonly antiReplay: AntiReplaySource;
  private readonly fetch: FetchFunction;
  private readonly freshFetch: FetchFunction;
  private readonly timeoutMs: number;
  private readonly throttleRetries: number;
  private readonly events: VenueRestEvents;
  private readonly clock: LimiterClock;
  readonly limiter: RestRateLimiter;

  constructor(config: VenueRestClientConfig) {
    this.baseUrl = config.baseUrl.replace(/\/+$/, '');
    this.apiKey = config.apiKey;
    this.apiSecret = config.apiSecret;
    this.encoding = config.signatureEncoding ?? 'base64';
    this.antiReplay = config.antiReplay;
    this.fetch = config.fetch ?? globalThis.fetch;
    this.freshFetch = config.freshConnectionFetch ?? freshConnectionFetch;
    this.timeoutMs = config.timeoutMs ?? 10_000;
    this.throttleRetries = config.throttleRetries ?? 5;
    this.events = config.events ?? {};
    this.clock = config.clock ?? systemLimiterClock;
    const limiterOptions: ConstructorParameters<typeof RestRateLimiter>[0] = { clock: this.clock };
    if (config.requestsPerSecond !== undefined) limiterOptions.requestsPerSecond = config.requestsPerSecond;
    if (config.initialBackoffMs !== undefined) limiterOptions.initialBackoffMs = config.initialBackoffMs;
    if (config.maxBackoffMs !== undefined) limiterOptions.maxBackoffMs = config.maxBackoffMs;
    if (config.maxInFlight !== undefined) limiterOptions.maxInFlight = config.maxInFlight;
    if (config.random !== undefined) limiterOptions.random = config.random;
    if (config.startWindowFull !== undefined) limiterOptions.startWindowFull = config.startWindowFull;
    this.limiter = new RestRateLimiter(limiterOptions);
  }

  get origin(): string {
    return this.baseUrl;
  }

  /** A signed POST with retries as described above. */
  send(call: VenueCall): Promise<VenueReply> {
    return this.perform(call, this.urlOf(call), async () => {
      const antiReplay = await this.antiReplay.next();
      const bodyText = stringifyJson({ [antiReplay.field]: antiReplay.value, ...(call.body ?? {}) });
      const signature = signRequest(call.path, bodyText, this.apiSecret, this.encoding);
      return {
        init: {
          method: 'POST',
          headers: {
            'Content-Type': 'application/json',
            Accept: 'application/json',
            [RestHeader.Key]: this.apiKey,
            [RestHeader.Sign]: signature,
          },
          body: bodyText,
        },
      };
    });
  }

  /** An unsigned GET (the webhook address list, §4.12); still counted by the limiter (same IP budget). */
  getUnsigned(operation: string, url: string): Promise<VenueReply> {
    const call: VenueCall = { operation, path: new URL(url).pathname, family: 'standard', stateChanging: false };
    return this.perform(call, url, () =>
      Promise.resolve({ init: { method: 'GET', headers: { Accept: 'application/json' } } }),
    );
  }

  /** `prepare` runs once per attempt, after the limiter let it go, so each attempt is freshly signed. */
  private async perform(
    call: VenueCall,
    url: string,
    prepare: () => Promise<{ init: RequestInit }>,
  ): Promise<VenueReply> {
    let authRetried = false;
    let connectionRetried = false;
    let throttled = 0;
    let marked = call.beforeSend === undefined;
    for (;;) {
      const asked = this.clock.now();
      const permit = await this.limiter.acquire();
      this.events.onBudgetWait?.(call.operation, this.clock.now() - asked);
      if (!marked) {
        try {
          await call.beforeSend?.();
        } catch (error) {
          this.limiter.release(permit);
          throw error;
        }
        marked = true;
      }
      let exchange: Exchange;
      try {
        const attempt = await prepare();
        exchange = await this.exchange(call, url, attempt.init, connectionRetried);
      } catch (error) {
        this.limiter.release(permit);
        const cause =
          error instanceof VenueConnectionError || error instanceof VenueOutcomeUnknownError
            ? error.transportCause
            : undefined;
        if (cause !== undefined) this.events.onResponse?.(call.operation, 'connection', transportCauseLabel(cause));
        else if (error instanceof VenueTimeoutError || error instanceof VenueOutcomeUnknownError) {
          this.events.onResponse?.(call.operation, 'timeout');
        }
        // A read whose pooled connection the server closed under it: once more, on a fresh connection.
        if (
          error instanceof VenueConnectionError &&
          cause !== undefined &&
          connectionLost(cause) &&
          !connectionRetried
        ) {
          connectionRetried = true;
          this.events.onRetry?.(call.operation, 'connection-lost');
          continue;
        }
        throw error;
      }
      this.events.onResponse?.(call.operation, exchange.status);
      const outcome = classifyResponse(call, exchange.status, exchange.text, exchange.retryAfter, this.clock.now());
      if (outcome.kind === 'throttled') {
        const pauseMs = this.limiter.reportThrottled(permit, outcome.retryAfterMs);
        this.events.onThrottled?.(call.operation, pauseMs);
        if (throttled >= this.throttleRetries) throw new VenueRateLimitedError(outcome.details);
        throttled += 1;
        this.events.onRetry?.(call.operation, 'throttled');
        continue;
      }
      this.limiter.release(permit);
      if (outcome.kind === 'ok') return { status: outcome.status, body: outcome.body };
      // An auth failure is definitively "not processed" (§5.5): one retry, freshly signed. A nonce that lost a race
      // reads as one; so does a tonce that another process (or another call in flight) of the same key overtook
      // on a venue that wants tonces increasing on these endpoints (§5.4 rule 4: "replayed, lower or stale").
      if (outcome.authFailure && !authRetried) {
        authRetried = true;
        this.events.onRetry?.(call.operation, 'auth-failure');
        continue;
      }
      throw outcome.error;
    }
  }

  private urlOf(call: VenueCall): string {
    const query = call.query === undefined ? '' : `?${new URLSearchParams(call.query).toString()}`;
    return `${this.baseUrl}${call.path}${query}`;
  }

  /** State-changing calls, and a read sent again after a lost connection, go on a fresh connection. */
  private async exchange(call: VenueCall, url: string, init: RequestInit, fresh: boolean): Promise<Exchange> {
    const info: VenueErrorDetails = { operation: call.operation };
    const send = call.stateChanging || fresh ? this.freshFetch : this.fetch;
    try {
      const response = await send(url, { ...init, signal: AbortSignal.timeout(this.timeoutMs) });
      const text = await response.text();
      return { status: response.status, text, retryAfter: response.headers.get('retry-after') };
    } catch (error) {
      // The error of fetch is never attached: it is not ours to vouch for (headers must not leak). Only the code
      // of its cause is kept (bounded), so an operator can tell "never left" from "lost after it left".
      if (timedOut(error)) {
        if (call.stateChanging) throw new VenueOutcomeUnknownError(info, 'no response in time');
        throw new VenueTimeoutError(info);
      }
      const cause = transportCauseOf(error);
      if (call.stateChanging && !neverSent(error, cause)) {
        throw new VenueOutcomeUnknownError(info, `connection lost: ${cause}`, cause);
      }
      throw new VenueConnectionError(info, cause);
    }
  }
}
