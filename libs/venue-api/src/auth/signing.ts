/**
 * REST request signatures (§5.2–5.3, R1).
 *
 * Signed message: the request path without its leading slash, a NUL byte, then the exact body bytes sent.
 * HMAC-SHA512 keyed with the API secret. Two encodings exist in the venue's examples and which one is
 * authoritative is not shown, so both are supported (R1, `VENUE_SIGNATURE_ENCODING`):
 *   'base64' (b, default) — secret Base64-decoded to bytes, digest Base64;
 *   'hex'    (a)          — secret used as its UTF-8 text, digest lowercase hex.
 * Errors never contain the secret, the message or the signature.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';

export type SignatureEncoding = 'base64' | 'hex';

export const SIGNATURE_ENCODINGS: readonly SignatureEncoding[] = ['base64', 'hex'];

/** The API secret cannot be used with the chosen encoding (its value is never part of the message). */
export class InvalidApiSecretError extends Error {
  override readonly name = 'InvalidApiSecretError';
}

const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=|[A-Za-z0-9+/]{2,3})?$/;

/** `/api/3/trades?x=1` → `api/3/trades`: exactly one leading slash dropped, the query string never signed. */
export function signedPath(path: string): string {
  const queryAt = path.indexOf('?');
  const withoutQuery = queryAt === -1 ? path : path.slice(0, queryAt);
  return withoutQuery.startsWith('/') ? withoutQuery.slice(1) : withoutQuery;
}

/** A Rest-Key header value the venue can match: visible ASCII only (a space or line break cannot travel in it). */
const API_KEY = /^[\x21-\x7E]{1,256}$/;

/** Why `key` cannot be sent as the `Rest-Key` header (every signed call would fail before it left), or undefined. */
export function apiKeyProblem(key: string): string | undefined {
  return API_KEY.test(key) ? undefined : 'API key is not 1 to 256 visible ASCII characters';
}

/** Why `secret` cannot sign with `encoding`, or undefined when it can (for start-up configuration checks). */
export function apiSecretProblem(secret: string, encoding: SignatureEncoding): string | undefined {
  if (secret.length === 0) return 'API secret is empty';
  if (encoding === 'base64' && !BASE64.test(secret)) return 'API secret is not valid Base64';
  return undefined;
}

function secretKey(secret: string, encoding: SignatureEncoding): Buffer {
  const problem = apiSecretProblem(secret, encoding);
  if (problem !== undefined) throw new InvalidApiSecretError(problem);
  return Buffer.from(secret, encoding === 'hex' ? 'utf8' : 'base64');
}

function digest(path: string, body: string | Uint8Array, secret: string, encoding: SignatureEncoding): Buffer {
  return createHmac('sha512', secretKey(secret, encoding))
    .update(signedPath(path), 'utf8')
    .update(Buffer.of(0))
    .update(typeof body === 'string' ? Buffer.from(body, 'utf8') : body)
    .digest();
}

/**
 * The `Rest-Sign` header value. `body` must be exactly the bytes that go on the wire (sign the string
 * you send; never re-serialise after signing).
 */
export function signRequest(
  path: string,
  body: string | Uint8Array,
  secret: string,
  encoding: SignatureEncoding,
): string {
  return digest(path, body, secret, encoding).toString(encoding);
}

/** Constant-time check of a received `Rest-Sign` (for the sandbox venue and tests). */
export function verifyRequestSignature(
  path: string,
  body: string | Uint8Array,
  secret: string,
  encoding: SignatureEncoding,
  signature: string,
): boolean {
  const expected = digest(path, body, secret, encoding);
  const received = Buffer.from(signature, encoding);
  // Buffer.from drops what it cannot decode, so compare the canonical text too (rejects padding tricks).
  if (received.length !== expected.length || received.toString(encoding) !== signature) return false;
  return timingSafeEqual(received, expected);
}
