/**
 * The venue's REST interface (§4.3–§4.12, §5, §7, §8) as a typed client.
 *
 *   const client = new VenueRestClient({ baseUrl, apiKey, apiSecret, antiReplay: new TonceSource() });
 *   const page = await client.listTrades({ max: 200 });          // Page<Trade>, decimals as strings
 *   for await (const trade of client.iterateTrades({ tradeClass: 'RFS' })) { ... }
 *
 * Failures are `VenueRestError` subclasses (errors.ts) carrying the venue's own code and message. Choices
 * where the spec is silent: docs/spec-gaps.md C5–C8.
 */
export * from './paths.js';
export * from './errors.js';
export * from './client-config.js';
export * from './rate-limiter.js';
export { freshConnectionFetch, FreshConnectionFailure, type FetchFunction } from './fresh-connection-fetch.js';
export * from './venue-rest-client.js';
export * from './venue-rest-metrics.js';
export * from './requests.js';
export { walkPages, walkToTotal, type Listing, type PageFetcher } from './pagination.js';
export { retryAfterMs, type EndpointFamily } from './response-outcome.js';
export * from './records/common.js';
export * from './records/trade.js';
export * from './records/participant.js';
export * from './records/balances.js';
export * from './records/withdrawal.js';
export * from './records/order-state.js';
export * from './records/transaction.js';
export * from './records/transfer.js';
export * from './records/user-limit.js';
export * from './records/pair.js';
export { plainJson, type PlainJson, type PlainFields } from './records/liberal.js';
export * from './records/webhook-ips.js';
export * from './records/token.js';
export { ShapeError } from './records/shape.js';
