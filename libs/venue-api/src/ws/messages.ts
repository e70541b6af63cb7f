/**
 * WebSocket messages of the venue (§2.1–2.3, §4.2, §6.2), with the choices of docs/spec-gaps.md (W1–W19)
 * where the spec says "not shown". Decimals are strings on the wire and stay strings here: parse them
 * with `Decimal` at the point of use. These shapes are shared by the client and the sandbox venue;
 * validation of inbound service frames lives in `ws/inbound.ts`.
 */

export const ClientMessageType = {
  Subscribe: 'subscribe',
  Unsubscribe: 'unsubscribe',
  Order: 'order',
  OrderUnsubscribe: 'orderUnsubscribe',
  AccountGroups: 'accountGroups',
} as const;
export type ClientMessageType = (typeof ClientMessageType)[keyof typeof ClientMessageType];

export const ServiceMessageType = {
  Subscribe: 'subscribe',
  PriceStream: 'pricestream',
  Unsubscribe: 'unsubscribe',
  StreamStop: 'streamStop',
  Order: 'order',
  OrderUnsubscribe: 'orderUnsubscribe',
  Error: 'error',
  AccountGroups: 'accountGroups',
} as const;
export type ServiceMessageType = (typeof ServiceMessageType)[keyof typeof ServiceMessageType];

export type Side = 'BUY' | 'SELL';
export type OrderStatus = 'PENDING' | 'SUCCESS' | 'FAILED' | 'INDETERMINATE';
export type OrderSubscriptionStatus = 'NOT_SUBSCRIBED' | 'SUBSCRIBED' | 'UNSUBSCRIBED';

// ---------------------------------------------------------------- client → service

export interface BeneficiaryDetails {
  beneficiaryId?: string;
  payoutCurrency?: string;
  networkId?: string;
}

export interface SenderDetails {
  senderId?: string;
  payinCurrency?: string;
  networkId?: string;
}

export interface SubscribeRequest {
  messageType: 'subscribe';
  instrument: string;
  /** Decimal string in `currency`; at most 8 decimals are honoured (W17). */
  quantity: string;
  currency: string;
  accountGrpUuid: string;
  tenor: string;
  tag?: string;
  beneficiaryDetails?: BeneficiaryDetails;
  senderDetails?: SenderDetails;
}

export interface UnsubscribeRequest {
  messageType: 'unsubscribe';
  subscriptionId: string;
}

/** W3: size, price, tenor and settleDate are never sent; the quote carries them. */
export interface OrderRequest {
  messageType: 'order';
  quoteId: string;
  side: Side;
  clientRequestId: string;
  autoSubscribe?: boolean;
}

export interface OrderUnsubscribeRequest {
  messageType: 'orderUnsubscribe';
  clientRequestId: string;
}

export interface AccountGroupsRequest {
  messageType: 'accountGroups';
  requestId?: string;
}

export type ClientMessage =
  SubscribeRequest | UnsubscribeRequest | OrderRequest | OrderUnsubscribeRequest | AccountGroupsRequest;

// ---------------------------------------------------------------- service → client

interface ServiceFrame {
  chanId: string;
  /** Epoch milliseconds when the frame was built. */
  timestamp: number;
}

/**
 * Frames whose fields the spec does not show (§4.2 "Remaining message payloads"): our reading of them
 * (docs/spec-gaps.md W5–W12) is a guess, so everything not needed to correlate and decide is optional and
 * the decoder accepts the frame without it (docs/spec-gaps.md "Liberal decoding").
 */
type GuessedFrame = Partial<ServiceFrame>;

/** §2.1 */
export interface SubscribeAck extends ServiceFrame {
  messageType: 'subscribe';
  success: boolean;
  message: string;
  subscriptionId: string;
  instrument: string;
  quantity: string;
  code?: string;
  tenor?: string;
  settleDate?: string;
  tag?: string;
  networkId?: string | null;
}

/** §2.2 side object */
export interface PriceSide {
  price: string;
  quantity: string;
  quoteAmount: string;
}

/** §2.2 — no subscriptionId: route by tag. */
export interface PriceUpdate extends ServiceFrame {
  messageType: 'pricestream';
  instrument: string;
  quoteId: string;
  offer: PriceSide;
  bid: PriceSide;
  tenor: string;
  settleDate?: string;
  tag?: string;
}

/** W10: correlated by subscriptionId or tag (at least one is present). */
export interface UnsubscribeReply extends GuessedFrame {
  messageType: 'unsubscribe';
  subscriptionId?: string;
  tag?: string;
  success?: boolean;
  message?: string;
}

/** W11 — no subscriptionId. */
export interface StreamStop extends GuessedFrame {
  messageType: 'streamStop';
  instrument?: string;
  tenor?: string;
  tag?: string;
  code?: string;
  message?: string;
}

/**
 * W5: the order-state record (§2.8) plus execution details on SUCCESS. Only `orderStatus` and one of
 * `clientRequestId`, `transactionId`, `quoteId` (to correlate) are required.
 */
export interface OrderReply extends GuessedFrame {
  messageType: 'order';
  clientRequestId?: string;
  transactionId?: string;
  quoteId?: string;
  side?: Side;
  orderStatus: OrderStatus;
  subscriptionStatus?: OrderSubscriptionStatus;
  sessionId?: string | null;
  code?: string;
  message?: string;
  instrument?: string;
  price?: string;
  quantity?: string;
  quoteAmount?: string;
  currency?: string;
  settleDate?: string;
  tradeRef?: string;
}

/** W8: correlated by clientRequestId. */
export interface OrderUnsubscribeReply extends GuessedFrame {
  messageType: 'orderUnsubscribe';
  clientRequestId: string;
  success?: boolean;
  subscriptionStatus?: OrderSubscriptionStatus;
  code?: string;
  message?: string;
}

/** W9 */
export interface ErrorFrame extends GuessedFrame {
  messageType: 'error';
  code?: string;
  message?: string;
}

/** W12: only `uuid` is required of an entry (the reply's fields are not shown, §2.3). */
export interface AccountGroupEntry {
  uuid: string;
  name?: string;
  natural?: boolean;
  ownerShortcode?: string;
}

export interface AccountGroupsReply extends GuessedFrame {
  messageType: 'accountGroups';
  requestId?: string;
  success?: boolean;
  accountGroups: AccountGroupEntry[];
}

export type ServiceMessage =
  | SubscribeAck
  | PriceUpdate
  | UnsubscribeReply
  | StreamStop
  | OrderReply
  | OrderUnsubscribeReply
  | ErrorFrame
  | AccountGroupsReply;

/** Defined with the venue's codes in errors/venue-codes.ts; re-exported here for existing importers. */
export { SandboxCode } from '../errors/venue-codes.js';

/** Close codes the venue uses (W9, W19). */
export const VenueCloseCode = {
  PolicyViolation: 1008,
  SessionReplaced: 4001,
} as const;

/** `/svc/ws/ws-client` (§4.2). */
export const WS_CLIENT_PATH = '/svc/ws/ws-client';
