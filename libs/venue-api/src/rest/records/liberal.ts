/**
 * Reading records whose shape the spec does not show (§4.11: credit limits, pairs, transfers): never throw
 * because a guessed field is missing or named differently. The record's every field is kept as plain JSON
 * (numbers as their exact decimal text, R15), and the fields the gateway uses are looked up under each
 * plausible name (docs/spec-gaps.md AS1–AS3).
 */
import { parseDecimal, toPlain } from '../../money/decimal.js';
import { JsonNumber } from '../../money/json-number.js';
import { isJsonObject } from './shape.js';

/** JSON with every number as its exact text. */
export type PlainJson = string | boolean | null | PlainJson[] | { [key: string]: PlainJson };

export type PlainFields = Record<string, PlainJson>;

export function plainJson(value: unknown): PlainJson {
  if (value instanceof JsonNumber) return value.text;
  if (Array.isArray(value)) return value.map(plainJson);
  if (isJsonObject(value)) return plainFields(value);
  if (typeof value === 'string' || typeof value === 'boolean') return value;
  return null;
}

export function plainFields(value: Record<string, unknown>): PlainFields {
  return Object.fromEntries(Object.entries(value).map(([key, field]) => [key, plainJson(field)]));
}

/** The first of `names` present (not null) on `source`. */
function firstPresent(source: Record<string, unknown>, names: readonly string[]): unknown {
  for (const name of names) {
    const value = source[name];
    if (value !== undefined && value !== null) return value;
  }
  return undefined;
}

/** A string (or a number's text) under one of `names`; an object's `uuid` when `viaUuid` names it. */
export function textField(source: Record<string, unknown>, names: readonly string[]): string | undefined {
  const value = firstPresent(source, names);
  if (typeof value === 'string') return value;
  if (value instanceof JsonNumber) return value.text;
  if (isJsonObject(value) && typeof value['uuid'] === 'string') return value['uuid'];
  return undefined;
}

/** A decimal (JSON number or decimal string) under one of `names`, as plain text; a non-decimal is left out. */
export function decimalField(source: Record<string, unknown>, names: readonly string[]): string | undefined {
  for (const name of names) {
    const value = source[name];
    const raw = value instanceof JsonNumber ? value.text : value;
    if (typeof raw !== 'string') continue;
    try {
      const parsed = parseDecimal(raw, name);
      return /[eE]/.test(raw) ? toPlain(parsed) : raw;
    } catch {
      continue;
    }
  }
  return undefined;
}

/** An integer under one of `names` (JSON number or digit string), or undefined. */
export function integerField(source: Record<string, unknown>, names: readonly string[]): number | undefined {
  const value = firstPresent(source, names);
  const raw = value instanceof JsonNumber ? value.text : value;
  if (typeof raw !== 'string' || !/^-?\d+$/.test(raw)) return undefined;
  const parsed = Number(raw);
  return Number.isSafeInteger(parsed) ? parsed : undefined;
}

/**
 * The list of records in a body: a bare array, or the first array under one of `keys` of an object, or an
 * object under one of them holding a single record. Undefined when there is none.
 */
export function recordList(body: unknown, keys: readonly string[]): Array<Record<string, unknown>> | undefined {
  const list = Array.isArray(body) ? body : isJsonObject(body) ? firstPresent(body, keys) : undefined;
  if (Array.isArray(list)) return list.filter(isJsonObject);
  if (isJsonObject(list)) return [list];
  return undefined;
}

/** `fields` only when the record carries a field beyond the `known` names (keeps canonical records compact). */
export function extraFields(source: Record<string, unknown>, known: readonly string[]): { fields?: PlainFields } {
  return Object.keys(source).some((key) => !known.includes(key)) ? { fields: plainFields(source) } : {};
}
