/**
 * Client-side checks of request parameters against the venue's stated rules (§4.5–§4.10, §8, R6, R18).
 * A failed check throws `InvalidVenueRequestError` and nothing is sent.
 */
import { DECIMAL_PATTERN, parseDecimal, scaleOf } from '../money/decimal.js';
import { JsonNumber } from '../money/json-number.js';
import { identifierProblem } from '../ws/identifier.js';
import { InvalidVenueRequestError } from './errors.js';

export function checkIntegerRange(
  operation: string,
  field: string,
  value: number | undefined,
  min: number,
  max: number,
): void {
  if (value === undefined) return;
  if (!Number.isSafeInteger(value) || value < min || value > max) {
    throw new InvalidVenueRequestError(operation, field, `must be a whole number from ${min} to ${max}`);
  }
}

/** R18 (and W3/§4.2 sessionId rules): the WebSocket rule itself — 1–64 characters (code points), no `/`, whitespace or control characters. */
export function checkIdentifier(operation: string, field: string, value: string): void {
  const problem = identifierProblem(value);
  if (problem !== undefined) throw new InvalidVenueRequestError(operation, field, problem);
}

export function checkNonBlank(operation: string, field: string, value: string): void {
  if (typeof value !== 'string' || value.trim() === '') {
    throw new InvalidVenueRequestError(operation, field, 'must not be blank');
  }
}

/** §8: clientComment up to 1024 characters. */
export function checkComment(operation: string, value: string | undefined): void {
  if (value !== undefined && (typeof value !== 'string' || value.length > 1024)) {
    throw new InvalidVenueRequestError(operation, 'clientComment', 'must be at most 1024 characters');
  }
}

/**
 * A withdrawal amount as the JSON number the venue judges by its text (§4.9, R6): a positive decimal
 * string with at most `maxScale` decimals as written (trailing zeros count), sent in plain notation with
 * the caller's scale kept ("100.50" stays "100.50", "1.5e1" becomes "15", "007" becomes "7").
 */
export function withdrawalAmount(operation: string, amount: string, maxScale: number): JsonNumber {
  if (typeof amount !== 'string' || !DECIMAL_PATTERN.test(amount)) {
    throw new InvalidVenueRequestError(operation, 'amount', 'must be a decimal string');
  }
  const value = parseDecimal(amount, 'amount');
  if (!value.isPositive() || value.isZero()) {
    throw new InvalidVenueRequestError(operation, 'amount', 'must be positive');
  }
  const scale = scaleOf(amount);
  if (scale > maxScale) {
    throw new InvalidVenueRequestError(operation, 'amount', `has ${scale} decimals, at most ${maxScale} allowed`);
  }
  return new JsonNumber(value.toFixed(scale));
}

/** A transfer amount (R10: a decimal string): positive, sent in plain notation. */
export function positiveDecimalText(operation: string, field: string, amount: string): string {
  if (typeof amount !== 'string' || !DECIMAL_PATTERN.test(amount)) {
    throw new InvalidVenueRequestError(operation, field, 'must be a decimal string');
  }
  const value = parseDecimal(amount, field);
  if (!value.isPositive() || value.isZero()) throw new InvalidVenueRequestError(operation, field, 'must be positive');
  return value.toFixed(scaleOf(amount));
}
