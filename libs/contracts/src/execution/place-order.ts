/**
 * `{prefix}.{account}.exec.order.place` — request/reply. The algo chooses the idempotency key; the same key
 * (per strategy) with the same payload answers the existing order, with a different payload is refused.
 * Either `quoteId` (a quote the algo holds) or a quote request (`instrument`, `quantity`, `currency`,
 * `tenor`: the app uses the freshest live quote of that stream, asking the connector for it if needed).
 */
import { loneSurrogateProblem, printableName } from '../validate.js';
import { readJsonObject } from '../json-payload.js';
import { isDecimalString, SIZE_DECIMAL, SIZE_RULE } from '../decimal-string.js';
import { plainDecimal, SUBJECT_TOKEN } from '../subjects.js';
import { isQuoteId, QUOTE_ID_RULE } from '../order.js';
import type { OrderView } from './order-view.js';
import { STRATEGY_ID } from './execution-subjects.js';

/** Printable, no control characters. */
/** No control character, and not only white space (a blank key is no key). */
const KEY = /^(?=.*\S)[^\p{Cc}]+$/u;
const INSTRUMENT = /^[A-Za-z0-9]{1,16}\.[A-Za-z0-9]{1,16}$/;
const CURRENCY = /^[A-Za-z0-9]{1,16}$/;

export interface PlaceOrderRequest {
  /** 1–128 characters, no control characters; chosen by the algo, scoped per strategy. */
  idempotencyKey: string;
  /** 1–64 letters, digits, `_` or `-`. */
  strategyId: string;
  /** One subject token (the venue's account-group uuid). */
  accountGroup: string;
  side: 'BUY' | 'SELL';
  /** A quote the algo holds (from a price it received). */
  quoteId?: string;
  /** `BASE.QUOTE`: required with a quote request, optional context with a quoteId. */
  instrument?: string;
  /** Quote request: size in `currency`, a plain decimal with at most 8 decimals. */
  quantity?: string;
  currency?: string;
  tenor?: string;
  /**
   * Worst acceptable price (quote currency per base unit): BUY refuses a higher price, SELL a lower one. Any decimal
   * spelling (`070000`, `7e4`, `70000.0`) is taken and kept in its one plain form (`70000`): stored, shown and
   * compared as such. At most 64 characters as written and as plain text.
   */
  worstPrice?: string;
  /**
   * Epoch ms (the execution host's clock) after which the order must not be sent to the venue: the algo's own
   * deadline, e.g. when its request times out. Already passed: refused `ORDER_SEND_BY_PASSED`, nothing stored.
   * Accepted: the order's command leaves by the earliest of this, the app's send deadline and the quote's expiry,
   * or ends FAILED `SEND_DEADLINE_PASSED`, never sent. Not part of the order: a retry with the key and another
   * `sendBy` is the same order (answered as it stands).
   */
  sendBy?: number;
}

export interface FieldProblem {
  field: string;
  problem: string;
}

export type PlaceOrderParse = { ok: true; value: PlaceOrderRequest } | { ok: false; problems: FieldProblem[] };

type Rule = (value: unknown) => string | undefined;

const text =
  (min: number, max: number, pattern: RegExp | undefined, describe: string): Rule =>
  (value) =>
    typeof value !== 'string' || value.length < min || value.length > max || (pattern && !pattern.test(value))
      ? describe
      : undefined;

const positiveDecimal =
  (max: number, name: string): Rule =>
  (value) =>
    isDecimalString(value) &&
    value.length <= max &&
    !value.startsWith('-') &&
    /[1-9]/.test(value.split(/[eE]/)[0] ?? '')
      ? undefined
      : `${name} must be a positive decimal string of at most ${max} characters`;

/**
 * Every field's rule (hand-written rather than decorators: this runs on the order hot path, ~40× faster than
 * class-validator). Messages name the field and its rule, never the value.
 */
