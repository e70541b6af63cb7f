/**
 * A JSON number kept as the exact text it was written with (R15).
 *
 * The venue sends some money as JSON numbers (§2.4 settlementAmount.amount, §2.9 amount/fee/balances) and
 * judges the fiat withdrawal amount by the scale of the number text it receives (§4.9). A JS `number`
 * would lose digits and the scale, so such values travel as a JsonNumber from the raw JSON text to a
 * Decimal, and back as text.
 */
import { Decimal, Rounding, parseDecimal, toFixedScale } from './decimal.js';
import { InvalidJsonError } from './invalid-json-error.js';

/** RFC 8259 number grammar. */
export const JSON_NUMBER_PATTERN = /^-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?$/;

export class JsonNumber {
  /** @throws InvalidJsonError when `text` is not a JSON number token. */
  constructor(readonly text: string) {
    if (typeof text !== 'string' || !JSON_NUMBER_PATTERN.test(text)) {
      throw new InvalidJsonError(`not a JSON number: ${JSON.stringify(String(text).slice(0, 40))}`);
    }
  }

  /** A JSON number written with exactly `scale` decimals (for amounts the venue judges by scale). */
  static fromDecimal(value: Decimal, scale: number, rounding: Rounding = Rounding.HalfEven): JsonNumber {
    return new JsonNumber(toFixedScale(value, scale, rounding));
  }

  /** Exact value; `field` names the value in the error if it is out of range. */
  toDecimal(field?: string): Decimal {
    return parseDecimal(this.text, field);
  }

  /** For counts, offsets and epoch milliseconds. @throws RangeError unless the value is a safe integer. */
  toSafeInteger(field?: string): number {
    const value = this.toDecimal(field);
    if (!value.isInteger()) throw new RangeError(`${field ?? 'JSON number'} is not an integer: ${this.text}`);
    const n = value.toNumber();
    if (!Number.isSafeInteger(n)) throw new RangeError(`${field ?? 'JSON number'} is not a safe integer: ${this.text}`);
    return n;
  }

  toString(): string {
    return this.text;
  }

  /**
   * A stray `JSON.stringify` writes the exact digits as a JSON *string* (never a rounded number);
   * use `stringifyJson` to write a JSON number.
   */
  toJSON(): string {
    return this.text;
  }
}
