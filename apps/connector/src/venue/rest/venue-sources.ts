import type { OrderStatus, OrderSubscriptionStatus } from '#venue-api';

/** Issues the single-use WebSocket token (§4.3, W1). The token is a secret: never log it. */
export interface TokenSource {
  fetchToken(): Promise<string>;
}

/** The fields of an order-state record (§2.8) that reconciliation reads. */
export interface OrderStateView {
  timestamp: number;
  transactionId: string;
  orderStatus: OrderStatus;
  subscriptionStatus: OrderSubscriptionStatus;
  sessionId: string | null;
  code: string;
  message: string;
}

/** Reads an order's state over REST (§4.10). An empty array is not proof that no order exists. */
export interface OrderStateSource {
  orderState(clientRequestId: string): Promise<OrderStateView[]>;
}

/** The two calls of the venue REST client the connector uses (`VenueRestClient` satisfies it). */
export interface VenueRestPort {
  createWebSocketToken(): Promise<{ token: string }>;
  getOrderState(clientRequestId: string): Promise<OrderStateView[]>;
}

/** Token and order-state sources over the venue's REST client. */
export class RestVenueSources implements TokenSource, OrderStateSource {
  constructor(private readonly rest: VenueRestPort) {}

  async fetchToken(): Promise<string> {
    return (await this.rest.createWebSocketToken()).token;
  }

  orderState(clientRequestId: string): Promise<OrderStateView[]> {
    return this.rest.getOrderState(clientRequestId);
  }
}