const RULES: Record<keyof PlaceOrderRequest, { required: boolean; rule: Rule }> = {
  idempotencyKey: {
    required: true,
    rule: text(1, 128, KEY, 'idempotencyKey must be 1–128 characters without control characters, not only spaces'),
  },
  strategyId: { required: true, rule: text(1, 64, STRATEGY_ID, 'strategyId must be 1–64 letters, digits, _ or -') },
  accountGroup: {
    required: true,
    rule: text(1, 64, SUBJECT_TOKEN, 'accountGroup must be one subject token of 1–64 characters'),
  },
  side: { required: true, rule: (v) => (v === 'BUY' || v === 'SELL' ? undefined : 'side must be BUY or SELL') },
  quoteId: { required: false, rule: (v) => (isQuoteId(v) ? undefined : QUOTE_ID_RULE) },
  instrument: { required: false, rule: text(3, 33, INSTRUMENT, 'instrument must be BASE.QUOTE') },
  quantity: {
    required: false,
    rule: (v) => positiveDecimal(30, 'quantity')(v) ?? (SIZE_DECIMAL.test(v as string) ? undefined : SIZE_RULE),
  },
  currency: { required: false, rule: text(1, 16, CURRENCY, 'currency must be 1–16 letters or digits') },
  tenor: { required: false, rule: text(1, 16, SUBJECT_TOKEN, 'tenor must be one subject token of 1–16 characters') },
  worstPrice: {
    required: false,
    rule: (v) =>
      positiveDecimal(64, 'worstPrice')(v) ??
      (plainDecimal(v as string).length <= 64 ? undefined : 'worstPrice must be at most 64 characters written plainly'),
  },
  sendBy: {
    required: false,
    rule: (v) =>
      Number.isSafeInteger(v) && (v as number) > 0 ? undefined : 'sendBy must be a whole number of epoch milliseconds',
  },
};
const QUOTE_REQUEST_FIELDS = ['instrument', 'quantity', 'currency', 'tenor'] as const;
/** Unknown fields named in a refusal (the rest are counted): a payload's own keys are never echoed unbounded. */
const MAX_NAMED_FIELDS = 10;

/** Decodes and validates a place request, naming every bad field (never throws, never echoes the values). */
export function parsePlaceOrder(payload: Uint8Array | string): PlaceOrderParse {
  const read = readJsonObject(payload);
  if (!read.ok) return { ok: false, problems: [{ field: '(payload)', problem: read.problem }] };
  const input = read.value;
  const problems: FieldProblem[] = [];
  // own properties only: `in` walks the prototype, so `toString`, `constructor` or `__proto__` passed as known
  const unknown = Object.keys(input).filter((key) => !Object.hasOwn(RULES, key));
  for (const field of unknown.slice(0, MAX_NAMED_FIELDS))
    problems.push({ field: printableName(field), problem: 'unknown field' });
  if (unknown.length > MAX_NAMED_FIELDS)
    problems.push({ field: '(payload)', problem: `and ${unknown.length - MAX_NAMED_FIELDS} more unknown fields` });
  for (const [field, { required, rule }] of Object.entries(RULES)) {
    const value = input[field];
    if (value === undefined) {
      if (required) problems.push({ field, problem: `${field} is required` });
      continue;
    }
    const problem = rule(value) ?? loneSurrogateProblem(field, value);
    if (problem !== undefined) problems.push({ field, problem });
  }
  const value = input as unknown as PlaceOrderRequest;
  const hasQuoteId = value.quoteId !== undefined;
  const requestFields = QUOTE_REQUEST_FIELDS.filter((field) => value[field] !== undefined);
  if (hasQuoteId && requestFields.some((field) => field !== 'instrument')) {
    problems.push({ field: 'quoteId', problem: 'give either quoteId or a quote request (quantity, currency, tenor)' });
  }
  if (!hasQuoteId) {
    for (const field of QUOTE_REQUEST_FIELDS) {
      if (value[field] === undefined) {
        problems.push({ field, problem: `${field} is required when no quoteId is given` });
      }
    }
  }
  if (!hasQuoteId && problems.length === 0) {
    const [base, quote] = (value.instrument as string).split('.');
    if (value.currency !== base && value.currency !== quote) {
      problems.push({ field: 'currency', problem: 'currency must be one of the instrument’s two currencies' });
    }
  }
  if (problems.length > 0) return { ok: false, problems };
  const request: PlaceOrderRequest = {
    idempotencyKey: value.idempotencyKey,
    strategyId: value.strategyId,
    accountGroup: value.accountGroup,
    side: value.side,
  };
  for (const field of ['quoteId', 'instrument', 'quantity', 'currency', 'tenor'] as const) {
    if (value[field] !== undefined) request[field] = value[field];
  }
  // one spelling per price: the order keeps (and shows, and compares) `70000` for `070000` or `7E+4`
  if (value.worstPrice !== undefined) request.worstPrice = plainDecimal(value.worstPrice);
  if (value.sendBy !== undefined) request.sendBy = value.sendBy;
  return { ok: true, value: request };
}

/** A refusal: `CATEGORY_CONDITION` code, a message, the values that caused it, and each bad field. */
export interface OrderRejection {
  ok: false;
  error: {
    code: string;
    message: string;
    values?: Record<string, string>;
    fields?: FieldProblem[];
  };
}

export interface OrderAccepted {
  ok: true;
  orderId: string;
  clientRequestId: string;
  /** True when the key was already used with the same payload: this is the existing order. */
  duplicate: boolean;
  order: OrderView;
}

