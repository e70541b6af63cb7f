/**
 * Hand-written validation of `pricestream` frames (§2.2): the connector's hot path (thousands of frames
 * per second, p99 hop budget 300 µs), where class-validator would cost more than the JSON parse. It
 * checks types of every required field and the grammar of the decimal strings by a char scan (no Decimal
 * is built; the consumer parses what it uses). Allocation-free on success: the parsed object itself
 * becomes the message.
 */
import { isQuoteId, QUOTE_ID_RULE } from '#contracts';
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

/** What {@link decimalShape} found: 0 is not a decimal; otherwise DECIMAL, plus NEGATIVE and/or EXPONENT. */
const DECIMAL = 1;
const NEGATIVE = 2;
const EXPONENT = 4;

/**
 * The grammar of `DECIMAL_PATTERN` (money/decimal.ts: `-?digits(.digits)?([eE][+-]?digits)?`, at most
 * 200 chars) as one forward scan: six of these run per frame, and the scan is a few times cheaper than
 * the regular expression on these short strings (bench/hot-path.ts). The spec checks both agree.
 * Returns 0 when `text` is not a decimal, else DECIMAL with NEGATIVE (a leading '-') and EXPONENT (an
 * 'e' part) as found: a plain, non-negative decimal of at most 200 chars is finite without parsing it.
 */
function decimalShape(text: unknown): number {
  if (typeof text !== 'string' || text.length > MAX_DECIMAL_LENGTH) return 0;
  const end = text.length;
  const negative = text.charCodeAt(0) === 0x2d; // '-'
  let i = negative ? 1 : 0;
  let j = skipDigits(text, i);
  if (j === i) return 0;
  i = j;
  if (i < end && text.charCodeAt(i) === 0x2e) {
    // '.'
    j = skipDigits(text, i + 1);
    if (j === i + 1) return 0;
    i = j;
  }
  let exponent = false;
  if (i < end && (text.charCodeAt(i) | 0x20) === 0x65) {
    // 'e' or 'E'
    exponent = true;
    i++;
    const sign = text.charCodeAt(i);
    if (sign === 0x2b || sign === 0x2d) i++; // '+' or '-'
    j = skipDigits(text, i);
    if (j === i) return 0;
    i = j;
  }
  if (i !== end) return 0;
  return DECIMAL | (negative ? NEGATIVE : 0) | (exponent ? EXPONENT : 0);
}

/** True when `text` has the grammar of `DECIMAL_PATTERN` and at most 200 chars. */
export function isDecimalChars(text: unknown): text is string {
  return decimalShape(text) !== 0;
}

const hasOwn = Object.prototype.hasOwnProperty;

/**
 * Sanity of the numbers (issue: a price "1e309" was published as live): prices finite and positive,
 * quantities finite and not negative, offer ≥ bid. Plain non-negative decimals (what the venue sends) are
 * judged on their digits, exactly and without parsing (`Number()` of a decimal string costs more than
 * the rest of this check); anything with a sign or an exponent goes through `Number`, which is used only
 * to compare, never to carry money: rounding to the nearest double is monotonic, so doubles that differ
 * order the decimals the same way, and only equal doubles need the exact comparison.
 */
function checkSanity(offer: Record<string, unknown>, bid: Record<string, unknown>): string | undefined {
  const offerPrice = offer['price'] as string;
  const bidPrice = bid['price'] as string;
  const plainPrices = shapes[PRICE] === DECIMAL && shapes[BID + PRICE] === DECIMAL;
  if (plainPrices) {
    if (!hasNonZeroDigit(offerPrice)) return 'offer.price must be finite and positive';
    if (!hasNonZeroDigit(bidPrice)) return 'bid.price must be finite and positive';
  } else {
    const offerValue = Number(offerPrice);
    const bidValue = Number(bidPrice);
    if (!(offerValue > 0 && offerValue < Infinity)) return 'offer.price must be finite and positive';
    if (!(bidValue > 0 && bidValue < Infinity)) return 'bid.price must be finite and positive';
  }
  if (!isAmount(offer['quantity'], shapes[QUANTITY]) || !isAmount(offer['quoteAmount'], shapes[QUOTE_AMOUNT])) {
    return 'offer amounts must be finite and not negative';
  }
  if (!isAmount(bid['quantity'], shapes[BID + QUANTITY]) || !isAmount(bid['quoteAmount'], shapes[BID + QUOTE_AMOUNT])) {
    return 'bid amounts must be finite and not negative';
  }
  if (plainPrices)
    return comparePlain(offerPrice, bidPrice) < 0 ? 'offer.price must not be below bid.price' : undefined;
  const offerValue = Number(offerPrice);
  const bidValue = Number(bidPrice);
  if (offerValue < bidValue) return 'offer.price must not be below bid.price';
  if (offerValue === bidValue && new Decimal(offerPrice).lt(bidPrice)) {
    return 'offer.price must not be below bid.price';
  }
  return undefined;
}

