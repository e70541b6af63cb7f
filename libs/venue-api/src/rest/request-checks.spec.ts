import { describe, expect, it } from '@jest/globals';
import { identifierProblem } from '../ws/identifier.js';
import { InvalidVenueRequestError } from './errors.js';
import { checkIdentifier } from './request-checks.js';

const passes = (value: string): boolean => {
  try {
    checkIdentifier('getOrderState', 'clientRequestId', value);
    return true;
  } catch (error) {
    if (error instanceof InvalidVenueRequestError) return false;
    throw error;
  }
};

describe('checkIdentifier (R18: the §4.2 sessionId rules on REST, the same rule as the WebSocket side)', () => {
  it('counts characters, not UTF-16 units: 64 astral characters pass, 65 do not', () => {
    expect(passes('😀'.repeat(64))).toBe(true);
    expect(passes('😀'.repeat(65))).toBe(false);
  });

  it('refuses every control character, C1 included, and lone surrogates', () => {
    expect(passes('a\u0085b')).toBe(false);
    expect(passes('a\u009fb')).toBe(false);
    expect(passes('a\ud800b')).toBe(false);
  });

  it.each(['a', 'x'.repeat(64), 'x'.repeat(65), '', 'a/b', 'a b', 'a\u0001b', 'a\u007fb', 'a\u0080b', 'é'.repeat(64)])(
    'agrees with the WebSocket rule on %j',
    (value) => {
      expect(passes(value)).toBe(identifierProblem(value) === undefined);
    },
  );
});
