/**
 * Keys whose values are secrets: they never reach a log line, an error body or a metric. Matched on the
 * key's words, so `apiSecret`, `accessToken`, `Rest-Sign` and `signature` are hidden while `signal` or
 * `design` are not.
 */
const SECRET_WORD = /secret|token|signature|password|passphrase|authorization|cookie|credential/i;
/** `sign`, `Rest-Sign`, `rest_sign`, `restSign` — a word `sign` at the end, not letters inside `design`. */
const SIGN_WORD = /(^|[-_])sign$/i;
const CAMEL_SIGN = /[a-z]Sign$/;
export const REDACTED = '[redacted]';

/** Longest string a log field keeps; a venue's 100 KB error code is cut, saying how much. */
export const MAX_LOG_STRING = 1_024;
/** Most items of a list a log field keeps. */
export const MAX_LOG_ITEMS = 50;
const MAX_LOG_DEPTH = 6;

interface Bounds {
  maxString: number;
  maxItems: number;
  maxDepth: number;
}
const UNBOUNDED: Bounds = { maxString: Infinity, maxItems: Infinity, maxDepth: Infinity };
const LOG_BOUNDS: Bounds = { maxString: MAX_LOG_STRING, maxItems: MAX_LOG_ITEMS, maxDepth: MAX_LOG_DEPTH };

export function isSecretKey(key: string): boolean {
  return SECRET_WORD.test(key) || SIGN_WORD.test(key) || CAMEL_SIGN.test(key);
}

/** Deep copy of `value` with every secret-named property replaced; safe on cycles and odd objects. */
export function redact(value: unknown): unknown {
  return copy(value, UNBOUNDED, 0, new WeakSet());
}

/** What a log line may carry: redacted, and bounded in string length, list length and depth. */
export function forLog(value: unknown): unknown {
  return copy(value, LOG_BOUNDS, 0, new WeakSet());
}

export function boundString(text: string, max: number = MAX_LOG_STRING): string {
  return text.length <= max ? text : `${text.slice(0, max)}…(${text.length - max} more characters)`;
}

function copy(value: unknown, bounds: Bounds, depth: number, seen: WeakSet<object>): unknown {
  if (typeof value === 'string') return boundString(value, bounds.maxString);
  if (value === null || typeof value !== 'object') return value;
  if (seen.has(value)) return '[circular]';
  if (depth >= bounds.maxDepth) return '[too deep]';
  seen.add(value);
  const inner = (item: unknown) => copy(item, bounds, depth + 1, seen);
  if (value instanceof Error) {
    const rest = copy({ ...value }, bounds, depth, seen) as object;
    return { name: value.name, message: boundString(value.message, bounds.maxString), ...rest };
  }
  if (Array.isArray(value)) {
    const kept = value.slice(0, bounds.maxItems).map(inner);
    if (value.length > bounds.maxItems) kept.push(`…(${value.length - bounds.maxItems} more items)`);
    return kept;
  }
  const result: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(value)) {
    result[key] = isSecretKey(key) ? REDACTED : inner(item);
  }
  return result;
}
