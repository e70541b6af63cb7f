/** `exec.order.get`, `exec.order.list`, `exec.position.get`: read from the journal (any instance answers). */
import {
  ExecutionErrorCode,
  type GetOrderReply,
  type ListOrdersReply,
  type OrderView,
  type PositionsReply,
} from '#contracts';
import type { OrderJournal } from '../orders/order-journal.js';
import { viewOf } from '../orders/order-record.js';
import type { Positions } from '../orders/positions.js';
import type { OrderListing, OrderLookup } from './order-query-requests.js';

const MAX_LISTED = 500;

/** Answers requests already read by `order-query-requests.ts` (a bad one never reaches here). */
export class OrderQueries {
  constructor(
    private readonly journal: OrderJournal,
    private readonly positions: Positions,
  ) {}

  async get(lookup: OrderLookup): Promise<GetOrderReply> {
    const orderId =
      'orderId' in lookup
        ? lookup.orderId
        : (await this.journal.keyEntry(lookup.strategyId, lookup.idempotencyKey))?.orderId;
    const stored = orderId === undefined ? undefined : await this.journal.read(orderId);
    return stored === undefined ? notFound() : { ok: true, order: viewOf(stored.record) };
  }

  async list({ filter, strategyId }: OrderListing): Promise<ListOrdersReply> {
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
    return { ok: true, filter, orders };
  }

  async positionsOf({ strategyId }: { strategyId: string }): Promise<PositionsReply> {
    return { ok: true, positions: await this.positions.of(strategyId) };
  }
}

function notFound(): { ok: false; error: { code: string; message: string } } {
  return { ok: false, error: { code: ExecutionErrorCode.NotFound, message: 'no such order' } };
}
