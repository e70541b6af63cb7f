/**
 * What an algo does after each code of the execution app: a refusal of `exec.order.place` (nothing stored, nothing
 * sent) passes by itself or it does not; a FAILED order was certainly not executed. docs/algo-guide.md §6 has a row
 * for every code here (apps/execution/src/api/order-codes-documented.spec.ts fails otherwise), and the type below
 * makes a new refusal code fail to compile until it is classified.
 */
import { RiskCode } from './risk-control.js';
import { ExecutionErrorCode } from './place-order.js';

/**
 * Whether the same request (same key, same payload) may pass if asked again:
 * - `same-key`: yes, it passes by itself (seconds, a window) — ask again with the same key, never a new one;
 * - `by-quote-request`: an order by quote request takes the next quote when asked again; an order by `quoteId` never
 *   passes on that quote (take a fresh one);
 * - `no`: the same request gets the same answer until the request or the gateway's state (limits, trading state) is
 *   changed. Nothing was stored: the key is free for the changed request.
 */
export type PlaceRetry = 'same-key' | 'by-quote-request' | 'no';

/** Codes `exec.order.place` answers `{ok:false}` with (ORDER_NOT_FOUND answers only the queries). */
export type PlaceRefusalCode =
  Exclude<(typeof ExecutionErrorCode)[keyof typeof ExecutionErrorCode], typeof ExecutionErrorCode.NotFound> | RiskCode;

export const PLACE_REFUSAL_RETRY: Readonly<Record<PlaceRefusalCode, PlaceRetry>> = {
  [ExecutionErrorCode.InvalidRequest]: 'no',
  [ExecutionErrorCode.IdempotencyKeyReused]: 'no',
  [ExecutionErrorCode.QuoteUnavailable]: 'same-key',
  [ExecutionErrorCode.QuoteRefused]: 'no',
  [ExecutionErrorCode.QuoteRequestInvalid]: 'no',
  [ExecutionErrorCode.Reconciling]: 'same-key',
  [ExecutionErrorCode.NotReady]: 'same-key',
  [ExecutionErrorCode.Stopping]: 'same-key',
  [ExecutionErrorCode.JournalUnavailable]: 'same-key',
  // an order under the key may be part-way: only the same key finds it
  [ExecutionErrorCode.Internal]: 'same-key',
  [ExecutionErrorCode.OrderBeingPlaced]: 'same-key',
  // final for that sendBy; the same key with a later sendBy is a new request
  [ExecutionErrorCode.SendByPassed]: 'no',
  // the queue ahead drains at the connector's pace: seconds
  [ExecutionErrorCode.OrderQueueFull]: 'same-key',
  [RiskCode.TradingHalted]: 'no',
  [RiskCode.TradingReducingOnly]: 'no',
  [RiskCode.TradingStateUnavailable]: 'same-key',
  [RiskCode.QuoteUnknown]: 'no',
  [RiskCode.QuoteNotLive]: 'by-quote-request',
  [RiskCode.QuoteStale]: 'by-quote-request',
  [RiskCode.QuoteExpired]: 'by-quote-request',
  [RiskCode.QuoteIncomplete]: 'by-quote-request',
  [RiskCode.QuoteSizeExhausted]: 'by-quote-request',
  [RiskCode.PriceWorseThanLimit]: 'by-quote-request',
  [RiskCode.InstrumentInvalid]: 'no',
  [RiskCode.InstrumentNotAllowed]: 'no',
  [RiskCode.StrategyNotConfigured]: 'no',
  [RiskCode.AccountGroupNotConfigured]: 'no',
  [RiskCode.LimitsInvalid]: 'no',
  [RiskCode.NotionalExceedsMaxPerOrder]: 'no',
  [RiskCode.NotionalExceedsMaxPerMinute]: 'same-key',
  [RiskCode.OrderRateExceedsMaxPerSecond]: 'same-key',
  [RiskCode.OrderRateExceedsMaxPerMinute]: 'same-key',
  [RiskCode.ExposureExceedsMax]: 'no',
  [RiskCode.AdmissionContended]: 'same-key',
};

/** How a code of a refusal is classed (undefined: not a code `exec.order.place` answers). */
export function placeRetryOf(code: string): PlaceRetry | undefined {
  return Object.prototype.hasOwnProperty.call(PLACE_REFUSAL_RETRY, code)
    ? PLACE_REFUSAL_RETRY[code as PlaceRefusalCode]
    : undefined;
}

/**
 * FAILED codes the execution app gives an order itself (the connector's are `OrderNotSentCode`, the venue's pass
 * through): certainly not executed.
 */
export const ExecutionFailureCode = {
  /** The quote expired and neither the order-state endpoint nor the trade list knows the order. */
  NotExecuted: 'NOT_EXECUTED',
  /** The venue said FAILED without a code. */
  Failed: 'FAILED',
} as const;
