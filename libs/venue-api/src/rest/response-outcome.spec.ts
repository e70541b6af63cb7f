import { describe, expect, it } from '@jest/globals';
import { classifyResponse, retryAfterMs, type ResponseContext } from './response-outcome.js';

const read: ResponseContext = { operation: 'op', family: 'standard', stateChanging: false };
const submit: ResponseContext = { operation: 'op', family: 'withdrawal', stateChanging: true };

describe('classifyResponse', () => {
  it('reads Retry-After as seconds or an HTTP date', () => {
    const now = Date.parse('2026-01-05T10:00:00Z');
    expect(retryAfterMs('2', now)).toBe(2000);
    expect(retryAfterMs('Mon, 05 Jan 2026 10:00:03 GMT', now)).toBe(3000);
    expect(retryAfterMs('soon', now)).toBeUndefined();
    expect(retryAfterMs(null, now)).toBeUndefined();
  });

  it('5xx is outcome-unknown on state-changing calls only', () => {
    expect(classifyResponse(submit, 502, '', null, 0)).toMatchObject({
      kind: 'failed',
      error: { name: 'VenueOutcomeUnknownError', status: 502 },
    });
    expect(classifyResponse(read, 500, '{"error":"X"}', null, 0)).toMatchObject({
      kind: 'failed',
      error: { name: 'VenueServerError', venueCode: 'X' },
    });
  });

  it('401 is an auth failure; on withdrawals it may be throttling', () => {
    expect(classifyResponse(read, 401, '{"error":"INVALID_SIGNATURE","message":"m"}', null, 0)).toMatchObject({
      kind: 'failed',
      authFailure: true,
      error: { name: 'VenueAuthError', mayBeThrottling: false, venueCode: 'INVALID_SIGNATURE' },
    });
    expect(classifyResponse(submit, 401, '{"success":false,"message":"Unauthorized"}', null, 0)).toMatchObject({
      error: { mayBeThrottling: true, venueMessage: 'Unauthorized' },
    });
  });

  it('a 200 with success:false or an error resultCode is not a success', () => {
    expect(classifyResponse(submit, 200, '{"success":false,"message":"odd"}', null, 0)).toMatchObject({
      error: { name: 'VenueResultCodeError', venueMessage: 'odd' },
    });
    expect(classifyResponse(read, 200, '{"resultCode":"OK","data":[]}', null, 0)).toMatchObject({ kind: 'ok' });
    expect(classifyResponse(read, 200, '{"resultCode":"INVALID_NONCE_OR_TONCE"}', null, 0)).toMatchObject({
      authFailure: true,
    });
  });

  it('a 2xx with no body is a protocol error, unless the call takes one (a response the spec does not show)', () => {
    expect(classifyResponse(submit, 204, '', null, 0)).toMatchObject({
      error: { name: 'VenueProtocolError', status: 204 },
    });
    expect(classifyResponse({ ...submit, emptySuccessBody: true }, 204, '', null, 0)).toEqual({
      kind: 'ok',
      status: 204,
      body: undefined,
    });
    // an error status stays an error, with or without a body
    expect(classifyResponse({ ...submit, emptySuccessBody: true }, 409, '', null, 0)).toMatchObject({
      error: { name: 'VenueConflictError' },
    });
  });

  it('429 is a throttle signal carrying the venue code', () => {
    expect(classifyResponse(read, 429, '{"error":"TOO_MANY_REQUESTS"}', '1', 0)).toEqual({
      kind: 'throttled',
      retryAfterMs: 1000,
      details: { operation: 'op', status: 429, venueCode: 'TOO_MANY_REQUESTS' },
    });
  });
});
