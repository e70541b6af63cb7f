import { describe, expect, it } from '@jest/globals';
import {
  InvalidVenueRequestError,
  VenueAuthError,
  VenueConflictError,
  VenueConnectionError,
  VenueNotFoundError,
  VenueOutcomeUnknownError,
  VenueProtocolError,
  VenueRateLimitedError,
  VenueTimeoutError,
  VenueValidationError,
  VenueWrongMethodError,
} from '#venue-api';
import { classifyCancelFailure, classifySubmitFailure } from './withdrawal-outcomes.js';

const op = { operation: 'submitFiatWithdrawal' };

describe('every §7.2 answer of a submit is a typed result', () => {
  it.each([
    [
      '401 Unauthorized (or throttled)',
      new VenueAuthError({ ...op, status: 401, venueMessage: 'Unauthorized' }, true),
      'VENUE_UNAUTHORIZED',
    ],
    [
      '403 Invalid signed params',
      new VenueValidationError({ ...op, status: 403, venueMessage: 'Invalid signed params' }),
      'VENUE_FORBIDDEN',
    ],
    [
      '403 MOVE FUNDS permission required',
      new VenueValidationError({ ...op, status: 403, venueMessage: 'MOVE FUNDS permission required' }),
      'VENUE_FORBIDDEN',
    ],
    [
      '422 Insufficient funds',
      new VenueValidationError({ ...op, status: 422, venueMessage: 'Insufficient funds' }),
      'INSUFFICIENT_FUNDS',
    ],
    [
      '422 Bank account is disabled or is not verified',
      new VenueValidationError({ ...op, status: 422, venueMessage: 'Bank account is disabled or is not verified' }),
      'VENUE_REJECTED',
    ],
    [
      '405 wrong method',
      new VenueWrongMethodError({ ...op, status: 405, venueCode: 'Method Not Allowed' }, '3'),
      'VENUE_REJECTED',
    ],
    ['429 after the retries', new VenueRateLimitedError({ ...op, status: 429 }), 'VENUE_UNAVAILABLE'],
    ['connection refused (never left)', new VenueConnectionError(op), 'VENUE_UNAVAILABLE'],
    [
      'refused by the client before sending',
      new InvalidVenueRequestError('submitFiatWithdrawal', 'amount', 'too many decimals'),
      'INVALID_REQUEST',
    ],
  ])('%s → refused %s', (_case, error, code) => {
    expect(classifySubmitFailure(error)).toMatchObject({ kind: 'refused', code });
  });

  it.each([
    ['500 Error while processing request', new VenueOutcomeUnknownError({ ...op, status: 500 }, 'HTTP 500')],
    ['a timeout after sending', new VenueTimeoutError(op)],
    ['a success the client cannot read', new VenueProtocolError({ ...op, status: 200 }, 'not JSON')],
    ['anything unexpected', new Error('socket hang up')],
  ])('%s → unknown (looked up in the list, never re-sent)', (_case, error) => {
    expect(classifySubmitFailure(error).kind).toBe('unknown');
  });
});

describe('cancel answers', () => {
  it('409 is NOT_CANCELLABLE, 404 NOT_FOUND, both definitive; a 500 is OUTCOME_UNKNOWN', () => {
    expect(classifyCancelFailure(new VenueConflictError({ operation: 'cancel', status: 409 }))).toMatchObject({
      code: 'NOT_CANCELLABLE',
      settled: true,
    });
    expect(classifyCancelFailure(new VenueNotFoundError({ operation: 'cancel', status: 404 }))).toMatchObject({
      code: 'NOT_FOUND',
      settled: true,
    });
    expect(
      classifyCancelFailure(new VenueOutcomeUnknownError({ operation: 'cancel', status: 500 }, 'HTTP 500')),
    ).toMatchObject({ code: 'OUTCOME_UNKNOWN', settled: false });
  });
});
