/**
 * What `prices(...)` emits: the `PriceMessage` of the contract with what a strategy must know before acting on
 * it — whether it is stale, whether its quote has expired, and so whether it is tradable. Pure functions,
 * unit-tested without NATS.
 */
import type { PriceMessage } from '#contracts';

export interface PriceUpdate {
  /** The price subject (from the connector's grant). */
  readonly subject: string;
  readonly price: PriceMessage;
  /** The connector marked the stream stale: the last quote repeated, no update for a while. */
  readonly stale: boolean;
  /** The stream stopped (venue refusal, connector shut down); `price.code` says why. */
  readonly stopped: boolean;
  /** The quote's life (`quoteExpiresAt`) is over at `receivedAt`. */
  readonly expired: boolean;
  /** Live and not expired: a quote one may order on. */
  readonly tradable: boolean;
  /** Read from the stream's last value when the subscription started (sent before it), not a new update. */
  readonly fromLastValue: boolean;
  /** When the SDK produced this update (epoch ms). */
  readonly receivedAt: number;
}

export function priceUpdate(
  subject: string,
  price: PriceMessage,
  receivedAt: number,
  fromLastValue: boolean,
): PriceUpdate {
  const expired = price.quoteExpiresAt !== undefined && price.quoteExpiresAt <= receivedAt;
  return {
    subject,
    price,
    stale: price.status === 'stale',
    stopped: price.status === 'stopped',
    expired,
    tradable: price.status === 'live' && price.quoteId !== undefined && !expired,
    fromLastValue,
    receivedAt,
  };
}

/**
 * A subject's last value as read when a subscription starts (`storedAt`: when the stream stored it, epoch ms). A
 * `live` one stored `silentStaleMs` or longer ago with nothing newer is nobody's live price any more — a running
 * connector replaces it within that time (a newer price, or `stale`); one that died without stopping does not
 * (outside tester t2: a crashed connector's last price, 17–29 s old, came first as tradable and was executed) —
 * so it is shown `stale`, never tradable, until the stream's next update.
 */
export function heldLastValue(price: PriceMessage, storedAt: number, now: number, silentStaleMs: number): PriceMessage {
  if (price.status !== 'live' || now - storedAt < silentStaleMs) return price;
  return { ...price, status: 'stale' };
}

/** Milliseconds until this update's quote expires (undefined: no expiry to watch, or already expired). */
export function msUntilExpiry(update: PriceUpdate): number | undefined {
  const at = update.price.quoteExpiresAt;
  if (at === undefined || update.expired || update.stopped) return undefined;
  return Math.max(0, at - update.receivedAt);
}

/** A decoded payload that looks like a price of this contract version (a foreign message is skipped). */
export function asPriceMessage(value: unknown): PriceMessage | undefined {
  if (value === null || typeof value !== 'object') return undefined;
  const price = value as Partial<PriceMessage>;
  if (price.v !== 1 || (price.status !== 'live' && price.status !== 'stale' && price.status !== 'stopped')) {
    return undefined;
  }
  return typeof price.instrument === 'string' ? (price as PriceMessage) : undefined;
}
