/**
 * The gateway's strategy SDK (docs/strategy-guide.md). Typed from libs/contracts: the payloads a strategy
 * receives are the contract's own types.
 */
import 'reflect-metadata'; // the contract classes' decorators (class-validator) need it loaded first
export { GatewayClient, type ConnectOptions } from './gateway-client.js';
export { GatewayError, ClientErrorCode, OutcomeUnknownError } from './gateway-error.js';
export type { ClientContext } from './client-context.js';
export { PricesApi, type PriceRequest, type PriceOptions } from './prices.js';
export { priceUpdate, type PriceUpdate } from './price-update.js';
export { StatusApi } from './status.js';
export { AccountGroupsApi, type AccountGroup } from './account-groups.js';
export { InspectApi, type StreamSummary, type ConsumerSummary } from './inspect.js';
export { OrdersApi, PlacedOrder, type OrderRequest, type PlaceOptions } from './orders.js';
export { TradingApi, type TradingChange } from './trading.js';
export { AccountApi, type TradeRecord, type Page, type KnownRecords, type PageProgress } from './account.js';
export { WithdrawalsApi, type WithdrawalRequest, type WithdrawalRef } from './withdrawals.js';
export type {
  OrderView,
  OrderEvent,
  OrderAccepted,
  OrderState,
  BalanceState,
  Freshness,
  TransactionLeg,
  TransactionStateChanged,
  WithdrawalView,
  WithdrawalListItem,
  TradingStateEntry,
  TradingStatesReply,
} from '#contracts';
export type {
  ConnectorStatus,
  PriceMessage,
  PriceSide,
  PriceStatus,
  SessionFailure,
  SessionFailureCode,
  SessionState,
} from '#contracts';
