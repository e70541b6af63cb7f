import { describe, expect, it } from '@jest/globals';
import { CLIENT_REQUEST_ID } from '#contracts';
import { MINTED_CLIENT_REQUEST_ID, mintClientRequestId } from './client-request-id.js';

describe('the clientRequestIds this app mints', () => {
  it('are recognised as its own, meet the venue contract, and differ at the same instant', () => {
    const now = Date.UTC(2026, 10, 27);
    const [a, b] = [mintClientRequestId(now), mintClientRequestId(now)];
    expect(a).toMatch(MINTED_CLIENT_REQUEST_ID);
    expect(a).toMatch(CLIENT_REQUEST_ID);
    expect(a).not.toBe(b);
    expect('x-other.client').not.toMatch(MINTED_CLIENT_REQUEST_ID);
  });
});
