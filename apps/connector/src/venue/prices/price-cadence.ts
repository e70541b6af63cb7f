/**
 * W13, "at most 4 updates per second per connection" (§6.2, §8), has two readings: a cadence per stream (each
 * stream hears from the venue on every tick) or one shared by the connection (its streams take turns, so each of
 * N hears from the venue every N ÷ rate seconds). A fixed silence threshold flaps the streams of a busy
 * connection stale against a venue of the second reading; stretching it for every venue would show a stopped
 * stream live for longer against one of the first. So the threshold follows what the connection shows: pure
 * rules here, the registry (price-stream-registry.ts) counts and applies them once per sweep.
 */
import { QUOTE_LIFETIME_MS } from './price-stream-machine.js';

/** A stream's turn is waited for this many times over before its silence is stale (a turn may be skipped). */
export const TURNS_BEFORE_STALE = 2;

/** A stream's turn never comes later than a quote's life: beyond that, silence is stale whatever the rate. */
export const MAX_SHARED_STALE_AFTER_MS = QUOTE_LIFETIME_MS;

/** What the connection showed in the last window (at most the stale period, so a dead connection is seen in time). */
export interface CadenceObservation {
  /** Streams the venue holds for us (acknowledged), whether heard from or not. */
  readonly heldStreams: number;
  /** The window's length. */
  readonly windowMs: number;
  /**
   * Price updates our streams received in it. Not the connection's others (a subscription of an earlier life, one
   * released and not yet ended): they take turns too, so our streams' share of the rate is what times their turn.
   */
  readonly updates: number;
  /** Held streams with an accepted update in it. */
  readonly streamsHeard: number;
}

export interface StaleRule {
  /** `PRICE_STALE_AFTER_MS`: the threshold when each stream has a cadence of its own, and the least one. */
  readonly staleAfterMs: number;
  /** `VENUE_PRICE_UPDATES_PER_CONNECTION`: the shared rate, told; unset, the cadence is judged from the observation. */
  readonly connectionPriceRate?: number;
}

export type CadenceReading = 'per-stream' | 'per-connection';

export interface StaleJudgement {
  readonly reading: CadenceReading;
  /** Silence longer than this is stale. */
  readonly staleAfterMs: number;
}

/**
 * The silence after which a held stream is stale.
 *
 * Told the shared rate: twice a turn of the held streams at that rate. Not told: the connection's updates in the
 * window show which reading holds. Streams taking turns are each heard about once in a window (the updates are
 * spread: at least half of them from different streams); streams with a cadence of their own are each heard
 * many times (a quarter of a second apart, 20 times in 5 s). Spread, the turn is measured — held streams × the
 * window ÷ its updates, whatever the venue's tick — and the threshold is twice it. Not spread, the threshold stays
 * `staleAfterMs`: however many streams of a per-stream venue went quiet (their silence does not spread the
 * others' updates), and when the connection carries nothing at all (no updates: nothing is spread), so a dead
 * connection is seen as soon as with one stream. The spread bound matches the two turns: while fewer than half
 * the window's updates come from different streams, a turn (held ÷ rate) is under half the window, so two of
 * them fit in `staleAfterMs` anyway. Never sooner than `staleAfterMs`, never later than a quote's life.
 */
export function judgeStaleness(observed: CadenceObservation, rule: StaleRule): StaleJudgement {
  const { staleAfterMs, connectionPriceRate } = rule;
  const { heldStreams, windowMs, updates, streamsHeard } = observed;
  if (connectionPriceRate !== undefined) {
    return {
      reading: 'per-connection',
      staleAfterMs: stretched(staleAfterMs, (heldStreams * 1_000) / connectionPriceRate),
    };
  }
  const spread = streamsHeard >= 2 && 2 * streamsHeard >= updates;
  if (!spread || windowMs <= 0) return { reading: 'per-stream', staleAfterMs };
  return { reading: 'per-connection', staleAfterMs: stretched(staleAfterMs, (heldStreams * windowMs) / updates) };
}

function stretched(staleAfterMs: number, turnMs: number): number {
  return Math.max(staleAfterMs, Math.min(Math.ceil(TURNS_BEFORE_STALE * turnMs), MAX_SHARED_STALE_AFTER_MS));
}
