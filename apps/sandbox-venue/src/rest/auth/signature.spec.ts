import { describe, expect, it } from '@jest/globals';
import { expectedSignature, signatureMatches } from './signature.js';

// Vectors computed independently with `openssl dgst -sha512 -mac HMAC` over "api/3/trades\0{"nonce":1}".
const BODY = '{"nonce":1}';

describe('§5.2–5.3 signature', () => {
  it('base64: Base64-decoded secret, Base64 digest, path without its leading slash', () => {
    expect(expectedSignature('base64', 'c2VjcmV0LWtleQ==', '/api/3/trades', BODY)).toBe(
      '6hTGILjf4Gg30ky90I0Hoj2BzDqYrLy/Qt4sek87NqHg8zp8RqxOjtsyvinsEIeJcfvWo5XqukqEks4sy8EY0Q==',
    );
  });

  it('hex: secret as plain text, hex digest', () => {
    expect(expectedSignature('hex', 'plain-secret', '/api/3/trades', BODY)).toBe(
      '029bd83bcb881b29e06a402d2709e8a67c41d8dace118c5a19c5090abdc26a3877a29c7f931b3cfb38095c44871b1861a3f520b3285313299fbb38b481237ef9',
    );
  });

  it('matches only the exact signature', () => {
    const good = expectedSignature('base64', 'c2VjcmV0LWtleQ==', '/api/3/trades', BODY);
    expect(signatureMatches('base64', 'c2VjcmV0LWtleQ==', '/api/3/trades', BODY, good)).toBe(true);
    expect(signatureMatches('base64', 'c2VjcmV0LWtleQ==', '/api/3/trades', `${BODY} `, good)).toBe(false);
    expect(signatureMatches('base64', 'c2VjcmV0LWtleQ==', '/api/3/trades', BODY, good.slice(1))).toBe(false);
  });
});