/** Finite and not negative. A plain decimal without '-' is, by its grammar and its 200-char bound. */
function isAmount(text: unknown, shape: number | undefined): boolean {
  if (shape === DECIMAL) return true;
  const value = Number(text);
  return value >= 0 && value < Infinity;
}

function hasNonZeroDigit(plain: string): boolean {
  for (let i = 0; i < plain.length; i++) {
    const c = plain.charCodeAt(i);
    if (c > ZERO && c <= NINE) return true;
  }
  return false;
}

/** Index of the '.' of a plain decimal, or its length. */
function pointOf(plain: string): number {
  const point = plain.indexOf('.');
  return point < 0 ? plain.length : point;
}

/**
 * Sign of `a − b` for plain non-negative decimals (digits, optionally '.' and digits), exactly: leading
 * zeros skipped, integer parts compared by length then digit by digit, then the fractions digit by digit
 * (a missing digit is 0).
 */
export function comparePlain(a: string, b: string): number {
  const pointA = pointOf(a);
  const pointB = pointOf(b);
  let ia = 0;
  while (ia < pointA - 1 && a.charCodeAt(ia) === ZERO) ia++;
  let ib = 0;
  while (ib < pointB - 1 && b.charCodeAt(ib) === ZERO) ib++;
  if (pointA - ia !== pointB - ib) return pointA - ia - (pointB - ib);
  for (; ia < pointA; ia++, ib++) {
    const d = a.charCodeAt(ia) - b.charCodeAt(ib);
    if (d !== 0) return d;
  }
  const fractionA = a.length - pointA - 1;
  const fractionB = b.length - pointB - 1;
  const digits = Math.max(fractionA, fractionB);
  for (let k = 1; k <= digits; k++) {
    const ca = k <= fractionA ? a.charCodeAt(pointA + k) : ZERO;
    const cb = k <= fractionB ? b.charCodeAt(pointB + k) : ZERO;
    if (ca !== cb) return ca - cb;
  }
  return 0;
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

/**
 * The shapes ({@link decimalShape}) of the six decimals of the frame being checked: offer price, quantity,
 * quoteAmount, then bid's. Written by `checkSide`, read by `checkSanity` of the same frame, so each
 * string is scanned once (the check runs synchronously, one frame at a time).
 */
const shapes = new Uint8Array(6);
const PRICE = 0;
const QUANTITY = 1;
const QUOTE_AMOUNT = 2;
const BID = 3;

function checkSide(value: unknown, offer: boolean): string | undefined {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    return offer ? 'offer must be an object' : 'bid must be an object';
  }
  const side = value as Record<string, unknown>;
  if (hasOwn.call(side, '__proto__')) delete side['__proto__'];
  const at = offer ? 0 : BID;
  if ((shapes[at + PRICE] = decimalShape(side['price'])) === 0)
    return offer ? 'offer.price must be a decimal string' : 'bid.price must be a decimal string';
  if ((shapes[at + QUANTITY] = decimalShape(side['quantity'])) === 0) {
    return offer ? 'offer.quantity must be a decimal string' : 'bid.quantity must be a decimal string';
  }
  if ((shapes[at + QUOTE_AMOUNT] = decimalShape(side['quoteAmount'])) === 0) {
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
  const quoteId = frame['quoteId'];
  if (!isNonEmptyString(quoteId)) return 'quoteId must be a non-empty string';
  // An order names it again (OrderCommand): one that could never be traded is no live quote.
  if (!isQuoteId(quoteId)) return QUOTE_ID_RULE;
  if (typeof frame['tenor'] !== 'string') return 'tenor must be a string';
  const sideError = checkSide(frame['offer'], true) ?? checkSide(frame['bid'], false);
  if (sideError !== undefined) return sideError;
  const sanityError = checkSanity(frame['offer'] as Record<string, unknown>, frame['bid'] as Record<string, unknown>);
  if (sanityError !== undefined) return sanityError;
  if (!checkOptionalString(frame, 'settleDate')) return 'settleDate must be a string';
  if (!checkOptionalString(frame, 'tag')) return 'tag must be a string';
  return undefined;
}
