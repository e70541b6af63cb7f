import { describe, it, expect } from '@jest/globals';
import { InvalidApiSecretError, signRequest, signedPath, verifyRequestSignature } from './signing.js';

/*
 * Expected values computed independently with openssl (messages written with printf, NUL as \0):
 *   printf 'api/3/trades\0{"tonce":1700000000000000,"max":50}' > m1.bin
 *   printf 'api/3/account\0{"nonce":42}' > m2.bin
 *   printf 'api/3/withdrawal/fiat\0{"nonce":7,"amount":100.50,"ccy":"EUR","clientComment":"caf\xc3\xa9"}' > m3.bin
 *   printf 'api/3/svc/rest/orders/state\0{"tonce":1}' > m4.bin
 *   printf 'api/3/trades\0' > m5.bin
 * (a) hex:    openssl dgst -sha512 -hmac 'my plain secret' mN.bin
 * (b) base64: openssl dgst -sha512 -mac HMAC -macopt hexkey:$(echo -n "$SECRET_B64" | base64 -d | xxd -p | tr -d '\n') \
 *               -binary mN.bin | base64 -w0
 */
const PLAIN_SECRET = 'my plain secret';
const SECRET_B64 = 'c2VjcmV0LWtleS1ieXRlcy0wMTIzNDU2Nzg5QUJDREVG';
/** Not valid UTF-8 once decoded (hexkey abcdef0123456789abcdef0123456789): proves we key with bytes. */
const BINARY_SECRET_B64 = 'q83vASNFZ4mrze8BI0VniQ==';

const vectors = [
  {
    path: '/api/3/trades',
    body: '{"tonce":1700000000000000,"max":50}',
    hex: '23934469ab6eecd0051614cbcafb7a423b6f97c5291728049239fc23b1776b66c94a18a0d4c1803f76d0e8b36decfa86a7c356b99a8773118bd47d675fa07b73',
    base64: 'ivfUgOrjBKUhhX87FTII0E63mfnUDVH9/dQvs737KhQgXhF25VymIzehKSFpLB6zbTw4+maw8QWj1tkbrPXGWg==',
  },
  {
    path: '/api/3/account',
    body: '{"nonce":42}',
    hex: '33aeaa3226a1b855fc3f1bf067e792a2f68c973d4a87377eef72da1137121470a87727e6b57971a12b3349617f47aefd1bad13ffe013eb07c52ac85977cc3133',
    base64: '+9idMe4tStiBeBK9NCdAjOcVrkBY6mP0MgxW4iy8a2Gy3Hj5rzeaSCi8+S6UJNR9O/YfGGSpKPU2YDK3MKMfvA==',
  },
  {
    path: '/api/3/withdrawal/fiat',
    body: '{"nonce":7,"amount":100.50,"ccy":"EUR","clientComment":"café"}',
    hex: 'a3db8db1b00338a4bc934e52523cdb01b038c6c6d1261a7b2d06499563e5da3e7c8d6fb833a34835b337295c31d21cd19294555b07ba6a84a2d9873d01bb41fc',
    base64: 'o41L0VckWt/z0iJGanRh09h8eqHXflG+BDZHHZDopFAYM+w5xmS9SA9QNP3QIB+sFWyTAVJeFGb6t2vejPzsrA==',
  },
  {
    path: '/api/3/svc/rest/orders/state?clientRequestId=abc-1',
    body: '{"tonce":1}',
    hex: '5eee3d9e5ede3911828f3aa74ecff158ea4efe7f3709ba6730abab57772342e70c08d11a54627e0e50f8c50286cd290a704a8502c5fa35ef91859d0c3bbfa6eb',
    base64: 'Xwq2fy1P66ys9NzA5e3fhPBi5XpOuCU/UvVFIPHMeC5r+RsHz/nEiUYRCnrOWdn3XRXpQQQEftAGAQRlTsCF4w==',
  },
];

