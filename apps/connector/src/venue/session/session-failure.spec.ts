import { describe, expect, it } from '@jest/globals';
import {
  VenueAuthError,
  VenueConnectionError,
  VenueRateLimitedError,
  VenueServerError,
  VenueTimeoutError,
} from '#venue-api';
import { socketFailure, socketRefusal, tokenFailure } from './session-failure.js';

const operation = 'createWebSocketToken';

describe('session failures: a bounded code and reason, never venue text or a secret', () => {
  it('a token fetch: refused, throttled, or failed, with its status or kind', () => {
    const secretish = 'bad signature for key k-123 secret c2VjcmV0 ' + 'x'.repeat(5_000);
    expect(tokenFailure(new VenueAuthError({ operation, status: 401, venueMessage: secretish }), 7)).toEqual({
      code: 'token-refused',
      reason: 'HTTP 401',
      at: 7,
    });
    expect(tokenFailure(new VenueRateLimitedError({ operation, status: 429 }), 7)).toEqual({
      code: 'token-throttled',
      reason: 'HTTP 429',
      at: 7,
    });
    expect(tokenFailure(new VenueServerError({ operation, status: 503, venueMessage: secretish }), 7)).toEqual({
      code: 'token-failed',
      reason: 'HTTP 503',
      at: 7,
    });
    expect(tokenFailure(new VenueTimeoutError({ operation }), 7).reason).toBe('no response in time');
    expect(tokenFailure(new VenueConnectionError({ operation }), 7).reason).toBe('venue unreachable');
    // anything else: its class name only (bounded), never its message
    expect(tokenFailure(new TypeError(secretish), 7)).toEqual({ code: 'token-failed', reason: 'TypeError', at: 7 });
    const odd = Object.assign(new Error(secretish), { name: `Weird ${secretish}` });
    expect(tokenFailure(odd, 7).reason).toBe('error');
    expect(tokenFailure('not an error', 7).reason).toBe('error');
  });

  it('the socket: refused with a status, or failed with its system code', () => {
    expect(socketRefusal(401, 9)).toEqual({ code: 'socket-refused', reason: 'HTTP 401', at: 9 });
    const reset = Object.assign(new Error('read ECONNRESET'), { code: 'ECONNRESET' });
    expect(socketFailure(reset, 9)).toEqual({ code: 'socket-failed', reason: 'ECONNRESET', at: 9 });
    const odd = Object.assign(new Error('x'), { code: 'not a system code ' + 'y'.repeat(100) });
    expect(socketFailure(odd, 9).reason).toBe('Error');
  });
});
