/**
 * The identifier rules of §4.2 for sessionId, reused for clientRequestId on WebSocket and REST (W3, R18):
 * 1 to 64 characters (code points), no `/`, no whitespace, no control characters (C1 included), no lone
 * surrogates; dots allowed. The forbidden set and the length are the client library's protocol constants, so
 * both sides hold one rule (the spec proves the two functions agree).
 */
import { IDENTIFIER_FORBIDDEN, IDENTIFIER_MAX_LENGTH } from '#venue-api';

export function isValidIdentifier(value: string): boolean {
  const length = [...value].length;
  return length >= 1 && length <= IDENTIFIER_MAX_LENGTH && !IDENTIFIER_FORBIDDEN.test(value);
}

export type SessionIdParse =
  { kind: 'absent' } | { kind: 'valid'; sessionId: string } | { kind: 'invalid'; reason: string };

/**
 * `raw` is the query parameter as it stands in the request target (still percent-encoded): the venue
 * percent-decodes it before validation (§4.2). Omitted or empty → the venue mints one.
 */
export function parseSessionIdParam(raw: string | undefined): SessionIdParse {
  if (raw === undefined || raw === '') return { kind: 'absent' };
  let decoded: string;
  try {
    decoded = decodeURIComponent(raw);
  } catch {
    return { kind: 'invalid', reason: 'sessionId is not valid percent-encoding' };
  }
  if (!isValidIdentifier(decoded)) {
    return {
      kind: 'invalid',
      reason: 'sessionId must be 1 to 64 characters without "/", whitespace or control characters',
    };
  }
  return { kind: 'valid', sessionId: decoded };
}
