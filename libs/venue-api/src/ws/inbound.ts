/**
 * Decoding of every service → client WebSocket frame (§2.1, §2.2, §4.2, W5–W12).
 *
 * - `pricestream`, the hot path, is checked by hand (price-update-check.ts) and the parsed object is the
 *   message: no allocation beyond JSON.parse and the result.
 * - The rarer frames are validated with class-validator (inbound-dtos.ts). Only the properties a DTO
 *   declares are copied from the parsed JSON, so unknown properties are ignored (§9) and keys such as
 *   `__proto__` or `constructor` never reach an object we hand out.
 * - An unknown `messageType` is `unknown` (the caller counts and drops it, §4.2, §9); anything that is not
 *   a JSON object with a string `messageType`, or a known frame that breaks its shape, is `invalid`.
 * Never throws.
 */
import { validateSync, type ValidationError } from 'class-validator';
import { declaredFields } from '#contracts';
import {
  AccountGroupEntryDto,
  AccountGroupsReplyDto,
  ErrorFrameDto,
  OrderReplyDto,
  OrderUnsubscribeReplyDto,
  StreamStopDto,
  SubscribeAckDto,
  UnsubscribeReplyDto,
} from './inbound-dtos.js';
import type { ServiceMessage } from './messages.js';
import { checkPriceUpdate } from './price-update-check.js';

export type DecodeResult =
  /** `oddities`: fields dropped from a liberally read frame, as `field: problem` (bounded, never values). */
  | { kind: 'message'; message: ServiceMessage; oddities?: readonly string[] }
  | { kind: 'unknown'; messageType: string }
  /** `messageType` is set when the frame named one (useful as a metric label). */
  | { kind: 'invalid'; reason: string; messageType?: string };

/** What `ws` hands to a `message` listener, plus plain strings. */
export type RawFrame = string | Buffer | ArrayBuffer | readonly Buffer[];

type DtoClass = new () => object;

interface DtoShape {
  dto: DtoClass;
  /** Properties holding one DTO or an array of DTOs. */
  nested?: Readonly<Record<string, DtoShape>>;
  /** Properties where null is a value (§2.1 networkId, §2.8 sessionId); elsewhere null means absent. */
  nullable?: readonly string[];
  /**
   * Set for frames whose fields the spec does not show: each group lists properties of which at least one
   * must be present and valid; anything else that fails validation is dropped as an oddity.
   */
  required?: ReadonlyArray<readonly string[]>;
}

const accountGroupEntry: DtoShape = { dto: AccountGroupEntryDto, required: [['uuid']] };

const SHAPES: Readonly<Record<string, DtoShape>> = {
  subscribe: { dto: SubscribeAckDto, nullable: ['networkId'] },
  unsubscribe: { dto: UnsubscribeReplyDto, required: [['subscriptionId', 'tag']] },
  streamStop: { dto: StreamStopDto, required: [] },
  order: {
    dto: OrderReplyDto,
    nullable: ['sessionId'],
    required: [['orderStatus'], ['clientRequestId', 'transactionId', 'quoteId']],
  },
  orderUnsubscribe: { dto: OrderUnsubscribeReplyDto, required: [['clientRequestId']] },
  error: { dto: ErrorFrameDto, required: [] },
  accountGroups: {
    dto: AccountGroupsReplyDto,
    nested: { accountGroups: accountGroupEntry },
    required: [['accountGroups']],
  },
};

/** The message types read liberally: the only ones a decode can accept with `oddities` (a bounded metric label). */
export const LIBERALLY_READ_MESSAGE_TYPES: readonly string[] = Object.keys(SHAPES).filter(
  (messageType) => SHAPES[messageType]?.required !== undefined,
);

/** At most this many oddities are reported per frame. */
const MAX_ODDITIES = 8;

const hasOwn = Object.prototype.hasOwnProperty;

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/** Copies the declared properties of `plain` into a new DTO instance; anything else is left behind. */
function instantiate(shape: DtoShape, plain: Record<string, unknown>): Record<string, unknown> {
  const instance = new shape.dto() as Record<string, unknown>;
  for (const key of declaredFields(shape.dto)) {
    if (!hasOwn.call(plain, key)) continue;
    const value = plain[key];
    if (value === null && !(shape.nullable?.includes(key) ?? false)) continue;
    const nested = shape.nested?.[key];
    if (nested === undefined) instance[key] = value;
    else if (Array.isArray(value)) instance[key] = value.map((item: unknown) => instantiateNested(nested, item));
    else instance[key] = instantiateNested(nested, value);
  }
  return instance;
}

/** Non-objects are kept as they are so that validation reports them. */
function instantiateNested(shape: DtoShape, value: unknown): unknown {
  return isPlainObject(value) ? instantiate(shape, value) : value;
}

