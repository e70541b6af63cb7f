/**
 * The one Decimal everybody uses for venue money (§2, "monetary amounts … parse them as decimals").
 *
 * A private clone of decimal.js so that our settings never leak into (or get changed by) another
 * user of the library: 50 significant digits for arithmetic, and `toString()` stays in plain notation
 * for any exponent a venue amount can have. Parsing never rounds; only arithmetic does.
 */
import { Decimal as DecimalJs } from 'decimal.js';

const VenueDecimal: DecimalJs.Constructor = DecimalJs.clone({
  precision: 50,
  rounding: DecimalJs.ROUND_HALF_EVEN,
  toExpNeg: -50,
  toExpPos: 50,
});

/** The configured constructor (value) and the instance type (type), under one name. */
export const Decimal = VenueDecimal;
export type Decimal = DecimalJs;

/** Rounding modes we write amounts with, named for readers (decimal.js numbers them 0–8). */
export const Rounding = {
  Up: DecimalJs.ROUND_UP,
  Down: DecimalJs.ROUND_DOWN,
  Ceil: DecimalJs.ROUND_CEIL,
  Floor: DecimalJs.ROUND_FLOOR,
  HalfUp: DecimalJs.ROUND_HALF_UP,
  HalfDown: DecimalJs.ROUND_HALF_DOWN,
  HalfEven: DecimalJs.ROUND_HALF_EVEN,
} as const;
export type Rounding = (typeof Rounding)[keyof typeof Rounding];

/** A decimal text that is not one; `field` names where it came from (never a secret). */
export class InvalidDecimalError extends Error {
  override readonly name = 'InvalidDecimalError';
  constructor(
    readonly reason: string,
    readonly field?: string,
  ) {
    super(field === undefined ? `Invalid decimal: ${reason}` : `Invalid decimal in ${field}: ${reason}`);
  }
}

/**
 * Accepted grammar: optional '-', digits, optional '.' followed by digits, optional exponent
 * (`e`/`E`, optional sign, digits). Rejected: a leading '+', a bare '.5' or '5.', whitespace anywhere,
 * thousands or decimal commas, hex/octal/binary, NaN and Infinity. The venue (a BigDecimal writer)
 * never sends the rejected forms, so accepting them would only hide a broken peer.
 */
export const DECIMAL_PATTERN = /^-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?$/;

/** Longest text we parse; guards against a hostile frame making us build a huge number. */
export const MAX_DECIMAL_TEXT = 200;
/** Largest |exponent| of the value; keeps `toPlain` output bounded (1e-1000 would be 1000 chars). */
const MAX_EXPONENT = 1000;

function describe(text: string): string {
  return JSON.stringify(text.length > 40 ? `${text.slice(0, 40)}…` : text);
}

/**
 * Cheap check of the grammar and length only (no exponent range, no Decimal built): for hot paths that
 * pass the text on and parse it where it is used.
 */
export function isDecimalText(text: unknown): text is string {
  return typeof text === 'string' && text.length <= MAX_DECIMAL_TEXT && DECIMAL_PATTERN.test(text);
}

/** True when {@link parseDecimal} would accept `text`. */
export function isParsableDecimal(text: unknown): text is string {
  if (!isDecimalText(text)) return false;
  try {
    parseDecimal(text);
    return true;
  } catch {
    return false;
  }
}

/** Strict parse of a decimal string (plain or scientific). Throws {@link InvalidDecimalError}. */
export function parseDecimal(text: string, field?: string): Decimal {
  if (typeof text !== 'string') throw new InvalidDecimalError(`expected a string, got ${typeof text}`, field);
  if (text.length === 0) throw new InvalidDecimalError('empty string', field);
  if (text.length > MAX_DECIMAL_TEXT)
    throw new InvalidDecimalError(`longer than ${MAX_DECIMAL_TEXT} characters`, field);
  if (!DECIMAL_PATTERN.test(text)) throw new InvalidDecimalError(`not a decimal number: ${describe(text)}`, field);
  const value = new Decimal(text);
  if (!value.isZero() && Math.abs(value.e) > MAX_EXPONENT) {
    throw new InvalidDecimalError(`exponent out of range: ${describe(text)}`, field);
  }
  return value;
}

/** Plain notation, never scientific; `-0` is written `0`. */
export function toPlain(value: Decimal): string {
  if (!value.isFinite()) throw new InvalidDecimalError(`not finite: ${value.toString()}`);
  return value.isZero() ? '0' : value.toFixed();
}

/** Exactly `scale` decimals in plain notation, rounded with `rounding`; `-0.00` is written `0.00`. */
export function toFixedScale(value: Decimal, scale: number, rounding: Rounding): string {
  if (!Number.isSafeInteger(scale) || scale < 0) throw new RangeError(`scale must be a non-negative integer`);
  if (!value.isFinite()) throw new InvalidDecimalError(`not finite: ${value.toString()}`);
  const rounded = value.toDecimalPlaces(scale, rounding);
  return (rounded.isZero() ? new Decimal(0) : rounded).toFixed(scale);
}

/**
 * The number of decimals as written: "100.500" → 3, "1.5e-7" → 8, "1.5e3" → 0, "12" → 0.
 * The venue judges scale on the text it receives (§4.9), so trailing zeros count.
 */
export function scaleOf(text: string, field?: string): number {
  parseDecimal(text, field);
  const exponentAt = text.search(/[eE]/);
  const mantissa = exponentAt === -1 ? text : text.slice(0, exponentAt);
  const exponent = exponentAt === -1 ? 0 : Number(text.slice(exponentAt + 1));
  const dot = mantissa.indexOf('.');
  const fractionDigits = dot === -1 ? 0 : mantissa.length - dot - 1;
  return Math.max(0, fractionDigits - exponent);
}

/** Throws {@link InvalidDecimalError} when `text` is not a decimal or has more than `max` decimals as written. */
export function assertMaxScale(text: string, max: number, field?: string): void {
  const scale = scaleOf(text, field);
  if (scale > max) {
    throw new InvalidDecimalError(`${describe(text)} has ${scale} decimals, at most ${max} allowed`, field);
  }
}
