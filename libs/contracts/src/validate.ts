import { getMetadataStorage, ValidateBy, ValidateIf, validateSync, type ValidationError } from 'class-validator';
import { readJsonObject } from './json-payload.js';

export type Parsed<T> = { ok: true; value: T } | { ok: false; problems: string[] };

/** Contract classes whose unknown fields are refused (queries: a misspelt filter must not match everything). */
const REFUSING = new WeakSet<object>();
const FIELDS = new WeakMap<object, ReadonlySet<string>>();
/** Unknown fields named in a refusal, each cut to this many characters: the request's own text is never echoed whole. */
const MAX_NAMED_FIELDS = 10;
const MAX_FIELD_NAME = 64;

/**
 * Class decorator: a payload with a field the contract does not declare is refused, naming the field (as
 * `parsePlaceOrder` does), instead of being ignored. Inherited by subclasses.
 */
export function RefuseUnknownFields(): ClassDecorator {
  return (target) => {
    REFUSING.add(target);
  };
}

function refusesUnknownFields(Class: object): boolean {
  for (let c: unknown = Class; typeof c === 'function'; c = Object.getPrototypeOf(c)) {
    if (REFUSING.has(c)) return true;
  }
  return false;
}

/**
 * Property decorator: the field may be absent, and only absent — `null` is checked like any other value (and
 * refused by the field's type rule). class-validator's `IsOptional` lets `null` through unchecked, so a handler
 * typed `string | undefined` met a null (outside tester: `{"requestId":null}` answered INTERNAL).
 */
export function Optional(): PropertyDecorator {
  return ValidateIf((_object, value) => value !== undefined);
}

/**
 * The properties a class-validator class declares (every property with a validation decorator, inherited ones
 * included), read once per class. The one answer to "which fields does this class know": unknown-field refusal
 * here, and the venue frames' decoding in libs/venue-api (only declared properties are copied).
 */
export function declaredFields(Class: new () => object): ReadonlySet<string> {
  let fields = FIELDS.get(Class);
  if (fields === undefined) {
    const metadata = getMetadataStorage().getTargetValidationMetadatas(Class, '', true, false);
    fields = new Set(metadata.map((m) => m.propertyName));
    FIELDS.set(Class, fields);
  }
  return fields;
}

/**
 * Text a person reads back (a requester's name): no control, invisible format or bidi-override character, no lone
 * UTF-16 surrogate (half a character: it is shown escaped, `\ud800`; a pair is one character and is taken), and
 * not only white space — it comes back in replies and logs, where `\u001b[31m` would recolour an operator's terminal.
 */
export const VISIBLE_TEXT = /^(?=.*\S)[^\p{Cc}\p{Cf}\p{Cs}\u2028\u2029]+$/u;

/**
 * A lone UTF-16 surrogate: half a character (a JSON `"\ud800"` escape parses to one). With the `u` flag `\p{Cs}`
 * matches only an unpaired half; a pair is one (astral) character and passes.
 */
const LONE_SURROGATE = /\p{Cs}/u;

/**
 * Whether `text` holds a lone UTF-16 surrogate. It cannot be written as UTF-8: on the wire (NATS, the venue's
 * socket, a KV key, a subject token, a `Nats-Msg-Id`) it becomes U+FFFD, another string than the one validated.
 */
export function hasLoneSurrogate(text: string): boolean {
  return LONE_SURROGATE.test(text);
}

/**
 * The refusal of a request field that holds a lone UTF-16 surrogate anywhere: in its text, or in a string or
 * object key within it (an array, a map of limits). The one rule every request parser applies to every field.
 * Iterative: a field nested deep costs no stack.
 */
export function loneSurrogateProblem(field: string, value: unknown): string | undefined {
  const pending: unknown[] = [value];
  while (pending.length > 0) {
    const node = pending.pop();
    if (typeof node === 'string') {
      if (hasLoneSurrogate(node)) return loneSurrogateRule(field);
    } else if (node !== null && typeof node === 'object') {
      if (!Array.isArray(node) && Object.keys(node).some(hasLoneSurrogate)) return loneSurrogateRule(field);
      pending.push(...Object.values(node));
    }
  }
  return undefined;
}

/**
 * Property decorator: a string holding no lone UTF-16 surrogate ({@link hasLoneSurrogate}), for an identifier read
 * from outside that is sent on or kept (a venue frame's subscription id). A value of another type passes: its type
 * rule judges it.
 */
export function WholeCharacters(): PropertyDecorator {
  return ValidateBy({
    name: 'wholeCharacters',
    validator: {
      validate: (value: unknown) => typeof value !== 'string' || !hasLoneSurrogate(value),
      defaultMessage: (args) => loneSurrogateRule(args?.property ?? 'value'),
    },
  });
}

function loneSurrogateRule(field: string): string {
  return `${field} must not hold a lone UTF-16 surrogate (half a character, such as \\ud800: it cannot be sent as UTF-8)`;
}

/**
 * Controls, invisible format characters, bidi overrides and lone surrogates: written as `\uXXXX` when outside text
 * is shown.
 */
