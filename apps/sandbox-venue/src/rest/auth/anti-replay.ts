/**
 * §4.1 anti-replay: `nonce` (whole number, strictly increasing per API key; tried first when both are
 * present) or `tonce` (Unix microseconds within the window of the venue clock; a tonce value is accepted
 * once per key). Values are compared as BigInt from the JSON text, never as a JS number.
 */
import { JsonNumber, type JsonObject } from '../../http/json.js';

export type ReplayVerdict = 'ok' | 'missing' | 'malformed' | 'replayed' | 'stale';

const INTEGER = /^-?(0|[1-9]\d*)$/;
/** Both are int64 on the wire (§4.1). */
const INT64_MAX = 2n ** 63n - 1n;

export class AntiReplayLedger {
  private readonly lastNonce = new Map<string, bigint>();
  private readonly usedTonces = new Map<string, Map<bigint, number>>();

  constructor(private readonly windowMs: number) {}

  /** Judges and, when accepted, records the body's anti-replay element for this key. */
  admit(apiKey: string, body: JsonObject, nowMs: number): ReplayVerdict {
    const nonce = body['nonce'];
    const tonce = body['tonce'];
    if (nonce !== undefined) return this.admitNonce(apiKey, nonce);
    if (tonce !== undefined) return this.admitTonce(apiKey, tonce, nowMs);
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

  private admitTonce(apiKey: string, raw: unknown, nowMs: number): ReplayVerdict {
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
    used.set(value, nowMs);
    return 'ok';
  }
}

function integerOf(raw: unknown): bigint | undefined {
  if (!(raw instanceof JsonNumber) || !INTEGER.test(raw.text)) return undefined;
  const value = BigInt(raw.text);
  return value > INT64_MAX || value < -INT64_MAX - 1n ? undefined : value;
}
