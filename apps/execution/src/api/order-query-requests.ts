/**
 * Reads the bodies of `exec.order.get`, `exec.order.list`, `exec.position.get` (hand-validated: they predate
 * the contract classes and their refusal texts are documented). Pure and never throwing, so the bus responder
 * answers and counts a refusal (`bus_bad_requests_total`) like any other bad request.
 */
import { hasLoneSurrogate, LIST_ORDER_FILTERS, STRATEGY_ID, type ListOrdersFilter, type Parsed } from '#contracts';

export type OrderLookup = { orderId: string } | { strategyId: string; idempotencyKey: string };
export interface OrderListing {
  filter: ListOrdersFilter;
  strategyId?: string;
}

const ORDER_ID = /^[A-Za-z0-9-]{1,64}$/;

export function parseOrderLookup(payload: Uint8Array): Parsed<OrderLookup> {
  const request = objectOf(jsonOf(payload));
  const orderId = request?.['orderId'];
  if (typeof orderId === 'string' && orderId.length <= 64) {
    return ORDER_ID.test(orderId)
      ? { ok: true, value: { orderId } }
      : invalid('orderId (or strategyId with idempotencyKey)');
  }
  const { strategyId, idempotencyKey } = request ?? {};
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
 * An empty body, or one without `filter`, lists the open orders (`filter: "open"`, the default the reply names);
 * anything not a JSON object is refused, and so is a filter the journal cannot answer (`final`, `all`): it indexes
 * the orders not final yet, never the final ones.
 */
export function parseOrderListing(payload: Uint8Array): Parsed<OrderListing> {
  const request = payload.length === 0 ? {} : objectOf(jsonOf(payload));
  if (request === undefined) return invalid('body (a JSON object, or empty)');
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

export function parsePositionsQuery(payload: Uint8Array): Parsed<{ strategyId: string }> {
  const strategyId = objectOf(jsonOf(payload))?.['strategyId'];
  if (typeof strategyId !== 'string' || !STRATEGY_ID.test(strategyId)) return invalid('strategyId');
  return { ok: true, value: { strategyId } };
}

function isListFilter(value: unknown): value is ListOrdersFilter {
  return (LIST_ORDER_FILTERS as readonly unknown[]).includes(value);
}

function jsonOf(payload: Uint8Array): unknown {
  try {
    return JSON.parse(new TextDecoder().decode(payload));
  } catch {
    return undefined;
  }
}

function objectOf(value: unknown): Record<string, unknown> | undefined {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : undefined;
}

function invalid(fields: string): { ok: false; problems: string[] } {
  return { ok: false, problems: [`invalid or missing: ${fields}`] };
}
