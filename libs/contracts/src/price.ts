/**
 * A price as strategies receive it on `{prefix}.price.…` (plain JSON). Decimals are strings, exactly as
 * the venue sent them. `status`:
 *   live     — a fresh venue update;
 *   stale    — the stream stopped updating (no update for the configured time); the last price repeated —
 *              or, `code` {@link QUOTE_EXPIRED_ON_ARRIVAL}, the venue's update was past its quote's life by the
 *              gateway's clock when it arrived (a venue clock behind the gateway's): never tradable;
 *   stopped  — the venue stopped the stream (streamStop) or the subscription failed; no quote fields.
 */
export interface PriceSide {
  price: string;
  quantity: string;
  quoteAmount: string;
}

export type PriceStatus = 'live' | 'stale' | 'stopped';

/**
 * The `code` of a `stale` price whose venue update was past its quote's life (`quoteExpiresAt`) by the gateway's
 * clock when it arrived: the venue's clock is behind the gateway's (docs/spec-gaps.md W37). Never `live`.
 */
export const QUOTE_EXPIRED_ON_ARRIVAL = 'QUOTE_EXPIRED_ON_ARRIVAL';

export interface PriceMessage {
  v: 1;
  status: PriceStatus;
  accountGroup: string;
  instrument: string;
  tenor: string;
  currency: string;
  /** The requested size, as requested. */
  quantity: string;
  quoteId?: string;
  /** Venue timestamp of the update (epoch ms): order by this, not by arrival. */
  venueTimestamp?: number;
  /** venueTimestamp + 10 minutes (§2.2 rule 4). */
  quoteExpiresAt?: number;
  bid?: PriceSide;
  offer?: PriceSide;
  /** YYYYMMDD */
  settleDate?: string;
  /**
   * Set with status `stopped`: the venue's code (e.g. RFS100011) or a gateway code; with status `stale`,
   * {@link QUOTE_EXPIRED_ON_ARRIVAL} when the update was already past its quote's life on arrival.
   */
  code?: string;
  message?: string;
}
