/**
 * Typed failures of the venue REST client (§7). Every venue-side error keeps the venue's own code and
 * message (`venueCode`, `venueMessage`) and the HTTP status; the client never invents a venue code.
 *
 * Messages are built only from the operation name, the status and the venue's code and message: never
 * from headers, the signature, the API secret or a WebSocket token.
 */

export interface VenueErrorDetails {
  /** Client operation name, e.g. `listTrades`. */
  operation: string;
  /** HTTP status; undefined when no response arrived (timeout, network) or nothing was sent. */
  status?: number;
  /** The venue's code: `error`, `resultCode` or (withdrawals) none. */
  venueCode?: string;
  /** The venue's message text, when it sent one. */
  venueMessage?: string;
}

function describe(details: VenueErrorDetails, summary: string): string {
  const parts = [`${details.operation}: ${summary}`];
  if (details.status !== undefined) parts.push(`HTTP ${details.status}`);
  if (details.venueCode !== undefined) parts.push(`code ${details.venueCode}`);
  if (details.venueMessage !== undefined) parts.push(`message ${JSON.stringify(details.venueMessage)}`);
  return parts.join(', ');
}

export class VenueRestError extends Error {
  override readonly name: string = 'VenueRestError';
  readonly operation: string;
  readonly status: number | undefined;
  readonly venueCode: string | undefined;
  readonly venueMessage: string | undefined;

  constructor(details: VenueErrorDetails, summary = 'venue request failed') {
    super(describe(details, summary));
    this.operation = details.operation;
    this.status = details.status;
    this.venueCode = details.venueCode;
    this.venueMessage = details.venueMessage;
  }
}

/**
 * Authentication failed: 401, or HTTP 200 with resultCode `UNAUTHORISED`/`INVALID_NONCE_OR_TONCE` on the
 * participant endpoints (R2). The request was not processed.
 *
 * On withdrawal endpoints the venue also answers throttling with the same 401 `Unauthorized` (§5.5, §8):
 * the two cannot be told apart, so `mayBeThrottling` is true there.
 */
export class VenueAuthError extends VenueRestError {
  override readonly name: string = 'VenueAuthError';
  readonly mayBeThrottling: boolean;
  constructor(details: VenueErrorDetails, mayBeThrottling = false) {
    super(details, mayBeThrottling ? 'unauthorized (or throttled: indistinguishable on withdrawals)' : 'unauthorized');
    this.mayBeThrottling = mayBeThrottling;
  }
}

/** 429 after the client's own retries ran out. The request was not processed. */
export class VenueRateLimitedError extends VenueRestError {
  override readonly name: string = 'VenueRateLimitedError';
  constructor(details: VenueErrorDetails) {
    super(details, 'rate limited');
  }
}

/** 404: unknown account group (trades), withdrawal not found in that group (cancel). */
export class VenueNotFoundError extends VenueRestError {
  override readonly name: string = 'VenueNotFoundError';
  /** True when the 404 had no body at all (account details: no originator record, §4.6). */
  readonly emptyBody: boolean;
  constructor(details: VenueErrorDetails, emptyBody = false) {
    super(details, 'not found');
    this.emptyBody = emptyBody;
  }
}

/** 400, 403 or 422: the venue refused the request (bad parameters, missing permission, business rule). */
export class VenueValidationError extends VenueRestError {
  override readonly name: string = 'VenueValidationError';
  constructor(details: VenueErrorDetails) {
    super(details, 'rejected');
  }
}

/** 409: the request is not allowed in the target's current state (cancel of a non-cancellable withdrawal). */
export class VenueConflictError extends VenueRestError {
  override readonly name: string = 'VenueConflictError';
  constructor(details: VenueErrorDetails) {
    super(details, 'conflict');
  }
}

/**
 * A state-changing call whose outcome is not known: 500 (§7.2 "outcome undefined"), a timeout or a lost
 * connection after the request may have left. Never resend blindly: check the list endpoint first.
 */
export class VenueOutcomeUnknownError extends VenueRestError {
  override readonly name: string = 'VenueOutcomeUnknownError';
  /** The lost connection's low-level code (e.g. `ECONNRESET`), also in the message; undefined otherwise. */
  readonly transportCause: string | undefined;
  constructor(details: VenueErrorDetails, why: string, transportCause?: string) {
    super(details, `outcome unknown (${why}); check the list endpoint before resending`);
    this.transportCause = transportCause;
  }
}

/** 405 with the framework body `{apiVersion, timestamp, error}` (§7.2, R4). `venueCode` holds `error`. */
export class VenueWrongMethodError extends VenueRestError {
  override readonly name: string = 'VenueWrongMethodError';
  readonly apiVersion: string | undefined;
  constructor(details: VenueErrorDetails, apiVersion: string | undefined) {
    super(details, 'method not allowed');
    this.apiVersion = apiVersion;
  }
}

/** HTTP 200 carrying an error `resultCode` (e.g. `INVALID_PARAMETERS`) instead of a result (§7.3). */
export class VenueResultCodeError extends VenueRestError {
  override readonly name: string = 'VenueResultCodeError';
  constructor(details: VenueErrorDetails) {
    super(details, 'error result');
  }
}

/** 5xx on a read, or any other status the client does not expect. Nothing changed on the venue. */
export class VenueServerError extends VenueRestError {
  override readonly name: string = 'VenueServerError';
  constructor(details: VenueErrorDetails) {
    super(details, 'unexpected response');
  }
}

/** A read that got no complete response within `timeoutMs`. Nothing changed on the venue; safe to retry. */
export class VenueTimeoutError extends VenueRestError {
  override readonly name: string = 'VenueTimeoutError';
  constructor(details: VenueErrorDetails) {
    super(details, 'no response in time');
  }
}

/**
 * The connection failed: on a read (any network error, after the one retry of a lost pooled connection), or on a
 * state-changing call when the connection was refused or never made (so the request never left). Safe to retry.
 */
export class VenueConnectionError extends VenueRestError {
  override readonly name: string = 'VenueConnectionError';
  /** The low-level code (e.g. `ECONNREFUSED`, `UND_ERR_SOCKET`), also in the message, when known. */
  readonly transportCause: string | undefined;
  constructor(details: VenueErrorDetails, transportCause?: string) {
    super(details, transportCause === undefined ? 'connection failed' : `connection failed (${transportCause})`);
    this.transportCause = transportCause;
  }
}

/** The venue answered with a body the client cannot read (not JSON, or a record of the wrong shape). */
export class VenueProtocolError extends VenueRestError {
  override readonly name: string = 'VenueProtocolError';
  constructor(details: VenueErrorDetails, problem: string) {
    super(details, `unreadable response: ${problem}`);
  }
}

/** Refused by the client before sending (e.g. a fiat amount with 3 decimals). No request was sent. */
export class InvalidVenueRequestError extends VenueRestError {
  override readonly name: string = 'InvalidVenueRequestError';
  readonly field: string;
  constructor(operation: string, field: string, problem: string) {
    super({ operation }, `invalid ${field}: ${problem}; not sent`);
    this.field = field;
  }
}
