import { describe, expect, it } from '@jest/globals';
import { parseJson, type JsonObject } from '../../http/json.js';
import { AntiReplayLedger } from './anti-replay.js';

const body = (text: string): JsonObject => parseJson(text) as JsonObject;
const NOW = 1_700_000_000_000;
const micros = (ms: number): string => `${BigInt(ms) * 1000n}`;

describe('§4.1 anti-replay', () => {
  it('nonce strictly increases per key', () => {
    const ledger = new AntiReplayLedger(120_000);
    expect(ledger.admit('k', body('{"nonce":5}'), NOW)).toBe('ok');
    expect(ledger.admit('k', body('{"nonce":5}'), NOW)).toBe('replayed');
    expect(ledger.admit('k', body('{"nonce":4}'), NOW)).toBe('replayed');
    expect(ledger.admit('other', body('{"nonce":1}'), NOW)).toBe('ok');
    expect(ledger.admit('k', body('{"nonce":6}'), NOW)).toBe('ok');
  });

  it('compares nonces beyond 2^53 exactly', () => {
    const ledger = new AntiReplayLedger(120_000);
    expect(ledger.admit('k', body('{"nonce":9007199254740993}'), NOW)).toBe('ok');
    expect(ledger.admit('k', body('{"nonce":9007199254740992}'), NOW)).toBe('replayed');
    expect(ledger.admit('k', body('{"nonce":9007199254740994}'), NOW)).toBe('ok');
  });

  it('tonce within the window once; outside is stale; the boundary is inclusive', () => {
    const ledger = new AntiReplayLedger(120_000);
    expect(ledger.admit('k', body(`{"tonce":${micros(NOW - 120_000)}}`), NOW)).toBe('ok');
    expect(ledger.admit('k', body(`{"tonce":${micros(NOW - 120_000)}}`), NOW)).toBe('replayed');
    expect(ledger.admit('k', body(`{"tonce":${micros(NOW - 120_001)}}`), NOW)).toBe('stale');
    expect(ledger.admit('k', body(`{"tonce":${micros(NOW + 120_001)}}`), NOW)).toBe('stale');
  });

  it('tonce order "once" (default): a lower tonce is accepted; "increasing": refused on the strict endpoints only', () => {
    const once = new AntiReplayLedger(120_000);
    expect(once.admit('k', body(`{"tonce":${micros(NOW)}}`), NOW, true)).toBe('ok');
    expect(once.admit('k', body(`{"tonce":${micros(NOW - 5)}}`), NOW, true)).toBe('ok');

    const increasing = new AntiReplayLedger(120_000, 'increasing');
    expect(increasing.admit('k', body(`{"tonce":${micros(NOW)}}`), NOW, false)).toBe('ok');
    // the high-water mark counts tonces accepted anywhere; a lower one is refused where §5.4 rule 4 applies
    expect(increasing.admit('k', body(`{"tonce":${micros(NOW - 5)}}`), NOW, true)).toBe('lower');
    expect(increasing.admit('k', body(`{"tonce":${micros(NOW - 6)}}`), NOW, false)).toBe('ok');
    expect(increasing.admit('other', body(`{"tonce":${micros(NOW - 7)}}`), NOW, true)).toBe('ok');
    expect(increasing.admit('k', body(`{"tonce":${micros(NOW + 1)}}`), NOW, true)).toBe('ok');
  });

  it('the nonce is judged when both are present; neither → missing; wrong types → malformed', () => {
    const ledger = new AntiReplayLedger(120_000);
    expect(ledger.admit('k', body('{"nonce":1,"tonce":1}'), NOW)).toBe('ok');
    expect(ledger.admit('k', body('{}'), NOW)).toBe('missing');
    expect(ledger.admit('k', body('{"nonce":"7"}'), NOW)).toBe('malformed');
    expect(ledger.admit('k', body('{"nonce":7.0}'), NOW)).toBe('malformed');
    expect(ledger.admit('k', body('{"tonce":true}'), NOW)).toBe('malformed');
  });
});
