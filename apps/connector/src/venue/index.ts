export { VENUE_OPTIONS, type VenueOptions, type ResolvedVenueOptions, withDefaults } from './venue-options.js';
export { VenueModule } from './venue.module.js';
export { VenueSide, type VenueSideDeps } from './venue-side.js';
export { VenueSession, type ConnectionEvent } from './session/venue-session.js';
export { CONTESTED_AFTER } from './session/session-machine.js';
export {
  PriceStreamRegistry,
  streamKey,
  QUOTE_LIFETIME_MS,
  type ReleaseRequest,
} from './prices/price-stream-registry.js';
export type { AcquireResult } from './prices/price-stream.js';
export type { SubscriptionLedger } from './prices/earlier-subscriptions.js';
export { OrderGateway, OrderNotSentError, type ReconcileHints, type SendGate } from './orders/order-gateway.js';
export {
  AccountGroupLookup,
  AccountGroupLookupError,
  type AccountGroup,
} from './account-groups/account-group-lookup.js';
export { VenueMetrics } from './venue-metrics.js';
export { OutboundLimiter } from './outbound/outbound-limiter.js';
export type { TokenSource, OrderStateSource, OrderStateView } from './rest/venue-sources.js';
export { systemClock, type VenueClock } from './clock.js';
