/**
 * Why an attempt to open the venue session failed, as `ConnectorStatus.lastFailure` carries it: a code and a short
 * reason the gateway makes itself — a status, a fixed phrase, a system code or an error class name. Never the
 * error's message: the venue's text is unbounded and a signature error may echo what was signed.
 */
import type { SessionFailure } from '#contracts';
import {
  VenueAuthError,
  VenueConnectionError,
  VenueRateLimitedError,
  VenueRestError,
  VenueTimeoutError,
} from '#venue-api';

/** The token request (REST) failed. */
export function tokenFailure(error: unknown, at: number): SessionFailure {
  if (error instanceof VenueAuthError) return { code: 'token-refused', reason: httpStatus(error), at };
  if (error instanceof VenueRateLimitedError) return { code: 'token-throttled', reason: httpStatus(error), at };
  if (error instanceof VenueTimeoutError) return { code: 'token-failed', reason: 'no response in time', at };
  if (error instanceof VenueConnectionError) return { code: 'token-failed', reason: 'venue unreachable', at };
  if (error instanceof VenueRestError && error.status !== undefined)
    return { code: 'token-failed', reason: httpStatus(error), at };
  return { code: 'token-failed', reason: className(error), at };
}

/** The venue answered the socket's upgrade with another status than 101 (W2: a refused token). */
export function socketRefusal(status: number, at: number): SessionFailure {
  return { code: 'socket-refused', reason: `HTTP ${status}`, at };
}

/** The socket failed before it opened (reset, refused, DNS). */
export function socketFailure(error: unknown, at: number): SessionFailure {
  const code = (error as { code?: unknown } | null)?.code;
  if (typeof code === 'string' && SYSTEM_CODE.test(code)) return { code: 'socket-failed', reason: code, at };
  return { code: 'socket-failed', reason: className(error), at };
}

const SYSTEM_CODE = /^E[A-Z0-9_]{1,30}$/;
const CLASS_NAME = /^[A-Za-z]{1,40}$/;

function httpStatus(error: VenueRestError): string {
  return error.status !== undefined ? `HTTP ${error.status}` : 'no status';
}

function className(error: unknown): string {
  return error instanceof Error && CLASS_NAME.test(error.name) ? error.name : 'error';
}
