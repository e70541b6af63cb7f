import { describe, it, expect } from '@jest/globals';
import { identifierProblem } from '#venue-api';
import { isValidIdentifier, parseSessionIdParam } from './identifier-rules.js';

describe('identifier rules (§4.2 sessionId, W3 clientRequestId)', () => {
  it.each(['a', 'session.1', 'x'.repeat(64), 'é'.repeat(64), 'a-b_c:d'])('accepts %s', (v) => {
    expect(isValidIdentifier(v)).toBe(true);
  });

  it.each(['', 'x'.repeat(65), 'a/b', 'a b', 'a\tb', 'a\u0001b', 'a\u007fb', 'a\u00a0b'])('refuses %j', (v) => {
    expect(isValidIdentifier(v)).toBe(false);
  });

  it('percent-decodes before validating', () => {
    expect(parseSessionIdParam('a%2Fb')).toMatchObject({ kind: 'invalid' });
    expect(parseSessionIdParam('a%20b')).toMatchObject({ kind: 'invalid' });
    expect(parseSessionIdParam('s%2E1')).toEqual({ kind: 'valid', sessionId: 's.1' });
    expect(parseSessionIdParam('a+b')).toEqual({ kind: 'valid', sessionId: 'a+b' });
    expect(parseSessionIdParam('%E0%A4%A')).toMatchObject({ kind: 'invalid' });
  });

  it('mints when omitted or empty', () => {
    expect(parseSessionIdParam(undefined)).toEqual({ kind: 'absent' });
    expect(parseSessionIdParam('')).toEqual({ kind: 'absent' });
  });

  it('counts the length after decoding', () => {
    expect(parseSessionIdParam('%41'.repeat(64))).toMatchObject({ kind: 'valid' });
    expect(parseSessionIdParam('%41'.repeat(65))).toMatchObject({ kind: 'invalid' });
  });

  // One rule on both sides (R18, W3, C3): the client's check is the reference; WebSocket and REST use this one.
  it.each([
    'a',
    'x'.repeat(64),
    'x'.repeat(65),
    '😀'.repeat(64),
    '😀'.repeat(65),
    '',
    'a/b',
    'a b',
    'a\u0001b',
    'a\u007fb',
    'a\u0085b',
    'a\u009fb',
    'a\u00a0b',
    'a\u2028b',
    'a\ud800b',
  ])('agrees with the client library on %j', (value) => {
    expect(isValidIdentifier(value)).toBe(identifierProblem(value) === undefined);
  });
});
