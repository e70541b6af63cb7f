/**
 * `{prefix}.{account}.exec.order.place` — request/reply. The algo chooses the idempotency key; the same key
 * (per strategy) with the same payload answers the existing order, with a different payload is refused.
 * Either `quoteId` (a quote the algo holds) or a quote request (`instrument`, `quantity`, `currency`,
 * `tenor`: the app uses the freshest live quote of that stream, asking the connector for it if needed).
 */
import { plainToInstance } from 'class-transformer';
import { IsIn, IsOptional, IsString, Matches, MaxLength, MinLength, validateSync } from 'class-validator';
import { IsPositiveDecimalString } from '../decimal-string.js';
import type { OrderView } from './order-view.js';
import { STRATEGY_ID } from './execution-subjects.js';

const TOKEN = /^[^\s.*>]+$/;
/** Printable, no control characters. */
const KEY = /^[^\p{Cc}]+$/u;

export class PlaceOrderRequest {
  @IsString()
  @MinLength(1)
  @MaxLength(128)
  @Matches(KEY, { message: 'idempotencyKey must not contain control characters' })
  idempotencyKey!: string;

  @IsString()
  @Matches(STRATEGY_ID, { message: 'strategyId must be 1–64 letters, digits, _ or -' })
  strategyId!: string;

  @IsString()
  @MinLength(1)
  @MaxLength(64)
  @Matches(TOKEN, { message: 'accountGroup must be one subject token' })
  accountGroup!: string;

  @IsIn(['BUY', 'SELL'], { message: 'side must be BUY or SELL' })
  side!: 'BUY' | 'SELL';

  /** A quote the algo holds (from a price it received). */
  @IsOptional()
  @IsString()
  @MinLength(1)
  @MaxLength(512)
  quoteId?: string;

  /** `BASE.QUOTE`: required with a quote request, optional context with a quoteId. */
  @IsOptional()
  @IsString()
  @Matches(/^[A-Za-z0-9]{1,16}\.[A-Za-z0-9]{1,16}$/, { message: 'instrument must be BASE.QUOTE' })
  instrument?: string;

  /** Quote request: size in `currency`, at most 8 decimals. */
  @IsOptional()
  @IsPositiveDecimalString()
  @Matches(/^\d{1,20}(\.\d{1,8})?$/, { message: 'quantity must be a plain decimal with at most 8 decimals' })
  quantity?: string;

  @IsOptional()
  @IsString()
  @Matches(/^[A-Za-z0-9]{1,16}$/, { message: 'currency must be 1–16 letters or digits' })
  currency?: string;

  @IsOptional()
  @IsString()
  @MinLength(1)
  @MaxLength(16)
  @Matches(TOKEN, { message: 'tenor must be one subject token' })
  tenor?: string;

  /** Worst acceptable price (quote currency per base unit): BUY refuses a higher price, SELL a lower one. */
  @IsOptional()
  @IsPositiveDecimalString()
  @MaxLength(64)
  worstPrice?: string;
}

export interface FieldProblem {
  field: string;
  problem: string;
}

export type PlaceOrderParse = { ok: true; value: PlaceOrderRequest } | { ok: false; problems: FieldProblem[] };

const KNOWN_FIELDS = new Set([
  'idempotencyKey',
  'strategyId',
  'accountGroup',
  'side',
  'quoteId',
  'instrument',
  'quantity',
  'currency',
  'tenor',
  'worstPrice',
]);
const QUOTE_REQUEST_FIELDS = ['instrument', 'quantity', 'currency', 'tenor'] as const;

/** Decodes and validates a place request, naming every bad field (never throws, never echoes the values). */
export function parsePlaceOrder(payload: Uint8Array | string): PlaceOrderParse {
  let plain: unknown;
  try {
    plain = JSON.parse(typeof payload === 'string' ? payload : new TextDecoder().decode(payload));
  } catch {
    return { ok: false, problems: [{ field: '(payload)', problem: 'payload is not JSON' }] };
  }
  if (plain === null || typeof plain !== 'object' || Array.isArray(plain)) {
    return { ok: false, problems: [{ field: '(payload)', problem: 'payload must be a JSON object' }] };
  }
  const problems: FieldProblem[] = [];
  const unknown = Object.keys(plain).filter((key) => !KNOWN_FIELDS.has(key));
  for (const field of unknown.slice(0, 10)) {
    problems.push({ field: field.slice(0, 64), problem: 'unknown field' });
  }
  const value = plainToInstance(PlaceOrderRequest, plain);
  for (const error of validateSync(value, { forbidUnknownValues: true })) {
    const messages = Object.values(error.constraints ?? { invalid: `${error.property} is invalid` });
    problems.push({ field: error.property, problem: messages.join('; ') });
  }
  const hasQuoteId = value.quoteId !== undefined;
  const requestFields = QUOTE_REQUEST_FIELDS.filter((field) => value[field] !== undefined);
  if (hasQuoteId && requestFields.some((field) => field !== 'instrument')) {
    problems.push({ field: 'quoteId', problem: 'give either quoteId or a quote request (quantity, currency, tenor)' });
  }
  if (!hasQuoteId) {
    for (const field of QUOTE_REQUEST_FIELDS) {
      if (value[field] === undefined && !problems.some((p) => p.field === field)) {
        problems.push({ field, problem: `${field} is required when no quoteId is given` });
      }
    }
  }
  if (!hasQuoteId && value.instrument !== undefined && value.currency !== undefined) {
    const [base, quote] = value.instrument.split('.');
    if (value.currency !== base && value.currency !== quote) {
      problems.push({ field: 'currency', problem: 'currency must be one of the instrument’s two currencies' });
    }
  }
  return problems.length > 0 ? { ok: false, problems } : { ok: true, value };
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
  InvalidRequest: 'REQUEST_INVALID',
  IdempotencyKeyReused: 'IDEMPOTENCY_KEY_REUSED_WITH_DIFFERENT_PAYLOAD',
  QuoteUnavailable: 'QUOTE_UNAVAILABLE',
  Reconciling: 'EXECUTION_RECONCILING_UNRESOLVED_ORDERS',
  NotReady: 'EXECUTION_NOT_READY',
  Stopping: 'EXECUTION_STOPPING',
  JournalUnavailable: 'EXECUTION_JOURNAL_UNAVAILABLE',
  NotFound: 'ORDER_NOT_FOUND',
  Internal: 'EXECUTION_INTERNAL',
} as const;

/** `{prefix}.{account}.exec.order.get`: by `orderId`, or by `strategyId` + `idempotencyKey`. */
export interface GetOrderRequest {
  orderId?: string;
  strategyId?: string;
  idempotencyKey?: string;
}

/** `{prefix}.{account}.exec.order.list`: `open` = not final; `unresolved` = UNKNOWN or INDETERMINATE. */
export interface ListOrdersRequest {
  filter?: 'open' | 'unresolved';
  strategyId?: string;
}

export type GetOrderReply = { ok: true; order: OrderView } | OrderRejection;
export type ListOrdersReply = { ok: true; orders: OrderView[] } | OrderRejection;

/** `{prefix}.{account}.exec.position.get` `{strategyId}`: net amount per currency from the strategy's fills. */
export interface StrategyPositions {
  strategyId: string;
  /** Currency → signed net amount (bought positive, sold/paid negative). */
  positions: Record<string, string>;
  fills: number;
  updatedAt: number;
}
export type PositionsReply = { ok: true; positions: StrategyPositions } | OrderRejection;
