import { describe, it, expect } from '@jest/globals';
import {
  RestErrorWord,
  SandboxCode,
  VenueCode,
  WithdrawalMessage,
  describeVenueCode,
  venueCodeInfo,
} from './venue-codes.js';

describe('venue codes', () => {
  it('names the §7.1 codes', () => {
    expect(VenueCode.QuoteExpired).toBe('RFS100019');
    expect(VenueCode.QuoteOfAnotherUser).toBe('RFS100020');
    expect(VenueCode.QuoteQuantityUsedUp).toBe('RFS600021');
    expect(VenueCode.SubscriptionAlreadyHeld).toBe('RFS100017');
    expect(VenueCode.PairDisabled).toBe('PRE200035');
  });

  it('describes every named code, venue and sandbox', () => {
    for (const code of [...Object.values(VenueCode), ...Object.values(SandboxCode)]) {
      expect(venueCodeInfo(code)).toBeDefined();
      expect(describeVenueCode(code)).not.toContain('unknown code');
    }
    expect(describeVenueCode('RFS100019')).toBe('RFS100019 (quote expired)');
    expect(venueCodeInfo('RFS600021')?.scope).toBe('order');
    expect(venueCodeInfo('RFS100011')?.scope).toBe('subscribe');
  });

  it('tolerates unknown and empty codes', () => {
    expect(venueCodeInfo('RFS999999')).toBeUndefined();
    expect(venueCodeInfo('toString')).toBeUndefined();
    expect(venueCodeInfo('__proto__')).toBeUndefined();
    expect(describeVenueCode('RFS999999')).toBe('RFS999999 (unknown code)');
    expect(describeVenueCode('')).toBe('(no code)');
  });

  it('keeps sandbox codes apart from venue numbers', () => {
    for (const code of Object.values(SandboxCode)) expect(code).toMatch(/^[A-Z]+(?:_[A-Z]+)*$/);
    for (const code of Object.values(VenueCode)) expect(code).toMatch(/^(?:RFS|PRE)\d{6}$/);
  });

  it('holds the REST words and withdrawal messages verbatim', () => {
    expect(Object.values(RestErrorWord)).toEqual(
      expect.arrayContaining([
        'INVALID_PARAMETER',
        'INVALID_SIGNATURE',
        'INVALID_ACCOUNT_GROUP',
        'INVALID_PARAMETERS',
        'UNAUTHORISED',
        'INVALID_NONCE_OR_TONCE',
      ]),
    );
    expect(WithdrawalMessage.CannotCancel).toBe('Request can not be cancelled in current state');
    expect(WithdrawalMessage.MoveFundsRequired).toBe('MOVE FUNDS permission required');
  });
});
