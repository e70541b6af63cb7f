/**
 * Identifier rules for `sessionId` (§4.2, §8) and, by our choice, `clientRequestId` (W3, R18, on REST too):
 * 1 to 64 characters; no `/`, whitespace or control characters; dots allowed. The venue percent-decodes
 * the sessionId query parameter before checking it, so callers validate the decoded value and encode it
 * with `encodeURIComponent` when building the URL. Lone surrogates are refused as well: they cannot be
 * percent-encoded (`encodeURIComponent` throws on them).
 */

export const IDENTIFIER_MAX_LENGTH = 64;

/**
 * What an identifier must not contain: `/`, whitespace, control characters (C0, DEL and C1: `\p{Cc}`) and lone
 * surrogates. One rule for the client's WebSocket and REST checks and the sandbox's (a protocol constant it may
 * import: R18, W3, C3).
 */
export const IDENTIFIER_FORBIDDEN = /[/\s\p{Cc}\p{Cs}]/u;

export class InvalidIdentifierError extends Error {
  override readonly name = 'InvalidIdentifierError';
  constructor(
    readonly field: string,
    readonly reason: string,
  ) {
    super(`${field} ${reason}`);
  }
}

/** Undefined when `value` follows the rules, else why not (the value itself is not repeated). */
export function identifierProblem(value: unknown): string | undefined {
  if (typeof value !== 'string') return 'must be a string';
  if (value.length === 0) return 'must not be empty';
  let length = 0;
  for (const _ of value) length++; // characters, not UTF-16 units
  if (length > IDENTIFIER_MAX_LENGTH) return `must be at most ${IDENTIFIER_MAX_LENGTH} characters`;
  if (IDENTIFIER_FORBIDDEN.test(value)) return "must not contain '/', whitespace or control characters";
  return undefined;
}

export function isValidIdentifier(value: unknown): value is string {
  return identifierProblem(value) === undefined;
}

/** @throws InvalidIdentifierError */
export function validateSessionId(sessionId: string): void {
  const problem = identifierProblem(sessionId);
  if (problem !== undefined) throw new InvalidIdentifierError('sessionId', problem);
}

/** @throws InvalidIdentifierError */
export function validateClientRequestId(clientRequestId: string): void {
  const problem = identifierProblem(clientRequestId);
  if (problem !== undefined) throw new InvalidIdentifierError('clientRequestId', problem);
}
