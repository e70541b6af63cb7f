/** `exec.order.get`, `exec.order.list`, `exec.position.get`: read from the journal (any instance answers). */
import {
  ExecutionErrorCode,
  STRATEGY_ID,
  type GetOrderReply,
  type GetOrderRequest,
  type ListOrdersReply,
  type ListOrdersRequest,
  type OrderView,
  type PositionsReply,
} from '#contracts';
import type { OrderJournal } from '../orders/order-journal.js';
import { viewOf } from '../orders/order-record.js';
import type { Positions } from '../orders/positions.js';

const MAX_LISTED = 500;

export class OrderQueries {
  constructor(
    private readonly journal: OrderJournal,
    private readonly positions: Positions,
  ) {}

  async get(request: GetOrderRequest | undefined): Promise<GetOrderReply> {
    let orderId = typeof request?.orderId === 'string' && request.orderId.length <= 64 ? request.orderId : undefined;
    if (
      orderId === undefined &&
      typeof request?.strategyId === 'string' &&
      typeof request.idempotencyKey === 'string'
    ) {
      if (!STRATEGY_ID.test(request.strategyId) || request.idempotencyKey.length > 128)
        return invalid('strategyId, idempotencyKey');
      orderId = (await this.journal.keyEntry(request.strategyId, request.idempotencyKey))?.orderId;
      if (orderId === undefined) return notFound();
    }
    if (orderId === undefined || !/^[A-Za-z0-9-]{1,64}$/.test(orderId))
      return invalid('orderId (or strategyId with idempotencyKey)');
    const stored = await this.journal.read(orderId);
    return stored === undefined ? notFound() : { ok: true, order: viewOf(stored.record) };
  }

  /** `request`: the parsed body (`{}` for an empty one; anything not a JSON object is refused). */
  async list(body: unknown): Promise<ListOrdersReply> {
    if (typeof body !== 'object' || body === null || Array.isArray(body))
      return invalid('body (a JSON object, or empty)');
    const request = body as ListOrdersRequest;
    const filter = request.filter ?? 'open';
    if (filter !== 'open' && filter !== 'unresolved') return invalid('filter (open or unresolved)');
    const strategyId = request.strategyId;
    if (strategyId !== undefined && (typeof strategyId !== 'string' || !STRATEGY_ID.test(strategyId)))
      return invalid('strategyId');
    const orders: OrderView[] = [];
    for (const orderId of await this.journal.openOrderIds()) {
      if (orders.length >= MAX_LISTED) break;
      const stored = await this.journal.read(orderId);
      if (stored === undefined) continue;
      const view = viewOf(stored.record);
      if (view.final) continue;
      if (strategyId !== undefined && view.strategyId !== strategyId) continue;
      if (filter === 'unresolved' && view.state !== 'UNKNOWN' && view.state !== 'INDETERMINATE') continue;
      orders.push(view);
    }
    orders.sort((a, b) => a.acceptedAt - b.acceptedAt);
    return { ok: true, orders };
  }

  async positionsOf(request: { strategyId?: unknown } | undefined): Promise<PositionsReply> {
    const strategyId = request?.strategyId;
    if (typeof strategyId !== 'string' || !STRATEGY_ID.test(strategyId)) return invalid('strategyId');
    return { ok: true, positions: await this.positions.of(strategyId) };
  }
}

function invalid(fields: string): { ok: false; error: { code: string; message: string } } {
  return { ok: false, error: { code: ExecutionErrorCode.InvalidRequest, message: `invalid or missing: ${fields}` } };
}

function notFound(): { ok: false; error: { code: string; message: string } } {
  return { ok: false, error: { code: ExecutionErrorCode.NotFound, message: 'no such order' } };
}
