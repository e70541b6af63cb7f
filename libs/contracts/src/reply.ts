/** Every request/reply answer: `{ok: true, ...}` or `{ok: false, error: {code, message}}`. */
export interface ErrorReply {
  ok: false;
  error: { code: string; message: string };
}

/** Gateway error codes (venue codes such as `RFS100011` pass through unchanged). */
export const GatewayErrorCode = {
  InvalidRequest: 'INVALID_REQUEST',
  NotConnected: 'NOT_CONNECTED',
  Timeout: 'TIMEOUT',
  Internal: 'INTERNAL',
  /** The connector's venue message budget is taken by queued subscriptions: ask again in a few seconds. */
  Busy: 'BUSY',
  /** The connector holds its maximum number of price streams (`VENUE_MAX_STREAMS`). */
  StreamLimit: 'STREAM_LIMIT',
} as const;

/** Longest error message (characters) a reply carries: a request's own bad value is never echoed whole. */
export const MAX_ERROR_MESSAGE = 512;
const MAX_ERROR_CODE = 64;

/**
 * `text` cut to `max` characters, saying how much was cut. For every text that may hold outside input and
 * goes back out (an error reply, a log field): a 1 MB value would otherwise exceed NATS's max payload and
 * get no reply at all.
 */
export function boundedText(text: string, max: number = MAX_ERROR_MESSAGE): string {
  if (text.length <= max) return text;
  return `${text.slice(0, max)}…(${text.length - max} more characters)`;
}

export function errorReply(code: string, message: string): ErrorReply {
  return { ok: false, error: { code: boundedText(code, MAX_ERROR_CODE), message: boundedText(message) } };
}
