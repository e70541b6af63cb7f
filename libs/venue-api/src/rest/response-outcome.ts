/**
 * Turns one HTTP response of the venue into a result, a throttle signal or a typed error (§7, R2–R5).
 * Pure: no I/O, so every odd case is easy to reason about.
 */
import { RestErrorWord } from '../errors/venue-codes.js';
import { parseJsonLossless } from '../money/lossless-json.js';
import {
  VenueAuthError,
  VenueConflictError,
  VenueNotFoundError,
  VenueOutcomeUnknownError,
  VenueProtocolError,
  VenueResultCodeError,
  VenueServerError,
  VenueValidationError,
  VenueWrongMethodError,
  type VenueErrorDetails,
  type VenueRestError,
} from './errors.js';
import { isJsonObject } from './records/shape.js';

/**
 * How the venue reports errors on an endpoint:
 *   `withdrawal`  — `{success:false, message}`; 401 also means throttled (§7.2);
 *   `participant` — errors may come as HTTP 200 with a `resultCode` (§7.3, R2);
 *   `standard`    — `{error, message}` or `{resultCode, timestamp}` with a 4xx status.
 */
export type EndpointFamily = 'withdrawal' | 'participant' | 'standard';

export interface ResponseContext {
  operation: string;
  family: EndpointFamily;
  /** A call that may change state on the venue (submit, cancel, transfer): 5xx means outcome unknown. */
  stateChanging: boolean;
  /**
   * A 2xx with no body (a 204) is a success: for an operation whose response the spec does not show (§4.9 crypto
   * submit and cancel), where nothing says a body comes. Elsewhere an empty success is a protocol error.
   */
  emptySuccessBody?: boolean;
}

export type ResponseOutcome =
  | { kind: 'ok'; status: number; body: unknown }
  | { kind: 'throttled'; retryAfterMs: number | undefined; details: VenueErrorDetails }
  /** `authFailure`: the venue refused authentication, so the request was definitely not processed. */
  | { kind: 'failed'; error: VenueRestError; authFailure: boolean };

/** resultCodes meaning "authentication failed" on 200-with-resultCode endpoints (R2). */
const AUTH_RESULT_CODES: ReadonlySet<string> = new Set([
  RestErrorWord.Unauthorised,
  RestErrorWord.InvalidNonceOrTonce,
  RestErrorWord.InvalidSignature,
]);

function stringField(body: unknown, key: string): string | undefined {
  if (!isJsonObject(body)) return undefined;
  const value = body[key];
  return typeof value === 'string' ? value : undefined;
}

function details(context: ResponseContext, status: number, body: unknown): VenueErrorDetails {
  const venueCode = stringField(body, 'error') ?? stringField(body, 'resultCode') ?? stringField(body, 'code');
  const venueMessage = stringField(body, 'message');
  const result: VenueErrorDetails = { operation: context.operation, status };
  if (venueCode !== undefined) result.venueCode = venueCode;
  if (venueMessage !== undefined) result.venueMessage = venueMessage;
  return result;
}

/** Retry-After as delta-seconds or an HTTP date; undefined when absent or unreadable. */
export function retryAfterMs(header: string | null, now: number): number | undefined {
  if (header === null || header.trim() === '') return undefined;
  const trimmed = header.trim();
  if (/^\d+$/.test(trimmed)) return Number(trimmed) * 1000;
  const at = Date.parse(trimmed);
  return Number.isNaN(at) ? undefined : Math.max(0, at - now);
}

type ParsedBody = { kind: 'empty' } | { kind: 'json'; value: unknown } | { kind: 'unreadable'; problem: string };

function parseBody(text: string): ParsedBody {
  if (text.trim() === '') return { kind: 'empty' };
  try {
    return { kind: 'json', value: parseJsonLossless(text) };
  } catch (error) {
    return { kind: 'unreadable', problem: error instanceof Error ? error.message : 'not JSON' };
  }
}

export function classifyResponse(
  context: ResponseContext,
  status: number,
  bodyText: string,
  retryAfterHeader: string | null,
  now: number,
): ResponseOutcome {
  const parsed = parseBody(bodyText);
  const body = parsed.kind === 'json' ? parsed.value : undefined;
  const info = details(context, status, body);
  const failed = (error: VenueRestError, authFailure = false): ResponseOutcome => ({
    kind: 'failed',
    error,
    authFailure,
  });

  if (status >= 200 && status < 300) {
    if (parsed.kind === 'empty' && context.emptySuccessBody === true) return { kind: 'ok', status, body: undefined };
    if (parsed.kind !== 'json') {
      return failed(new VenueProtocolError(info, parsed.kind === 'empty' ? 'empty body' : parsed.problem));
    }
    const resultCode = stringField(body, 'resultCode');
    if (resultCode !== undefined && resultCode !== RestErrorWord.Ok) {
      if (AUTH_RESULT_CODES.has(resultCode)) return failed(new VenueAuthError(info), true);
      return failed(new VenueResultCodeError(info));
    }
    if (isJsonObject(body) && body['success'] === false) return failed(new VenueResultCodeError(info));
    return { kind: 'ok', status, body };
  }

  switch (status) {
    case 401:
      return failed(new VenueAuthError(info, context.family === 'withdrawal'), true);
    case 429:
      return {
        kind: 'throttled',
        retryAfterMs: retryAfterMs(retryAfterHeader, now),
        details: info,
      };
    case 404:
      return failed(new VenueNotFoundError(info, parsed.kind === 'empty'));
    case 405:
      return failed(new VenueWrongMethodError(info, stringField(body, 'apiVersion')));
    case 409:
      return failed(new VenueConflictError(info));
    case 400:
    case 403:
    case 422:
      return failed(new VenueValidationError(info));
  }
  if (status >= 500 && context.stateChanging) {
    return failed(new VenueOutcomeUnknownError(info, `HTTP ${status}`));
  }
  return failed(new VenueServerError(info));
}
