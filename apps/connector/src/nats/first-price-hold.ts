import type { PriceMessage } from '#contracts';

/**
 * A stream's prices until its subject is recorded in the published-subjects bucket (published-price-subjects.ts):
 * its first `live` or `stale` price starts the record and waits for it, with whatever follows, so that a process
 * killed right after that price went out leaves the subject for its next life to mark `stopped`. Once the record
 * settles, every price goes straight out (no wait, no record: once per stream's life, never per price).
 *
 * A record that fails or times out still lets the held prices out, in order: a KV outage must not become a price
 * outage, and what is put at risk is what the connector did before the record existed — after a crash that
 * subject's last price ages out (PRICE_MAX_AGE_MS) and readers hold back a value older than their bound. The
 * caller counts it and says so (`degraded`). A `stopped` ends the wait: what was held goes out, then the `stopped`
 * (the subject's last value is then not live, recorded or not).
 */
export type FirstPriceHold =
  | { readonly stage: 'unrecorded' }
  | { readonly stage: 'recording'; readonly held: readonly PriceMessage[] }
  | { readonly stage: 'settled' };

/** How a record ended: written durably, refused (the error), or not answered within the deadline. */
export type SubjectRecordResult = 'recorded' | 'failed' | 'timed_out';

export interface HoldStep {
  readonly next: FirstPriceHold;
  /** Published now, in this order. */
  readonly send: readonly PriceMessage[];
  /** The subject is to be recorded now. */
  readonly record: boolean;
  /** Prices went out without their subject recorded (a record that failed or timed out). */
  readonly degraded: boolean;
}

export const UNRECORDED: FirstPriceHold = { stage: 'unrecorded' };
export const SETTLED: FirstPriceHold = { stage: 'settled' };

/** A price of the stream arrives. */
export function priceArrives(hold: FirstPriceHold, price: PriceMessage): HoldStep {
  switch (hold.stage) {
    case 'settled':
      return step(hold, [price]);
    case 'unrecorded':
      // a stream whose first message is `stopped` publishes nothing live: nothing to record
      if (price.status === 'stopped') return step(hold, [price]);
      return { next: { stage: 'recording', held: [price] }, send: [], record: true, degraded: false };
    case 'recording':
      if (price.status === 'stopped') return step(SETTLED, [...hold.held, price]);
      return step({ stage: 'recording', held: [...hold.held, price] }, []);
  }
}

/** The stream's record settled. */
export function recordSettles(hold: FirstPriceHold, result: SubjectRecordResult): HoldStep {
  if (hold.stage !== 'recording') return step(hold, []); // the stream ended meanwhile
  return { next: SETTLED, send: hold.held, record: false, degraded: result !== 'recorded' };
}

function step(next: FirstPriceHold, send: readonly PriceMessage[]): HoldStep {
  return { next, send, record: false, degraded: false };
}