function problemOf(error: ValidationError, prefix = ''): string {
  return firstProblem([error], prefix);
}

function firstProblem(errors: readonly ValidationError[], prefix = ''): string {
  const [error] = errors;
  if (error === undefined) return 'invalid';
  const path = `${prefix}${error.property}`;
  const constraint = error.constraints === undefined ? undefined : Object.values(error.constraints)[0];
  if (constraint !== undefined) return prefix === '' ? constraint : `${prefix}${constraint}`;
  return firstProblem(error.children ?? [], `${path}.`);
}

function rawText(raw: RawFrame): string {
  if (typeof raw === 'string') return raw;
  if (Buffer.isBuffer(raw)) return raw.toString('utf8');
  if (raw instanceof ArrayBuffer) return Buffer.from(raw).toString('utf8');
  return Buffer.concat(raw).toString('utf8');
}

export function decodeServiceFrame(raw: RawFrame): DecodeResult {
  let parsed: unknown;
  try {
    parsed = JSON.parse(rawText(raw));
  } catch {
    return { kind: 'invalid', reason: 'not JSON' };
  }
  try {
    return classify(parsed);
  } catch {
    // Defensive: a validator bug must cost one frame, never the connection's process.
    return { kind: 'invalid', reason: 'frame could not be validated' };
  }
}

function classify(parsed: unknown): DecodeResult {
  if (!isPlainObject(parsed)) return { kind: 'invalid', reason: 'not a JSON object' };
  const messageType = parsed['messageType'];
  if (typeof messageType !== 'string') return { kind: 'invalid', reason: 'messageType missing or not a string' };

  if (messageType === 'pricestream') {
    const reason = checkPriceUpdate(parsed);
    if (reason !== undefined) return { kind: 'invalid', reason, messageType };
    return { kind: 'message', message: parsed as unknown as ServiceMessage };
  }

  const shape = hasOwn.call(SHAPES, messageType) ? SHAPES[messageType] : undefined;
  if (shape === undefined) return { kind: 'unknown', messageType };
  const instance = instantiate(shape, parsed);
  if (shape.required !== undefined) return readLiberally(shape, shape.required, instance, messageType);
  const errors = validateSync(instance, { forbidUnknownValues: true });
  if (errors.length > 0) return { kind: 'invalid', reason: firstProblem(errors), messageType };
  instance['messageType'] = messageType;
  return { kind: 'message', message: instance as unknown as ServiceMessage };
}

/** A frame whose fields the spec does not show: keep what is valid, require only what correlates it. */
function readLiberally(
  shape: DtoShape,
  required: ReadonlyArray<readonly string[]>,
  instance: Record<string, unknown>,
  messageType: string,
): DecodeResult {
  const oddities: string[] = [];
  const dropped = new Map<string, string>();
  for (const [key, itemShape] of Object.entries(shape.nested ?? {})) {
    const items = instance[key];
    if (Array.isArray(items)) instance[key] = keepValidItems(key, itemShape, items, oddities);
  }
  for (const error of validateSync(instance, { forbidUnknownValues: true })) {
    const problem = problemOf(error);
    dropped.set(error.property, problem);
    oddities.push(problem);
    delete instance[error.property];
  }
  for (const group of required) {
    if (group.some((key) => instance[key] !== undefined)) continue;
    const reason = group.map((key) => dropped.get(key)).find((problem) => problem !== undefined);
    return { kind: 'invalid', reason: reason ?? `${group.join(' or ')} missing`, messageType };
  }
  instance['messageType'] = messageType;
  const message = instance as unknown as ServiceMessage;
  return oddities.length === 0
    ? { kind: 'message', message }
    : { kind: 'message', message, oddities: oddities.slice(0, MAX_ODDITIES) };
}

/**
 * Elements of a liberally read array, one by one: an element that is not an object, or lacks what its shape
 * requires, is dropped; a property of a kept element that breaks its type is dropped. Each is an oddity.
 */
function keepValidItems(key: string, shape: DtoShape, items: unknown[], oddities: string[]): unknown[] {
  return items.filter((item, index) => {
    if (!isPlainObject(item)) {
      oddities.push(`${key}.${index} must be an object`);
      return false;
    }
    const problems = validateSync(item, { forbidUnknownValues: true }).map((error) => {
      delete item[error.property];
      return { property: error.property, problem: problemOf(error, `${key}.${index}.`) };
    });
    const missing = (shape.required ?? []).find((group) => group.every((name) => item[name] === undefined));
    if (missing !== undefined) {
      const problem = problems.find((p) => missing.includes(p.property))?.problem;
      oddities.push(problem ?? `${key}.${index}.${missing.join(' or ')} missing`);
      return false;
    }
    for (const { problem } of problems) oddities.push(problem);
    return true;
  });
}
