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
} as const;

export function errorReply(code: string, message: string): ErrorReply {
  return { ok: false, error: { code, message } };
}
