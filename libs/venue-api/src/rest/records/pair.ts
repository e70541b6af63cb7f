/**
 * R12/R19/AS2 tradable pairs with their size limits (§4.11, shape not shown). Read liberally: base and quote
 * under any plausible name, the instrument (`BASE.QUOTE`) from `instrument`/`symbol`/`pair` in any of the
 * usual separators or built from base and quote; every field kept in `fields` when one is not named here.
 */
import { ShapeError, type Reader } from './shape.js';
import { decimalField, extraFields, integerField, recordList, textField, type PlainFields } from './liberal.js';

export interface TradablePair {
  /** `BASE.QUOTE`, as used on subscribe; absent only when the venue's record names no currency at all. */
  instrument?: string;
  base?: string;
  quote?: string;
  minQuantity?: string;
  maxQuantity?: string;
  quotePrecision?: number;
  fields?: PlainFields;
}

const KNOWN = ['instrument', 'base', 'quote', 'minQuantity', 'maxQuantity', 'quotePrecision'] as const;

export function tradablePairOf(source: Record<string, unknown>): TradablePair {
  const named = textField(source, ['instrument', 'symbol', 'pair', 'currencyPair', 'name']);
  const halves = named?.split(/[./\-_: ]/).filter((part) => part !== '');
  const fromName = halves?.length === 2 ? halves : undefined;
  const base = textField(source, ['base', 'baseCurrency', 'baseCcy', 'baseAsset']) ?? fromName?.[0];
  const quote =
    textField(source, ['quote', 'quoteCurrency', 'quoteCcy', 'quoteAsset', 'termCurrency']) ?? fromName?.[1];
  const pair: TradablePair = {};
  const instrument = base !== undefined && quote !== undefined ? `${base}.${quote}` : named;
  if (instrument !== undefined) pair.instrument = instrument;
  if (base !== undefined) pair.base = base;
  if (quote !== undefined) pair.quote = quote;
  const minQuantity = decimalField(source, ['minQuantity', 'minSize', 'minQty', 'minimum', 'min']);
  const maxQuantity = decimalField(source, ['maxQuantity', 'maxSize', 'maxQty', 'maximum', 'max']);
  const quotePrecision = integerField(source, ['quotePrecision', 'pricePrecision', 'precision']);
  if (minQuantity !== undefined) pair.minQuantity = minQuantity;
  if (maxQuantity !== undefined) pair.maxQuantity = maxQuantity;
  if (quotePrecision !== undefined) pair.quotePrecision = quotePrecision;
  return { ...pair, ...extraFields(source, KNOWN) };
}

export const tradablePairsReader: Reader<TradablePair[]> = {
  optional: false,
  read(value, path) {
    const list = recordList(value, ['data', 'pairs', 'instruments', 'items']);
    if (list === undefined) throw new ShapeError(path, 'no list of pairs');
    return list.map(tradablePairOf);
  },
};
