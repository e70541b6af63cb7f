import { registerDecorator, type ValidationOptions } from 'class-validator';

/**
 * A decimal number written as a string (scientific notation allowed), e.g. "1000", "0.5", "2.45e-5" — the grammar
 * the gateway parses (libs/venue-api `parseDecimal`): no "5." or ".5".
 */
export const DECIMAL_STRING = /^-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?$/;

/**
 * A size as a strategy asks for it (a stream's or an order's quantity): plain, unsigned, no leading zero, at most 20
 * digits before the point and 8 after. One spelling per size: `00.5` would name another stream than `0.5`.
 */
export const SIZE_DECIMAL = /^(?:0|[1-9]\d{0,19})(?:\.\d{1,8})?$/;
export const SIZE_RULE =
  'quantity must be a plain decimal without leading zeros, at most 20 digits before the point and 8 after';

/** Largest |exponent| of a value `parseDecimal` takes (decimal.js's `e`: 1e1000 is the largest power). */
const MAX_EXPONENT = 1000;

/**
 * The grammar and the exponent bound of `parseDecimal`, without building a number: what passes here parses
 * there (a limit or price accepted at the door must never fail later, where it would stop every order).
 */
export function isDecimalString(value: unknown): value is string {
  if (typeof value !== 'string' || value.length > 200 || !DECIMAL_STRING.test(value)) return false;
  const [mantissa = '', exponentText = '0'] = value.replace(/^-/, '').split(/[eE]/);
  const [whole = '', fraction = ''] = mantissa.split('.');
  const firstNonZero = (whole + fraction).search(/[1-9]/);
  if (firstNonZero < 0) return true; // zero, whatever its exponent
  if (exponentText.replace(/^[+-]/, '').length > 6) return false;
  const exponent = whole.length - 1 - firstNonZero + Number(exponentText);
  return Math.abs(exponent) <= MAX_EXPONENT;
}

/** Positive decimal string; the value is never converted to a JavaScript number. */
export function IsPositiveDecimalString(options?: ValidationOptions): PropertyDecorator {
  return (target: object, propertyName: string | symbol) => {
    registerDecorator({
      name: 'isPositiveDecimalString',
      target: target.constructor,
      propertyName: String(propertyName),
      options: { message: `${String(propertyName)} must be a positive decimal string`, ...options },
      validator: {
        validate: (value: unknown) =>
          isDecimalString(value) && !value.startsWith('-') && /[1-9]/.test(value.split(/[eE]/)[0] ?? ''),
      },
    });
  };
}
