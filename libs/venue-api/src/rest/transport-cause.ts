/**
 * The low-level cause of a failed venue request (the code of fetch's `cause`: ECONNRESET, UND_ERR_SOCKET, EPIPE,
 * ETIMEDOUT…), so an operator can tell a request that never left from one lost after it left. Only the code is
 * kept: a cause's message may carry an address or more, and a request's headers or body never reach here.
 */
import { FreshConnectionFailure } from './fresh-connection-fetch.js';

/** Codes counted under their own name in `venue_rest_calls_total{status="connection:<code>"}`; others: `other`. */
const COUNTED_CODES: ReadonlySet<string> = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ECONNABORTED',
  'EPIPE',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENOTFOUND',
  'EAI_AGAIN',
  'UND_ERR_SOCKET',
  'UND_ERR_CONNECT_TIMEOUT',
  'UND_ERR_HEADERS_TIMEOUT',
  'UND_ERR_BODY_TIMEOUT',
  'UND_ERR_CLOSED',
  'UND_ERR_DESTROYED',
]);

/** A pooled connection the server closed under the request: safe to send a read again (once, freshly). */
const LOST_CONNECTION_CODES: ReadonlySet<string> = new Set(['UND_ERR_SOCKET', 'ECONNRESET', 'EPIPE']);

const CODE_PATTERN = /^[A-Z][A-Z0-9_]{1,47}$/;

// Duck-typed on purpose: fetch's errors may come from another realm (e.g. a test VM), where `instanceof` fails.
function property(value: unknown, key: string): unknown {
  return typeof value === 'object' && value !== null && key in value
    ? (value as Record<string, unknown>)[key]
    : undefined;
}

function codeOf(value: unknown): string | undefined {
  const code = property(value, 'code');
  if (typeof code === 'string') return code;
  const errors = property(value, 'errors'); // an AggregateError (connection attempts to several addresses)
  return Array.isArray(errors) ? errors.map(codeOf).find((found) => found !== undefined) : undefined;
}

/** The code of a fetch failure's cause, bounded to an upper-case code (`other` when it has none). */
export function transportCauseOf(error: unknown): string {
  const code = codeOf(property(error, 'cause')) ?? codeOf(error);
  return code !== undefined && CODE_PATTERN.test(code) ? code : 'other';
}

/** The cause as a metric label: one of a bounded set of codes, or `other`. */
export function transportCauseLabel(code: string): string {
  return COUNTED_CODES.has(code) ? code : 'other';
}

/** Whether the request certainly never left: the connection was refused, or never made (fresh connection). */
export function neverSent(error: unknown, code: string): boolean {
  return code === 'ECONNREFUSED' || (error instanceof FreshConnectionFailure && error.beforeConnect);
}

/** Whether a read lost its connection under it (the server closed it), so sending it once more is sound. */
export function connectionLost(code: string): boolean {
  return LOST_CONNECTION_CODES.has(code);
}