describe('signRequest', () => {
  it.each(vectors)('(a) hex: $path', ({ path, body, hex }) => {
    expect(signRequest(path, body, PLAIN_SECRET, 'hex')).toBe(hex);
  });

  it.each(vectors)('(b) base64: $path', ({ path, body, base64 }) => {
    expect(signRequest(path, body, SECRET_B64, 'base64')).toBe(base64);
  });

  it('keys (b) with the decoded bytes, not their text', () => {
    expect(signRequest('/api/3/trades', vectors[0]?.body ?? '', BINARY_SECRET_B64, 'base64')).toBe(
      'u/+9nQ8/Ie7RYgJdorNGAs8Z5m94psOVfuPD2HpEw/NjLiQkiCOMAEchOfP+tcEeB3PKO4sM3Jv0UmS4eKp3vw==',
    );
  });

  it('signs an empty body as path + NUL', () => {
    expect(signRequest('/api/3/trades', '', PLAIN_SECRET, 'hex')).toBe(
      'f8ad5a1d02f6c2e8f48d77b429c7049aa77be5b4bbb7dae711e1be9803cc1fd0901f3c8a2bda320533920edc21dde0a5554a13888765f868c24736773a8466a1',
    );
  });

  it('signs body bytes the same as the body string', () => {
    const v = vectors[2];
    if (v === undefined) throw new Error('missing vector');
    expect(signRequest(v.path, Buffer.from(v.body, 'utf8'), PLAIN_SECRET, 'hex')).toBe(v.hex);
  });

  it('accepts the path with or without its leading slash, but strips only one', () => {
    const [v] = vectors;
    if (v === undefined) throw new Error('missing vector');
    expect(signRequest('api/3/trades', v.body, PLAIN_SECRET, 'hex')).toBe(v.hex);
    expect(signRequest('//api/3/trades', v.body, PLAIN_SECRET, 'hex')).not.toBe(v.hex);
  });

  it('changes with any byte of the body', () => {
    const [v] = vectors;
    if (v === undefined) throw new Error('missing vector');
    expect(signRequest(v.path, v.body.replace('50', '51'), PLAIN_SECRET, 'hex')).not.toBe(v.hex);
    expect(signRequest(v.path, `${v.body} `, PLAIN_SECRET, 'hex')).not.toBe(v.hex);
  });

  it('refuses an empty or non-Base64 secret without echoing it', () => {
    expect(() => signRequest('/a', '{}', '', 'hex')).toThrow(InvalidApiSecretError);
    expect(() => signRequest('/a', '{}', 'not base64 !', 'base64')).toThrow('API secret is not valid Base64');
    try {
      signRequest('/a', '{}', 'sup3r-s3cret!', 'base64');
    } catch (error) {
      expect(String(error)).not.toContain('sup3r');
    }
  });
});

describe('signedPath', () => {
  it.each([
    ['/api/3/trades', 'api/3/trades'],
    ['api/3/trades', 'api/3/trades'],
    ['/api/3/svc/rest/orders/state?clientRequestId=x', 'api/3/svc/rest/orders/state'],
    ['//x', '/x'],
    ['/', ''],
  ])('%s → %s', (path, signed) => {
    expect(signedPath(path)).toBe(signed);
  });
});

describe('verifyRequestSignature', () => {
  it('accepts the right signature in both encodings and nothing else', () => {
    const [v] = vectors;
    if (v === undefined) throw new Error('missing vector');
    expect(verifyRequestSignature(v.path, v.body, PLAIN_SECRET, 'hex', v.hex)).toBe(true);
    expect(verifyRequestSignature(v.path, v.body, SECRET_B64, 'base64', v.base64)).toBe(true);
    expect(verifyRequestSignature(v.path, v.body, SECRET_B64, 'base64', v.base64.replace('==', ''))).toBe(false);
    expect(verifyRequestSignature(v.path, v.body, PLAIN_SECRET, 'hex', v.hex.toUpperCase())).toBe(false);
    expect(verifyRequestSignature(v.path, v.body, PLAIN_SECRET, 'hex', 'zz')).toBe(false);
    expect(verifyRequestSignature(v.path, `${v.body} `, PLAIN_SECRET, 'hex', v.hex)).toBe(false);
  });
});
