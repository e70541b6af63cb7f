/**
 * Hand-written validation of `pricestream` frames (§2.2): the connector's hot path (thousands of frames
 * per second, p99 hop budget 300 µs), where class-validator would cost more than the JSON parse. It
 * checks types of every required field and the grammar of the decimal strings by a char scan (no Decimal
 * is built; the consumer parses what it uses). Allocation-free on success: the parsed object itself
 * becomes the message.
 */
import { Decimal } from '../money/decimal.js';

/** Same limit as `isDecimalText` (money/decimal.ts): a hostile frame cannot make anyone parse a huge number. */
const MAX_DECIMAL_LENGTH = 200;

const ZERO = 0x30;
const NINE = 0x39;

/** Index after the run of ASCII digits starting at `i`. */
function skipDigits(text: string, i: number): number {
  let j = i;
  while (j < text.length) {
    const c = text.charCodeAt(j);
    if (c < ZERO || c > NINE) break;
    j++;
  }
  return j;
}

/**
 * The grammar of `DECIMAL_PATTERN` (money/decimal.ts: `-?digits(.digits)?([eE][+-]?digits)?`, at most
 * 200 chars) as one forward scan: six of these run per frame, and the scan is a few times cheaper than
 * the regular expression on these short strings (bench/hot-path.ts). The spec checks both agree.
 */
export function isDecimalChars(text: unknown): text is string {
  if (typeof text !== 'string' || text.length > MAX_DECIMAL_LENGTH) return false;
  const end = text.length;
  let i = text.charCodeAt(0) === 0x2d ? 1 : 0; // '-'
  let j = skipDigits(text, i);
  if (j === i) return false;
  i = j;
  if (i < end && text.charCodeAt(i) === 0x2e) {
    // '.'
    j = skipDigits(text, i + 1);
    if (j === i + 1) return false;
    i = j;
  }
  if (i < end && (text.charCodeAt(i) | 0x20) === 0x65) {
    // 'e' or 'E'
    i++;
    const sign = text.charCodeAt(i);
    if (sign === 0x2b || sign === 0x2d) i++; // '+' or '-'
    j = skipDigits(text, i);
    if (j === i) return false;
    i = j;
  }
  return i === end;
}

const hasOwn = Object.prototype.hasOwnProperty;

/**
 * Sanity of the numbers (issue: a price "1e309" was published as live): prices finite and positive,
 * quantities finite and not negative, offer ≥ bid. `Number` is used only to compare, never to carry
 * money: rounding to the nearest double is monotonic, so doubles that differ order the decimals the same
 * way, and only equal doubles need the exact comparison.
 */
function checkSanity(offer: Record<string, unknown>, bid: Record<string, unknown>): string | undefined {
  const offerPrice = Number(offer['price']);
  const bidPrice = Number(bid['price']);
  if (!(offerPrice > 0 && offerPrice < Infinity)) return 'offer.price must be finite and positive';
  if (!(bidPrice > 0 && bidPrice < Infinity)) return 'bid.price must be finite and positive';
  if (!isAmount(offer['quantity']) || !isAmount(offer['quoteAmount'])) {
    return 'offer amounts must be finite and not negative';
  }
  if (!isAmount(bid['quantity']) || !isAmount(bid['quoteAmount'])) return 'bid amounts must be finite and not negative';
  if (offerPrice < bidPrice) return 'offer.price must not be below bid.price';
  if (offerPrice === bidPrice && new Decimal(offer['price'] as string).lt(bid['price'] as string)) {
    return 'offer.price must not be below bid.price';
  }
  return undefined;
}

function isAmount(text: unknown): boolean {
  const value = Number(text);
  return value >= 0 && value < Infinity;
}

function isNonEmptyString(value: unknown): value is string {
  return typeof value === 'string' && value.length > 0;
}

/** Optional string fields: absent, or a string; a null is removed (absent and null mean the same here). */
function checkOptionalString(frame: Record<string, unknown>, key: string): boolean {
  const value = frame[key];
  if (value === undefined || typeof value === 'string') return true;
  if (value === null) {
    delete frame[key];
    return true;
  }
  return false;
}

function checkSide(value: unknown, offer: boolean): string | undefined {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    return offer ? 'offer must be an object' : 'bid must be an object';
  }
  const side = value as Record<string, unknown>;
  if (hasOwn.call(side, '__proto__')) delete side['__proto__'];
  if (!isDecimalChars(side['price']))
    return offer ? 'offer.price must be a decimal string' : 'bid.price must be a decimal string';
  if (!isDecimalChars(side['quantity'])) {
    return offer ? 'offer.quantity must be a decimal string' : 'bid.quantity must be a decimal string';
  }
  if (!isDecimalChars(side['quoteAmount'])) {
    return offer ? 'offer.quoteAmount must be a decimal string' : 'bid.quoteAmount must be a decimal string';
  }
  return undefined;
}

/**
 * Undefined when `frame` (already known to have `messageType: 'pricestream'`) is a valid price update,
 * else the reason. Removes an own `__proto__` key and null optional fields in place.
 */
export function checkPriceUpdate(frame: Record<string, unknown>): string | undefined {
  if (hasOwn.call(frame, '__proto__')) delete frame['__proto__'];
  if (typeof frame['chanId'] !== 'string') return 'chanId must be a string';
  if (!Number.isSafeInteger(frame['timestamp'])) return 'timestamp must be an integer';
  if (!isNonEmptyString(frame['instrument'])) return 'instrument must be a non-empty string';
  if (!isNonEmptyString(frame['quoteId'])) return 'quoteId must be a non-empty string';
  if (typeof frame['tenor'] !== 'string') return 'tenor must be a string';
  const sideError = checkSide(frame['offer'], true) ?? checkSide(frame['bid'], false);
  if (sideError !== undefined) return sideError;
  const sanityError = checkSanity(frame['offer'] as Record<string, unknown>, frame['bid'] as Record<string, unknown>);
  if (sanityError !== undefined) return sanityError;
  if (!checkOptionalString(frame, 'settleDate')) return 'settleDate must be a string';
  if (!checkOptionalString(frame, 'tag')) return 'tag must be a string';
  return undefined;
}
