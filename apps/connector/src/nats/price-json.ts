import type { PriceMessage, PriceSide } from '#contracts';

/**
 * The JSON text of a PriceMessage, written by hand for `live` prices (the hot path: thousands a second).
 * Measured (bench/hot-path.ts): `JSON.stringify` of the whole object walks 13 keys and two nested objects
 * every time; here the stream's constant part (`{"v":1,"status":"live",…,"quantity":…`) is serialised
 * once per stream, and each update only appends its quote fields. Venue strings are copied between quotes
 * after a char scan proves they need no escaping, so the text is exactly `JSON.stringify(price)`. Other
 * statuses (rare), strings that need escaping and anything that does not look like a complete live price
 * go to `JSON.stringify`.
 */
export class PriceJson {
  /** `{"v":1,"status":"live",…,"quantity":"…"` of the stream this writer belongs to. */
  private readonly liveHead: string;

  constructor(stream: Pick<PriceMessage, 'accountGroup' | 'instrument' | 'tenor' | 'currency' | 'quantity'>) {
    this.liveHead =
      `{"v":1,"status":"live","accountGroup":${JSON.stringify(stream.accountGroup)}` +
      `,"instrument":${JSON.stringify(stream.instrument)},"tenor":${JSON.stringify(stream.tenor)}` +
      `,"currency":${JSON.stringify(stream.currency)},"quantity":${JSON.stringify(stream.quantity)}`;
  }

  /** The JSON text of `price`, which must belong to this writer's stream. */
  write(price: PriceMessage): string {
    const { quoteId, venueTimestamp, quoteExpiresAt, bid, offer, settleDate } = price;
    if (
      price.status !== 'live' ||
      price.v !== 1 ||
      !isPlain(quoteId) ||
      !isInteger(venueTimestamp) ||
      !isInteger(quoteExpiresAt) ||
      !isPlainSide(bid) ||
      !isPlainSide(offer) ||
      !(settleDate === undefined || isPlain(settleDate)) ||
      price.code !== undefined ||
      price.message !== undefined
    ) {
      return JSON.stringify(price);
    }
    // One template: the fewest intermediate strings (each `${}` is a string add).
    return (
      `${this.liveHead},"quoteId":"${quoteId}","venueTimestamp":${integerText(venueTimestamp)}` +
      `,"quoteExpiresAt":${integerText(quoteExpiresAt)}` +
      `,"bid":{"price":"${bid.price}","quantity":"${bid.quantity}","quoteAmount":"${bid.quoteAmount}"}` +
      `,"offer":{"price":"${offer.price}","quantity":"${offer.quantity}","quoteAmount":"${offer.quoteAmount}"}` +
      (settleDate === undefined ? '}' : `,"settleDate":"${settleDate}"}`)
    );
  }
}

/** '000' … '999'. */
const THREE_DIGITS = Array.from({ length: 1_000 }, (_, i) => String(i).padStart(3, '0'));
let lastHigh = -1;
let lastHighText = '';

/**
 * The decimal text of a non-negative safe integer, as `String(n)` writes it. An epoch-millisecond time
 * (13 digits) is beyond V8's small integers, and `String(n)` then takes its general double-to-text path
 * (≈ 0.2–0.4 µs each, two per price): here it is the text of `n / 1e9`, cached (it changes every
 * 11.6 days for a timestamp), and three groups of three digits from a table.
 */
export function integerText(n: number): string {
  if (n < 1e9 || n > Number.MAX_SAFE_INTEGER) return String(n);
  const high = Math.floor(n / 1e9);
  const low = n - high * 1e9;
  if (high !== lastHigh) {
    lastHigh = high;
    lastHighText = String(high);
  }
  return (
    lastHighText +
    (THREE_DIGITS[Math.floor(low / 1e6)] as string) +
    (THREE_DIGITS[Math.floor(low / 1e3) % 1_000] as string) +
    (THREE_DIGITS[low % 1_000] as string)
  );
}

function isInteger(value: unknown): value is number {
  return typeof value === 'number' && Number.isSafeInteger(value);
}

function isPlainSide(value: PriceSide | undefined): value is PriceSide {
  return (
    typeof value === 'object' &&
    value !== null &&
    isPlain(value.price) &&
    isPlain(value.quantity) &&
    isPlain(value.quoteAmount)
  );
}

/**
 * A string JSON writes between quotes as it is: no control char, `"`, `\` or surrogate (JSON.stringify
 * escapes lone surrogates). Venue decimals always are; anything else sends the message to JSON.stringify.
 */
export function isPlain(text: unknown): text is string {
  if (typeof text !== 'string') return false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c < 0x20 || c === 0x22 || c === 0x5c || (c >= 0xd800 && c <= 0xdfff)) return false;
  }
  return true;
}
