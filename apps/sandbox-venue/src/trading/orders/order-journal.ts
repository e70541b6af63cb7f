import type { OrderStatus, OrderSubscriptionStatus, Side } from '#venue-api';
import type { OrderRecord, OrderRecords, VenueClock } from '../../ports.js';

/** Execution details of a filled order (W5 SUCCESS fields). */
export interface Execution {
  instrument: string;
  price: string;
  quantity: string;
  quoteAmount: string;
  currency: string;
  settleDate: string;
  tradeRef: string;
}

/** One order as the venue remembers it: the §2.8 record plus what its frames need. */
export interface OrderEntry {
  record: OrderRecord;
  quoteId: string;
  side: Side;
  /** The session the order is bound to when autoSubscribe was set (W7). */
  sessionKey: string | undefined;
  /** chanId of the connection that placed it (delivery without autoSubscribe). */
  placedOnChanId: string;
  execution?: Execution;
}

/**
 * Orders of every account, kept `retentionMs` (§2.8: 24 h), readable by the back office's order-state
 * endpoint (§4.10) through ORDER_RECORDS.
 */
export class OrderJournal implements OrderRecords {
  private readonly entries: OrderEntry[] = [];

  constructor(
    private readonly clock: VenueClock,
    private readonly retentionMs: number,
  ) {}

  add(entry: OrderEntry): void {
    this.purge();
    this.entries.push(entry);
  }

  update(
    entry: OrderEntry,
    change: {
      orderStatus?: OrderStatus;
      subscriptionStatus?: OrderSubscriptionStatus;
      code?: string;
      message?: string;
    },
  ): void {
    entry.record = { ...entry.record, ...change };
  }

  findByClientRequestId(userUuid: string, clientRequestId: string): OrderRecord[] {
    this.purge();
    return this.entries
      .filter((e) => e.record.userUuid === userUuid && e.record.clientRequestId === clientRequestId)
      .map((e) => ({ ...e.record }))
      .reverse();
  }

  /** Orders still SUBSCRIBED on a session, oldest first (W7 redelivery). */
  subscribedOn(sessionKey: string): OrderEntry[] {
    this.purge();
    return this.entries.filter((e) => e.sessionKey === sessionKey && e.record.subscriptionStatus === 'SUBSCRIBED');
  }

  /** The user's orders with this clientRequestId, newest first. */
  entriesOf(userUuid: string, clientRequestId: string): OrderEntry[] {
    return this.entries
      .filter((e) => e.record.userUuid === userUuid && e.record.clientRequestId === clientRequestId)
      .reverse();
  }

  private purge(): void {
    const horizon = this.clock.now() - this.retentionMs;
    while (this.entries.length > 0 && (this.entries[0]?.record.createdAt ?? horizon) < horizon) this.entries.shift();
  }
}
