/**
 * The seams between the sandbox venue's two halves:
 *   back office (`domain/`, `rest/`, `webhooks/`, `admin/`): users, keys, tokens, ledger, trades,
 *     transactions, withdrawals, REST, webhooks;
 *   trading (`trading/`): market, quotes, the WebSocket, orders.
 * Each half provides its side under these injection tokens; neither reaches into the other's classes.
 */
import type { AccountGroupEntry, OrderStatus, OrderSubscriptionStatus, Side } from '#venue-api';

/** The venue's clock: real time plus an operator-injected skew (fault control). */
export interface VenueClock {
  now(): number;
}
export const VENUE_CLOCK = Symbol('VenueClock');

/** Provided by the back office. */
export interface TokenRegistry {
  /** Consumes a single-use WebSocket token (§4.2); undefined when unknown, used or expired. */
  consume(token: string): { userUuid: string } | undefined;
}
export const TOKEN_REGISTRY = Symbol('TokenRegistry');

/** Provided by the back office. */
export interface UserDirectory {
  accountGroupsOf(userUuid: string): AccountGroupEntry[];
  /** False for a pair disabled for this user's account (PRE200035). */
  isPairEnabled(userUuid: string, instrument: string): boolean;
  /** Resolves a beneficiary/sender usable by this user, for subscribe's settlement blocks. */
  findCounterparty(
    userUuid: string,
    kind: 'BENEFICIARY' | 'SENDER',
    uuid: string,
  ): { uuid: string; name: string } | undefined;
}
export const USER_DIRECTORY = Symbol('UserDirectory');

export interface RfsTradeInput {
  userUuid: string;
  accountGroupUuid: string;
  clientRequestId: string;
  quoteId: string;
  instrument: string;
  side: Side;
  /** Base-currency amount bought or sold (decimal string). */
  baseAmount: string;
  /** Quote-currency amount paid or received (decimal string, quote currency's precision). */
  quoteAmount: string;
  price: string;
  /** YYYYMMDD as on the price update. */
  settleDate: string;
  beneficiaryUuid?: string;
  senderUuid?: string;
  networkId?: string;
}

export interface BookedTrade {
  tradeUuid: string;
  tradeRef: string;
}

/** Provided by the back office: records the trade, its two transaction legs, moves balances, sends webhooks. */
export interface TradeBooking {
  bookRfsTrade(input: RfsTradeInput): BookedTrade;
}
export const TRADE_BOOKING = Symbol('TradeBooking');

/** §2.8 order-state record, as the venue keeps it (24 h). */
export interface OrderRecord {
  userUuid: string;
  transactionId: string;
  clientRequestId: string;
  orderStatus: OrderStatus;
  subscriptionStatus: OrderSubscriptionStatus;
  sessionId: string | null;
  code: string;
  message: string;
  /** Epoch ms of the order's arrival, for the 24 h retention. */
  createdAt: number;
}

/** Provided by trading; read by the back office's order-state endpoint (§4.10). */
export interface OrderRecords {
  /** Records of this user with this clientRequestId, retained 24 h; newest first. */
  findByClientRequestId(userUuid: string, clientRequestId: string): OrderRecord[];
}
export const ORDER_RECORDS = Symbol('OrderRecords');
