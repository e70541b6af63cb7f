/**
 * §4.1 anti-replay: `nonce` (whole number, strictly increasing per API key; tried first when both are
 * present) or `tonce` (Unix microseconds within the window of the venue clock; a tonce value is accepted
 * once per key). Values are compared as BigInt from the JSON text, never as a JS number.
 *
 * Dialect `tonceOrder: increasing`: the endpoints of §5.4 rule 4 (withdrawal, order-state, participant) also
 * refuse a tonce not above the highest the key had accepted anywhere ("a replayed, lower or stale value").
 */
import { JsonNumber, type JsonObject } from '../../http/json.js';
import type { TonceOrder } from '../../dialect.js';

export type ReplayVerdict = 'ok' | 'missing' | 'malformed' | 'replayed' | 'lower' | 'stale';

const INTEGER = /^-?(0|[1-9]\d*)$/;
/** Both are int64 on the wire (§4.1). */
const INT64_MAX = 2n ** 63n - 1n;

export class AntiReplayLedger {
  private readonly lastNonce = new Map<string, bigint>();
  private readonly usedTonces = new Map<string, Map<bigint, number>>();
  private readonly highestTonce = new Map<string, bigint>();

  constructor(
    private readonly windowMs: number,
    private readonly tonceOrder: TonceOrder = 'once',
  ) {}

  /**
   * Judges and, when accepted, records the body's anti-replay element for this key. `strict`: an endpoint of
   * §5.4 rule 4 (withdrawal, order-state, participant).
   */
  admit(apiKey: string, body: JsonObject, nowMs: number, strict = false): ReplayVerdict {
    const nonce = body['nonce'];
    const tonce = body['tonce'];
    if (nonce !== undefined) return this.admitNonce(apiKey, nonce);
    if (tonce !== undefined) return this.admitTonce(apiKey, tonce, nowMs, strict && this.tonceOrder === 'increasing');
    return 'missing';
  }

  private admitNonce(apiKey: string, raw: unknown): ReplayVerdict {
    const value = integerOf(raw);
    if (value === undefined || value < 0n) return 'malformed';
    const last = this.lastNonce.get(apiKey);
    if (last !== undefined && value <= last) return 'replayed';
    this.lastNonce.set(apiKey, value);
    return 'ok';
  }

  private admitTonce(apiKey: string, raw: unknown, nowMs: number, increasing: boolean): ReplayVerdict {
    const value = integerOf(raw);
    if (value === undefined) return 'malformed';
    const nowMicros = BigInt(Math.trunc(nowMs)) * 1000n;
    const windowMicros = BigInt(this.windowMs) * 1000n;
    const distance = value > nowMicros ? value - nowMicros : nowMicros - value;
    if (distance > windowMicros) return 'stale';
    let used = this.usedTonces.get(apiKey);
    if (used === undefined) {
      used = new Map();
      this.usedTonces.set(apiKey, used);
    }
    for (const [t, at] of used) if (nowMs - at > 2 * this.windowMs) used.delete(t);
    if (used.has(value)) return 'replayed';
    const highest = this.highestTonce.get(apiKey);
    if (increasing && highest !== undefined && value <= highest) return 'lower';
    used.set(value, nowMs);
    if (highest === undefined || value > highest) this.highestTonce.set(apiKey, value);
    return 'ok';
  }
}

function integerOf(raw: unknown): bigint | undefined {
  if (!(raw instanceof JsonNumber) || !INTEGER.test(raw.text)) return undefined;
  const value = BigInt(raw.text);
  return value > INT64_MAX || value < -INT64_MAX - 1n ? undefined : value;
}
