import { Counter, Gauge, Histogram } from 'prom-client';
import type { MetricsRegistry } from '#observability';
import { ORDER_OUTCOME_SOURCES, type SessionState } from '#contracts';
import { LIBERALLY_READ_MESSAGE_TYPES, SandboxCode, VenueCode, VenueRestMetrics, venueCodesOf } from '#venue-api';
import { HopHistogram } from './hop-histogram.js';
import { PACE_BOUNDS } from './outbound/order-pace.js';
import { LOSS_REASONS } from './session/session-machine.js';

const SESSION_STATES: readonly SessionState[] = [
  'idle',
  'fetchingToken',
  'connecting',
  'open',
  'backoff',
  'draining',
  'stopped',
];

/** Order codes worth their own label value; anything else is `other` so the label stays bounded. */
const KNOWN_ORDER_CODES = new Set<string>([
  VenueCode.QuoteExpired,
  VenueCode.QuoteOfAnotherUser,
  VenueCode.QuoteQuantityUsedUp,
  SandboxCode.InvalidOrder,
  SandboxCode.OrderRateLimited,
  'NOT_SENT',
]);

/** Codes of the venue's `error` frames (W9) worth their own label value; anything else is `other`. */
export const KNOWN_ERROR_FRAME_CODES: readonly string[] = [
  SandboxCode.InvalidSessionId,
  SandboxCode.SessionReplaced,
  SandboxCode.MessageRateLimited,
  SandboxCode.InvalidMessage,
];

/** Why an unsubscribe was sent again: no answer in time, or prices still came under its tag long after. */
export const UNSUBSCRIBE_RESEND_REASONS = ['unanswered', 'streaming'] as const;
export type UnsubscribeResendReason = (typeof UNSUBSCRIBE_RESEND_REASONS)[number];

/** Released subscriptions the venue has not confirmed ended, read at scrape time. */
export interface UnconfirmedReleases {
  /** Every release not yet answered. */
  unconfirmed: number;
  /** Those whose tag still streamed prices lately, long after the unsubscribe left. */
  orphans: number;
}

/** The venue REST calls the connector makes (the token before each connect, order-state lookups). */
const CONNECTOR_REST_OPERATIONS = ['createWebSocketToken', 'getOrderState'] as const;

export interface UnresolvedOrders {
  count: number;
  oldestAgeMs: number | undefined;
}

/**
 * Why a venue frame was not acted on: `invalid` (not the shape of its type), `unknown_type` (a messageType the spec
 * does not show — the sandbox's off-contract heartbeat, W30), `unknown_tag` (a price for a tag no stream holds),
 * `timestamp_ahead` (K8).
 */
export const FRAME_REJECTIONS = ['invalid', 'unknown_type', 'unknown_tag', 'timestamp_ahead'] as const;
export type FrameRejection = (typeof FRAME_REJECTIONS)[number];
export type OutboundKind = 'order' | 'subscribe' | 'unsubscribe' | 'orderUnsubscribe' | 'accountGroups';

/** Every metric of the venue side, on the app's registry. Labels are bounded by construction. */
export class VenueMetrics {
  readonly sessionState: Gauge<'state'>;
  readonly reconnects: Counter<'reason'>;
  readonly leftoverSubscriptionsEnded: Counter;
  readonly tokenFetchSeconds: Histogram<'result'>;
  readonly priceUpdates: Counter;
  readonly priceHopSeconds: HopHistogram;
  readonly staleStreams: Gauge;
  readonly staleAfterSeconds: Gauge;
  readonly outOfOrderDropped: Counter;
  readonly clockStepsBack: Counter;
  readonly venueClockLagSeconds: Gauge;
  private venueClockLag: () => number = () => 0;
  readonly pricesExpiredOnArrival: Counter;
  readonly framesRejected: Counter<'reason'>;
  readonly frameOddities: Counter<'messageType'>;
  readonly uncorrelatedReplies: Counter;
  readonly reconciliationsExpired: Counter;
  readonly outcomeContradictions: Counter<'source'>;
  readonly unresolvedOrders: Gauge;
  readonly oldestUnresolvedSeconds: Gauge;
  private unresolved: () => UnresolvedOrders = () => ({ count: 0, oldestAgeMs: undefined });
  readonly sessionReplacements: Gauge;
  private replacements: () => number = () => 0;
  readonly rateLimitWaits: Counter<'kind'>;
  readonly orderGapSeconds: Gauge;
  readonly orderRateLimited: Counter;
  readonly orderPaceWaitSeconds: Histogram<'bound'>;
  readonly orders: Counter<'status' | 'code'>;
  readonly orderReplySeconds: Histogram<'phase'>;
  readonly subscribeFailures: Counter<'code'>;
  readonly errorFrames: Counter<'code'>;
  readonly unsubscribesResent: Counter<'reason'>;
  readonly unconfirmedUnsubscribes: Gauge;
  readonly orphanSubscriptions: Gauge;
  private releases: () => UnconfirmedReleases = () => ({ unconfirmed: 0, orphans: 0 });
  readonly streamFramesPerWindow: Gauge;
  /** The venue REST client's calls: the `venue_rest_*` series every app calling the venue's REST API shares. */
  readonly rest: VenueRestMetrics;

