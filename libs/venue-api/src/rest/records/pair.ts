/** R12/R19 tradable pairs with their size limits (§4.11). */
import { decimalText, integer, optional, record, text, type Reader } from './shape.js';

export interface TradablePair {
  /** `BASE.QUOTE`, as used on subscribe. */
  instrument: string;
  base: string;
  quote: string;
  minQuantity?: string;
  maxQuantity?: string;
  quotePrecision?: number;
}

export const tradablePairReader: Reader<TradablePair> = record<TradablePair>({
  instrument: text,
  base: text,
  quote: text,
  minQuantity: optional(decimalText),
  maxQuantity: optional(decimalText),
  quotePrecision: optional(integer),
});
