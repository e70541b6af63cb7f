import { describe, it, expect } from '@jest/globals';
import {
  InvalidIdentifierError,
  identifierProblem,
  isValidIdentifier,
  validateClientRequestId,
  validateSessionId,
} from './identifier.js';

describe('identifier rules (§4.2 sessionId; W3, R18 clientRequestId)', () => {
  it.each(['a', 'session-1', 'algo.desk.42', 'A_b-C.d:e@f', 'x'.repeat(64), 'é'.repeat(64), '😀'.repeat(64), '%2F'])(
    'accepts %j',
    (id) => {
      expect(identifierProblem(id)).toBeUndefined();
      expect(isValidIdentifier(id)).toBe(true);
      expect(() => validateSessionId(id)).not.toThrow();
    },
  );

  it.each([
    ['', 'must not be empty'],
    ['x'.repeat(65), 'at most 64 characters'],
    ['😀'.repeat(65), 'at most 64 characters'],
    ['a/b', "must not contain '/'"],
    ['a b', 'whitespace'],
    ['a\tb', 'whitespace'],
    ['a\u00a0b', 'whitespace'],
    ['a\u2028b', 'whitespace'],
    ['a\u0000b', 'control'],
    ['a\u007fb', 'control'],
    ['a\u0085b', 'control'],
    ['a\ud800b', 'control'],
  ])('refuses %j', (id, reason) => {
    expect(identifierProblem(id)).toContain(reason);
    expect(isValidIdentifier(id)).toBe(false);
    expect(() => validateSessionId(id)).toThrow(InvalidIdentifierError);
    expect(() => validateClientRequestId(id)).toThrow(/^clientRequestId /);
  });

  it('refuses non-strings at runtime', () => {
    expect(identifierProblem(42)).toBe('must be a string');
    expect(identifierProblem(undefined)).toBe('must be a string');
  });

  it('never repeats the value in the error', () => {
    try {
      validateSessionId('secret value/with slash');
      throw new Error('did not throw');
    } catch (error) {
      expect(error).toBeInstanceOf(InvalidIdentifierError);
      expect(String(error)).not.toContain('secret');
      expect((error as InvalidIdentifierError).field).toBe('sessionId');
    }
  });
});