  /** The session tells how to count its recent replacements; read at scrape time. */
  watchSessionReplacements(read: () => number): void {
    this.replacements = read;
  }

  /** The price registry tells how far behind the venue's latest price was on arrival (ms); read at scrape time. */
  watchVenueClockLag(read: () => number): void {
    this.venueClockLag = read;
  }

  /** The price registry tells how to count its unconfirmed releases; read at scrape time. */
  watchUnconfirmedReleases(read: () => UnconfirmedReleases): void {
    this.releases = read;
  }

  /** The order gateway tells how to read its open orders; read at scrape time. */
  watchUnresolvedOrders(read: () => UnresolvedOrders): void {
    this.unresolved = read;
  }

  constructor(registry: MetricsRegistry) {
    const registers = [registry];
    this.sessionState = new Gauge({
      name: 'connector_session_state',
      help: 'Venue session state: 1 for the current state, 0 for the others',
      labelNames: ['state'],
      registers,
    });
    for (const state of SESSION_STATES) this.sessionState.set({ state }, state === 'idle' ? 1 : 0);
    this.reconnects = new Counter({
      name: 'connector_venue_reconnects_total',
      help: 'Venue connections left for a new one, by reason (closed, stalled, refresh, replaced)',
      labelNames: ['reason'],
      registers,
    });
    for (const reason of LOSS_REASONS) this.reconnects.inc({ reason }, 0);
    const replacements = () => this.replacements();
    this.sessionReplacements = new Gauge({
      name: 'connector_venue_session_replacements_recent',
      help: 'Times within SESSION_CONTESTED_WINDOW_MS (5 min) the venue closed the session for another connection with the same sessionId; 2 or more: another client uses VENUE_SESSION_ID',
      registers,
      collect() {
        this.set(replacements());
      },
    });
    this.tokenFetchSeconds = new Histogram({
      name: 'connector_token_fetch_seconds',
      help: 'Latency of the REST token fetch before each connect',
      labelNames: ['result'],
      buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
      registers,
    });
    this.priceUpdates = new Counter({
      name: 'connector_price_updates_total',
      help: 'Venue price updates published',
      registers,
    });
    this.priceHopSeconds = new HopHistogram(
      'connector_price_hop_seconds',
      'Venue frame arrival to PriceMessage emitted',
      [0.00001, 0.000025, 0.00005, 0.0001, 0.0002, 0.0003, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.05],
      registers,
    );
    this.staleStreams = new Gauge({
      name: 'connector_stale_streams',
      help: 'Price streams currently stale',
      registers,
    });
    this.staleAfterSeconds = new Gauge({
      name: 'connector_price_stale_after_seconds',
      help: "Silence after which a price stream is stale: PRICE_STALE_AFTER_MS, or two turns of a cadence the connection's streams share (W13)",
      registers,
    });
    this.outOfOrderDropped = new Counter({
      name: 'connector_price_out_of_order_dropped_total',
      help: 'Price updates dropped because their venue timestamp was not newer than the last one',
      registers,
    });
    this.clockStepsBack = new Counter({
      name: 'connector_price_clock_steps_back_total',
      help: "Price updates older than the stream's newest by more than PRICE_STALE_AFTER_MS, taken as the venue's clock stepping back (the stream's order starts again)",
      registers,
    });
    const lag = () => this.venueClockLag();
    this.venueClockLagSeconds = new Gauge({
      name: 'connector_venue_clock_lag_seconds',
      help: "How far behind this host's clock the venue timestamp of the latest price update was on arrival (transit included; 0 before the first and once none arrived within the stale period: never the lag of a price long gone): near 0 normally, a quote's life (600) or more and every price is stale QUOTE_EXPIRED_ON_ARRIVAL",
      registers,
      collect() {
        this.set(lag() / 1000);
      },
    });
    this.pricesExpiredOnArrival = new Counter({
      name: 'connector_prices_expired_on_arrival_total',
      help: "Venue price updates already past their quote's life by this host's clock on arrival (a venue clock behind): published stale with code QUOTE_EXPIRED_ON_ARRIVAL, never live",
      registers,
    });
    this.leftoverSubscriptionsEnded = new Counter({
      name: 'connector_leftover_subscriptions_ended_total',
      help: 'Subscriptions of an earlier life of this connector found streaming at the venue (held across the restart) and unsubscribed',
      registers,
    });
    this.framesRejected = new Counter({
      name: 'connector_venue_frames_rejected_total',
      help: 'Venue frames not acted on: invalid, a messageType the spec does not show (unknown_type), a price for an unknown tag, or stamped ahead',
      labelNames: ['reason'],
      registers,
    });
    this.frameOddities = new Counter({
      name: 'connector_venue_frame_oddities_total',
      help: 'Venue frames accepted after dropping fields of an unexpected type (fields the spec does not show)',
      labelNames: ['messageType'],
      registers,
    });
    // at 0 from the start: a venue format that moved shows as a rise on the dashboard, not as a new series
    for (const messageType of LIBERALLY_READ_MESSAGE_TYPES) this.frameOddities.inc({ messageType }, 0);
    this.uncorrelatedReplies = new Counter({
      name: 'connector_order_replies_uncorrelated_total',
      help: 'Order replies matching no order of this process by clientRequestId, transactionId or quoteId',
      registers,
    });
    this.reconciliationsExpired = new Counter({
      name: 'connector_order_reconciliations_expired_total',
      help: 'Orders still without a final outcome when the venue retention (24 h) ended; the trade list decides',
      registers,
    });
    this.outcomeContradictions = new Counter({
      name: 'connector_order_outcome_contradictions_total',
      help: 'Final order statuses from the venue contradicting the final outcome already published (kept, never published), by source',
      labelNames: ['source'],
      registers,
    });
    for (const source of ORDER_OUTCOME_SOURCES) this.outcomeContradictions.inc({ source }, 0);
    const read = () => this.unresolved();
    this.unresolvedOrders = new Gauge({
      name: 'connector_orders_unresolved',
      help: 'Orders sent or seen without a final outcome yet (awaiting a reply or being reconciled)',
      registers,
      collect() {
        this.set(read().count);
      },
    });
    this.oldestUnresolvedSeconds = new Gauge({
      name: 'connector_order_oldest_unresolved_seconds',
      help: 'Age of the oldest order without a final outcome, from when it was sent or marked (0 when none)',
      registers,
      collect() {
        this.set((read().oldestAgeMs ?? 0) / 1000);
      },
    });
    this.rateLimitWaits = new Counter({
      name: 'connector_rate_limit_waits_total',
      help: 'Outbound venue messages that had to wait for the client-side limiter',
      labelNames: ['kind'],
      registers,
    });
    this.orderGapSeconds = new Gauge({
      name: 'connector_order_gap_seconds',
      help: 'Least gap between two order frames now, counted from our send: the configured interval, wider after the venue refused orders for their pace (an order also waits VENUE_ORDER_PACE_MS from the venue first answer to the previous one: connector_order_pace_wait_seconds)',
      registers,
    });
    this.orderPaceWaitSeconds = new Histogram({
      name: 'connector_order_pace_wait_seconds',
      help: "How long an order waited for its pace, by the bound that held it when it left: gap (our previous send + the order gap), answer (the venue's first answer to the previous order + VENUE_ORDER_PACE_MS) or unanswered (no answer came: let go at the previous send + VENUE_ORDER_INTERVAL_MAX_MS)",
      labelNames: ['bound'],
      buckets: [0.01, 0.05, 0.1, 0.25, 0.3, 0.5, 0.75, 1, 2, 5],
      registers,
    });
    for (const bound of PACE_BOUNDS) this.orderPaceWaitSeconds.zero({ bound });
    this.orderRateLimited = new Counter({
      name: 'connector_order_rate_limited_total',
      help: 'Orders the venue refused for the pace of the account (ORDER_RATE_LIMITED); each one widens the order gap',
      registers,
    });
    this.orders = new Counter({
      name: 'connector_orders_total',
      help: 'Order outcomes published, by status and code (known codes only, else other)',
      labelNames: ['status', 'code'],
      registers,
    });
    this.orderReplySeconds = new Histogram({
      name: 'connector_order_reply_seconds',
      help: 'Order frame sent to the first reply (accepted) and to the final outcome',
      labelNames: ['phase'],
      buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
      registers,
    });
    this.subscribeFailures = new Counter({
      name: 'connector_subscribe_failures_total',
      help: 'Venue subscribe refusals by code (venue codes are a bounded set)',
      labelNames: ['code'],
      registers,
    });
    // the runbook's checks read these two: at 0 from the start, "none" is not "no data"
    for (const code of new Set(venueCodesOf('subscribe').map(subscribeCodeLabel))) {
      this.subscribeFailures.inc({ code }, 0);
    }
    for (const reason of FRAME_REJECTIONS) this.framesRejected.inc({ reason }, 0);
    this.errorFrames = new Counter({
      name: 'connector_venue_error_frames_total',
      help: 'Venue error frames (W9) by code: known codes, else other. MESSAGE_RATE_LIMITED: a frame of ours was dropped',
      labelNames: ['code'],
      registers,
    });
    for (const code of [...KNOWN_ERROR_FRAME_CODES, 'other']) this.errorFrames.inc({ code }, 0);
    this.unsubscribesResent = new Counter({
      name: 'connector_venue_unsubscribes_resent_total',
      help: 'Unsubscribes sent again: unanswered in time, or prices still streaming under a released tag (an orphan subscription being ended)',
      labelNames: ['reason'],
      registers,
    });
    for (const reason of UNSUBSCRIBE_RESEND_REASONS) this.unsubscribesResent.inc({ reason }, 0);
    const releases = () => this.releases();
    this.unconfirmedUnsubscribes = new Gauge({
      name: 'connector_venue_unsubscribes_unconfirmed',
      help: 'Released venue subscriptions whose unsubscribe the venue has not answered yet',
      registers,
      collect() {
        this.set(releases().unconfirmed);
      },
    });
    this.orphanSubscriptions = new Gauge({
      name: 'connector_venue_orphan_subscriptions',
      help: 'Released venue subscriptions still streaming prices long after their unsubscribe left (being ended again)',
      registers,
      collect() {
        this.set(releases().orphans);
      },
    });
    this.streamFramesPerWindow = new Gauge({
      name: 'connector_stream_frames_per_window',
      help: 'Subscribes and unsubscribes the limiter lets leave per window now: narrower after the venue dropped frames of ours (MESSAGE_RATE_LIMITED)',
      registers,
    });
    this.rest = new VenueRestMetrics(registry, { operations: CONNECTOR_REST_OPERATIONS });
  }

  setSessionState(state: SessionState): void {
    for (const s of SESSION_STATES) this.sessionState.set({ state: s }, s === state ? 1 : 0);
  }

  countOrder(status: string, code: string): void {
    this.orders.inc({ status, code: orderCodeLabel(code) });
  }

  countErrorFrame(code: string | undefined): void {
    this.errorFrames.inc({ code: code !== undefined && KNOWN_ERROR_FRAME_CODES.includes(code) ? code : 'other' });
  }

  countSubscribeFailure(code: string): void {
    this.subscribeFailures.inc({ code: subscribeCodeLabel(code) });
  }
}

/** A venue code as its own label, the rest as `none` / `other` (bounded). */
function subscribeCodeLabel(code: string): string {
  return /^(RFS|PRE)\d{6}$/.test(code) ? code : code === '' ? 'none' : 'other';
}

export function orderCodeLabel(code: string): string {
  if (code === '') return 'none';
  return KNOWN_ORDER_CODES.has(code) ? code : 'other';
}
