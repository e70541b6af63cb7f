import type { PriceMessage, PriceSide } from '#contracts';

/**
 * The JSON text of a PriceMessage, written by hand for `live` prices (the hot path: thousands a second).
 * Measured (bench/hot-path.ts): `JSON.stringify` of the whole object walks 13 keys and two nested objects
 * every time; here the stream's constant part (`{"v":1,"status":"live",…,"quantity":…`) is serialised
 * once per stream, and each update only appends its quote fields. Venue strings are copied between quotes
 * after a char scan proves they need no escaping (the decimals always pass; anything else falls back to
 * `JSON.stringify` of that string), so the text parses to the same value as `JSON.stringify(price)`.
 * Other statuses (rare) and anything that does not look like a complete live price use `JSON.stringify`.
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
      typeof quoteId !== 'string' ||
      !isInteger(venueTimestamp) ||
      !isInteger(quoteExpiresAt) ||
      !isSide(bid) ||
      !isSide(offer) ||
      price.code !== undefined ||
      price.message !== undefined
    ) {
      return JSON.stringify(price);
    }
    let text =
      `${this.liveHead},"quoteId":${jsonString(quoteId)},"venueTimestamp":${venueTimestamp}` +
      `,"quoteExpiresAt":${quoteExpiresAt},"bid":${side(bid)},"offer":${side(offer)}`;
    if (settleDate !== undefined) text += `,"settleDate":${jsonString(settleDate)}`;
    return `${text}}`;
  }
}

function isInteger(value: unknown): value is number {
  return typeof value === 'number' && Number.isSafeInteger(value);
}

function isSide(value: PriceSide | undefined): value is PriceSide {
  return (
    typeof value === 'object' &&
    value !== null &&
    typeof value.price === 'string' &&
    typeof value.quantity === 'string' &&
    typeof value.quoteAmount === 'string'
  );
}

function side(value: PriceSide): string {
  return (
    `{"price":${jsonString(value.price)},"quantity":${jsonString(value.quantity)}` +
    `,"quoteAmount":${jsonString(value.quoteAmount)}}`
  );
}

/** `"text"`, escaped by `JSON.stringify` only when a char needs it (control, `"`, `\`, a surrogate). */
export function jsonString(text: string): string {
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c < 0x20 || c === 0x22 || c === 0x5c || (c >= 0xd800 && c <= 0xdfff)) return JSON.stringify(text);
  }
  return `"${text}"`;
}
