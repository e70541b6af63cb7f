/**
 * Typed reads of signed JSON body fields. Each returns `{ ok: false }` for a present value of the wrong
 * type, so every endpoint can answer with its own family's validation failure.
 */
import { JsonNumber, type JsonObject } from '../http/json.js';

export type Field<T> = { ok: true; value: T } | { ok: false };

const INTEGER = /^-?(0|[1-9]\d*)$/;

export function optionalString(body: JsonObject, name: string): Field<string | undefined> {
  const v = body[name];
  if (v === undefined || v === null) return { ok: true, value: undefined };
  return typeof v === 'string' ? { ok: true, value: v } : { ok: false };
}

export function optionalBoolean(body: JsonObject, name: string): Field<boolean | undefined> {
  const v = body[name];
  if (v === undefined || v === null) return { ok: true, value: undefined };
  return typeof v === 'boolean' ? { ok: true, value: v } : { ok: false };
}

/** A JSON integer within the safe range (sizes and offsets, never money). */
export function optionalInteger(body: JsonObject, name: string): Field<number | undefined> {
  const v = body[name];
  if (v === undefined || v === null) return { ok: true, value: undefined };
  if (!(v instanceof JsonNumber) || !INTEGER.test(v.text)) return { ok: false };
  const n = Number(v.text);
  return Number.isSafeInteger(n) ? { ok: true, value: n } : { ok: false };
}

/** The raw text of a JSON number (money is judged on it), or undefined when absent or not a number. */
export function numberText(body: JsonObject, name: string): string | undefined {
  const v = body[name];
  return v instanceof JsonNumber ? v.text : undefined;
}

/**
 * Scale of a JSON number as sent, the way the venue's decimal type reads it: digits after the point minus
 * the exponent (`1.230` → 3, `1.5e1` → 0, `12e-2` → 2).
 */
export function scaleOf(text: string): number {
  const m = /^-?\d+(?:\.(\d+))?(?:[eE]([+-]?\d+))?$/.exec(text);
  if (m === null) return Number.POSITIVE_INFINITY;
  return (m[1]?.length ?? 0) - Number(m[2] ?? '0');
}
