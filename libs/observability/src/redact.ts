/** Keys whose values are secrets: they never reach a log line, an error body or a metric. */
const SECRET_KEY = /secret|token|sign(ature)?|password|passphrase|authorization|cookie|credential/i;
export const REDACTED = '[redacted]';

/** Deep copy of `value` with every secret-named property replaced; safe on cycles and odd objects. */
export function redact(value: unknown, seen: WeakSet<object> = new WeakSet()): unknown {
  if (value === null || typeof value !== 'object') return value;
  if (seen.has(value)) return '[circular]';
  seen.add(value);
  if (value instanceof Error) {
    return { name: value.name, message: value.message, ...(redact({ ...value }, seen) as object) };
  }
  if (Array.isArray(value)) return value.map((item) => redact(item, seen));
  const copy: Record<string, unknown> = {};
  for (const [key, inner] of Object.entries(value)) {
    copy[key] = SECRET_KEY.test(key) ? REDACTED : redact(inner, seen);
  }
  return copy;
}