export type PlaceOrderReply = OrderAccepted | OrderRejection;

/** Execution error codes (risk codes come from the risk gate; venue codes pass through on the order's outcome). */
export const ExecutionErrorCode = {
  InvalidRequest: 'INVALID_REQUEST',
  IdempotencyKeyReused: 'IDEMPOTENCY_KEY_REUSED_WITH_DIFFERENT_PAYLOAD',
  /**
   * A quote request found no unused live quote within `QUOTE_WAIT_MS`, or the connector could not grant its price
   * stream for a reason that passes (`values.connectorCode`: `BUSY`, `STREAM_LIMIT`, `TIMEOUT`, `NOT_CONNECTED`, …;
   * `values.venueCode`: a venue refusal that may pass, e.g. `RFS100013`): ask again with the same key.
   */
  QuoteUnavailable: 'QUOTE_UNAVAILABLE',
  /**
   * The venue (or the connector) refused the quote request's price stream for the request itself
   * (`values.venueCode`, e.g. `RFS600004` account group unknown, `RFS100011` no price at that size, pair or tenor;
   * or `values.connectorCode` `INVALID_REQUEST`): the same request gets the same answer — change it, do not loop.
   * `RFS100011` is also a venue halt's answer until the instrument resumes (W24): that one passes, later.
   */
  QuoteRefused: 'QUOTE_REFUSED',
  /** The quote request's fields form no price subject (checked before the connector is asked). */
  QuoteRequestInvalid: 'QUOTE_REQUEST_INVALID',
  Reconciling: 'EXECUTION_RECONCILING_UNRESOLVED_ORDERS',
  NotReady: 'EXECUTION_NOT_READY',
  Stopping: 'EXECUTION_STOPPING',
  JournalUnavailable: 'EXECUTION_JOURNAL_UNAVAILABLE',
  NotFound: 'ORDER_NOT_FOUND',
  Internal: 'EXECUTION_INTERNAL',
  /**
   * The key's order was claimed and not yet placed whole (under way on another instance, or its placing ended in a
   * crash): ask again with the same key; once it can no longer be sent, the key places a new order.
   */
  OrderBeingPlaced: 'ORDER_BEING_PLACED',
  /** The request's `sendBy` had passed when it was decided: nothing stored, the key stays free. */
  SendByPassed: 'ORDER_SEND_BY_PASSED',
  /**
   * The order could not leave before its send deadline behind the orders already waiting for the venue (the venue
   * takes one order per interval; the connector's pace is in its status): nothing stored, the key stays free. Ask
   * again with the same key once the queue has drained (`values`: `ordersAhead`, `paceMs`, `estimatedWaitMs`,
   * `timeLeftMs`; integers as strings) — accepted, it would have ended FAILED `SEND_DEADLINE_PASSED`.
   */
  OrderQueueFull: 'ORDER_QUEUE_FULL',
} as const;

/** `{prefix}.{account}.exec.order.get`: by `orderId`, or by `strategyId` + `idempotencyKey`. */
export interface GetOrderRequest {
  orderId?: string;
  strategyId?: string;
  idempotencyKey?: string;
}

/** What `exec.order.list` lists: `open` = not final; `unresolved` = UNKNOWN or INDETERMINATE. */
export const LIST_ORDER_FILTERS = ['open', 'unresolved'] as const;
export type ListOrdersFilter = (typeof LIST_ORDER_FILTERS)[number];

/**
 * `{prefix}.{account}.exec.order.list`: the orders that are not final yet (at most 500, oldest first). `filter`
 * defaults to `open`; the reply names the filter it applied. Final orders (SUCCESS, FAILED) are never listed: read
 * one with `exec.order.get` (by orderId or strategyId + idempotencyKey), all of a strategy from the order event stream.
 */
export interface ListOrdersRequest {
  filter?: ListOrdersFilter;
  strategyId?: string;
}

export type GetOrderReply = { ok: true; order: OrderView } | OrderRejection;
export type ListOrdersReply = { ok: true; filter: ListOrdersFilter; orders: OrderView[] } | OrderRejection;

/** `{prefix}.{account}.exec.position.get` `{strategyId}`: net amount per currency from the strategy's fills. */
export interface StrategyPositions {
  strategyId: string;
  /** Currency → signed net amount (bought positive, sold/paid negative). */
  positions: Record<string, string>;
  /** Fills applied. */
  fills: number;
  /** Of those, fills the venue undid later (their trade CANCELLED or FAILED) and taken back from `positions`. */
  undoneFills?: number;
  updatedAt: number;
}
export type PositionsReply = { ok: true; positions: StrategyPositions } | OrderRejection;
