/**
 * The one way a request payload becomes a JSON object: bounded before it is parsed. `JSON.parse` of a payload
 * nested thousands deep costs far more than its size suggests (1 MB of `[[[…]]]`: ≈ 0.8 s of event loop, outside
 * tester: twenty of them made the execution app miss its own NATS round trips and refuse valid orders), so the
 * nesting is counted on the raw text first — a linear scan — and the size is capped as on every request subject.
 */

/**
 * Largest request payload read (NATS allows 1 MiB; the largest contract, an order recall of a thousand ids, is
 * ≈ 50 KB): a bigger one is refused unread, so a flood of near-1 MB payloads costs no parsing.
 */
export const MAX_REQUEST_BYTES = 256 * 1024;
/** Levels of objects and arrays a payload may nest (the deepest contract nests 3). */
export const MAX_REQUEST_DEPTH = 32;
/**
 * Object fields a payload may hold in all (no contract needs a hundred): copying each one costs, so a 600 KB
 * payload of 20,000 keys held the event loop for a second or more.
 */
export const MAX_REQUEST_FIELDS = 1_000;
/** Below this size a payload is parsed without the nesting scan: no nesting fits in it that costs anything. */
const SCAN_FROM_BYTES = 4_096;

export type JsonObjectRead = { ok: true; value: Record<string, unknown> } | { ok: false; problem: string };

/**
 * Reads `payload` as one JSON object, or says in one bounded sentence why not (over the size, not JSON, not an
 * object, nested deeper than {@link MAX_REQUEST_DEPTH}, more than {@link MAX_REQUEST_FIELDS} fields). Never throws.
 * Every object in the value has no prototype: a key is read only if the payload holds it (`toString` is not
 * inherited), and `__proto__`, `constructor` or `prototype` is an ordinary key a reader refuses as unknown — never
 * dropped nor made a prototype by a copy (tester t2 F3: limits of `{"__proto__":…}` were stored empty).
 */
export function readJsonObject(payload: Uint8Array | string): JsonObjectRead {
  const size = typeof payload === 'string' ? Buffer.byteLength(payload) : payload.length;
  if (size > MAX_REQUEST_BYTES) return { ok: false, problem: `request is ${size} bytes; at most ${MAX_REQUEST_BYTES}` };
  if (size >= SCAN_FROM_BYTES && textNestsDeeperThan(payload, MAX_REQUEST_DEPTH)) {
    return { ok: false, problem: `payload is nested deeper than ${MAX_REQUEST_DEPTH} levels` };
  }
  let plain: unknown;
  try {
    plain = JSON.parse(typeof payload === 'string' ? payload : new TextDecoder().decode(payload));
  } catch {
    return { ok: false, problem: 'payload is not JSON' };
  }
  if (plain === null || typeof plain !== 'object' || Array.isArray(plain)) {
    return { ok: false, problem: 'payload must be a JSON object' };
  }
  return boundedCopy(plain as Record<string, unknown>);
}

type Node = Record<string, unknown> | unknown[];

/**
 * `plain` (parsed JSON) copied with objects of no prototype, or why it is too big to read: objects or arrays
 * nested deeper than {@link MAX_REQUEST_DEPTH}, or more than {@link MAX_REQUEST_FIELDS} object fields in all. One
 * iterative walk, never on the stack; it stops at the first bound crossed.
 */
function boundedCopy(plain: Record<string, unknown>): JsonObjectRead {
  const root = Object.create(null) as Record<string, unknown>;
  const pending: Array<[Node, Node, number]> = [[plain, root, 1]];
  let fields = 0;
  while (pending.length > 0) {
    const [source, target, depth] = pending.pop() as [Node, Node, number];
    if (depth > MAX_REQUEST_DEPTH)
      return { ok: false, problem: `payload is nested deeper than ${MAX_REQUEST_DEPTH} levels` };
    const keys = Object.keys(source);
    if (!Array.isArray(source)) {
      fields += keys.length;
      if (fields > MAX_REQUEST_FIELDS)
        return { ok: false, problem: `payload has more than ${MAX_REQUEST_FIELDS} fields` };
    }
    for (const key of keys) {
      const child = (source as Record<string, unknown>)[key];
      let copy = child;
      if (child !== null && typeof child === 'object') {
        copy = Array.isArray(child) ? new Array<unknown>(child.length) : Object.create(null);
        pending.push([child as Node, copy as Node, depth + 1]);
      }
      // a target of no prototype has no `__proto__` setter: the key is defined as an own property
      (target as Record<string, unknown>)[key] = copy;
    }
  }
  return { ok: true, value: root };
}

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_BRACE = 0x7b;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACE = 0x7d;
const CLOSE_BRACKET = 0x5d;

/**
 * Whether the JSON text opens more than `limit` objects or arrays inside each other, brackets within strings
 * not counted. Text that is not JSON may be judged either way; JSON.parse refuses it next.
 */
export function textNestsDeeperThan(text: Uint8Array | string, limit: number): boolean {
  const at = typeof text === 'string' ? (i: number) => text.charCodeAt(i) : (i: number) => text[i] as number;
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i += 1) {
    const c = at(i);
    if (inString) {
      if (c === BACKSLASH) i += 1;
      else if (c === QUOTE) inString = false;
    } else if (c === QUOTE) {
      inString = true;
    } else if (c === OPEN_BRACE || c === OPEN_BRACKET) {
      depth += 1;
      if (depth > limit) return true;
    } else if (c === CLOSE_BRACE || c === CLOSE_BRACKET) {
      depth -= 1;
    }
  }
  return false;
}
