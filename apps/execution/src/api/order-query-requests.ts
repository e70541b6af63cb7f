/**
 * Reads the requests of `exec.order.get`, `exec.order.list`, `exec.position.get` (hand-validated: they predate
 * the contract classes and their refusal texts are documented). Each gets the JSON object the bus responder read
 * within the bounds of every request subject (not JSON, too deep, too many fields, too big: its words, tester t2
 * F6); a field it does not know is refused, named. Pure and never throwing, so the bus responder answers and counts
 * a refusal (`bus_bad_requests_total`) like any other bad request.
 */
import {
  hasLoneSurrogate,
  LIST_ORDER_FILTERS,
  STRATEGY_ID,
  unknownFieldProblems,
  type ListOrdersFilter,
  type Parsed,
} from '#contracts';

export type OrderLookup = { orderId: string } | { strategyId: string; idempotencyKey: string };
export interface OrderListing {
  filter: ListOrdersFilter;
  strategyId?: string;
}

const ORDER_ID = /^[A-Za-z0-9-]{1,64}$/;
const LOOKUP_FIELDS: ReadonlySet<string> = new Set(['orderId', 'strategyId', 'idempotencyKey']);
const LISTING_FIELDS: ReadonlySet<string> = new Set(['filter', 'strategyId']);
const POSITIONS_FIELDS: ReadonlySet<string> = new Set(['strategyId']);

type Request = Record<string, unknown>;

export function parseOrderLookup(request: Request): Parsed<OrderLookup> {
  const unknown = unknownFieldProblems(LOOKUP_FIELDS, request);
  if (unknown.length > 0) return { ok: false, problems: unknown };
  const orderId = request['orderId'];
  if (typeof orderId === 'string' && orderId.length <= 64) {
    return ORDER_ID.test(orderId)
      ? { ok: true, value: { orderId } }
      : invalid('orderId (or strategyId with idempotencyKey)');
  }
  const { strategyId, idempotencyKey } = request;
  if (typeof strategyId === 'string' && typeof idempotencyKey === 'string') {
    // a key with a lone surrogate (half a character) is one exec.order.place never takes (libs/contracts validate.ts)
    if (!STRATEGY_ID.test(strategyId) || idempotencyKey.length > 128 || hasLoneSurrogate(idempotencyKey)) {
      return invalid('strategyId, idempotencyKey');
    }
    return { ok: true, value: { strategyId, idempotencyKey } };
  }
  return invalid('orderId (or strategyId with idempotencyKey)');
}

/**
 * An empty body (the responder reads it as `{}`), or one without `filter`, lists the open orders (`filter: "open"`,
 * the default the reply names); a filter the journal cannot answer (`final`, `all`) is refused: it indexes the
 * orders not final yet, never the final ones.
 */
export function parseOrderListing(request: Request): Parsed<OrderListing> {
  const unknown = unknownFieldProblems(LISTING_FIELDS, request);
  if (unknown.length > 0) return { ok: false, problems: unknown };
  const filter = request['filter'] ?? 'open';
  if (!isListFilter(filter)) {
    return {
      ok: false,
      problems: [
        `filter must be one of ${LIST_ORDER_FILTERS.join(', ')} (default open); final orders are not listed — ` +
          'read one with exec.order.get (orderId, or strategyId + idempotencyKey)',
      ],
    };
  }
  const strategyId = request['strategyId'];
  if (strategyId === undefined) return { ok: true, value: { filter } };
  if (typeof strategyId !== 'string' || !STRATEGY_ID.test(strategyId)) return invalid('strategyId');
  return { ok: true, value: { filter, strategyId } };
}

export function parsePositionsQuery(request: Request): Parsed<{ strategyId: string }> {
  const unknown = unknownFieldProblems(POSITIONS_FIELDS, request);
  if (unknown.length > 0) return { ok: false, problems: unknown };
  const strategyId = request['strategyId'];
  if (typeof strategyId !== 'string' || !STRATEGY_ID.test(strategyId)) return invalid('strategyId');
  return { ok: true, value: { strategyId } };
}

function isListFilter(value: unknown): value is ListOrdersFilter {
  return (LIST_ORDER_FILTERS as readonly unknown[]).includes(value);
}

function invalid(fields: string): { ok: false; problems: string[] } {
  return { ok: false, problems: [`invalid or missing: ${fields}`] };
}
