/**
 * §5.2–5.3 signature check, written from the spec: HMAC-SHA512 over `<path without leading slash>\0<body>`.
 * Encoding (spec-gaps R1): `base64` = secret Base64-decoded, digest Base64; `hex` = secret as plain text,
 * digest hex.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import type { SignatureEncoding } from '../../config.js';

export function expectedSignature(
  encoding: SignatureEncoding,
  apiSecret: string,
  path: string,
  rawBody: string,
): string {
  const message = Buffer.concat([
    Buffer.from(path.replace(/^\//, ''), 'utf8'),
    Buffer.from([0]),
    Buffer.from(rawBody, 'utf8'),
  ]);
  const key = encoding === 'base64' ? Buffer.from(apiSecret, 'base64') : Buffer.from(apiSecret, 'utf8');
  return createHmac('sha512', key)
    .update(message)
    .digest(encoding === 'base64' ? 'base64' : 'hex');
}

export function signatureMatches(
  encoding: SignatureEncoding,
  apiSecret: string,
  path: string,
  rawBody: string,
  presented: string,
): boolean {
  const expected = Buffer.from(expectedSignature(encoding, apiSecret, path, rawBody), 'utf8');
  const given = Buffer.from(presented, 'utf8');
  return expected.length === given.length && timingSafeEqual(expected, given);
}