const UNPRINTABLE = /[\p{Cc}\p{Cf}\p{Cs}\u2028\u2029]/gu;

/**
 * A name taken from outside input (an unknown field's, a venue's currency) as an error message may show it: at
 * most `max` characters (64 by default), anything unprintable or that reorders text (U+202E) written as `\uXXXX`,
 * never as itself.
 */
export function printableName(name: string, max: number = MAX_FIELD_NAME): string {
  const cut = name.length > max ? `${name.slice(0, max)}…` : name;
  return escapeUnprintable(cut);
}

/** `text` with every control, format (bidi, zero-width) and line-separator character written as `\uXXXX`. */
export function escapeUnprintable(text: string): string {
  return text.replace(UNPRINTABLE, (c) => `\\u${(c.codePointAt(0) ?? 0).toString(16).padStart(4, '0')}`);
}

/** `unknown field "x"` per field of `plain` not in `fields` (at most 10 named, names bounded). */
export function unknownFieldProblems(fields: ReadonlySet<string>, plain: object): string[] {
  const unknown = Object.keys(plain).filter((key) => !fields.has(key));
  const problems = unknown.slice(0, MAX_NAMED_FIELDS).map((key) => `unknown field "${printableName(key)}"`);
  if (unknown.length > MAX_NAMED_FIELDS) problems.push(`and ${unknown.length - MAX_NAMED_FIELDS} more unknown fields`);
  return problems;
}

/**
 * Decodes a NATS payload into a validated contract class. Never throws: bad input becomes a list of
 * problems the caller sends back in an error reply (and counts). Fields the class does not declare are ignored,
 * or refused when the class is marked `@RefuseUnknownFields()`.
 */
export function parseContract<T extends object>(Class: new () => T, payload: Uint8Array | string): Parsed<T> {
  const read = readJsonObject(payload);
  return read.ok ? contractOf(Class, read.value) : { ok: false, problems: [read.problem] };
}

/**
 * Validates a JSON object already read (bounded, of no prototype: {@link readJsonObject}) as a contract class.
 * The declared fields are set on a new instance as they are: no copy (class-transformer's dropped keys named
 * after `Object.prototype` members and made `__proto__` a prototype, so a limit set of `{"__proto__":…}` was
 * stored empty, tester t2 F3). Never throws.
 */
export function contractOf<T extends object>(Class: new () => T, plain: Record<string, unknown>): Parsed<T> {
  const fields = declaredFields(Class);
  const unknown = refusesUnknownFields(Class) ? unknownFieldProblems(fields, plain) : [];
  let value: T;
  let errors: ReturnType<typeof validateSync>;
  try {
    value = new Class();
    // Only the declared fields are handed on, own ones only: the others are ignored or refused above.
    for (const field of fields)
      if (Object.hasOwn(plain, field)) (value as Record<string, unknown>)[field] = plain[field];
    // A contract with no field (a query without filters) has nothing to validate: only its unknown fields count.
    errors = fields.size === 0 ? [] : validateSync(value, { forbidUnknownValues: true });
  } catch {
    return { ok: false, problems: ['payload could not be read as this contract'] };
  }
  // A field breaking several rules that share one message (e.g. min and max length) is told it once.
  const broken = errors.flatMap((e) => fieldProblems(e));
  const problems = [...unknown, ...new Set(broken), ...loneSurrogateProblems(plain, Class, errors)];
  if (problems.length > 0) return { ok: false, problems };
  return { ok: true, value };
}

/**
 * {@link loneSurrogateProblem} of each declared field its own rules passed (a field refused already, e.g. by
 * `VISIBLE_TEXT`, is told once, by its rule).
 */
function loneSurrogateProblems(
  plain: Record<string, unknown>,
  Class: new () => object,
  errors: readonly ValidationError[],
): string[] {
  const refused = new Set(errors.map((error) => error.property));
  const problems: string[] = [];
  for (const field of declaredFields(Class)) {
    if (refused.has(field) || !Object.hasOwn(plain, field)) continue;
    const problem = loneSurrogateProblem(field, plain[field]);
    if (problem !== undefined) problems.push(problem);
  }
  return problems;
}

/** class-validator's rules on a value's JSON type: when one fails, the field's other rules are beside the point. */
const TYPE_RULES = new Set(['isString', 'isInt', 'isNumber', 'isBoolean', 'isArray', 'isObject']);

/**
 * What one field's validation error tells the requester: `x is required` for a missing field (not every rule it
 * would have had to meet); only the type rule for a value of the wrong JSON type (`"30"` for an integer was told
 * it must be at most 3600, at least 5 and an integer at once); else every rule it breaks.
 */
function fieldProblems(error: ValidationError): string[] {
  if (error.value === undefined) return [`${error.property} is required`];
  const constraints = Object.entries(error.constraints ?? {});
  if (constraints.length === 0) return [`${error.property} is invalid`];
  const typeRules = constraints.filter(([rule]) => TYPE_RULES.has(rule));
  return (typeRules.length > 0 ? typeRules : constraints).map(([, message]) => message);
}
