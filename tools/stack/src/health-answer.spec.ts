import { describe, expect, it } from '@jest/globals';
import { downChecks } from './stack.js';

describe('why an app is not ready, from its /health body', () => {
  it('names each check that is down with its detail (outside tester: the launcher only said "/health 200")', () => {
    const body = JSON.stringify({
      status: 'down',
      checks: {
        nats: { up: true },
        'venue-session': { up: false, detail: 'backoff; not open yet (7536 ms since start); last failure: HTTP 401' },
      },
    });
    expect(downChecks(body)).toBe('venue-session: backoff; not open yet (7536 ms since start); last failure: HTTP 401');
    expect(downChecks('not json')).toBeUndefined();
    expect(downChecks(JSON.stringify({ checks: { nats: { up: true } } }))).toBeUndefined();
    expect(downChecks(JSON.stringify({ checks: { x: { up: false, detail: 'y'.repeat(5_000) } } }))?.length).toBe(303);
  });
});
