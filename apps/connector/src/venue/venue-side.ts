import type { JsonLogger, MetricsRegistry } from '#observability';
import { SandboxCode } from '#venue-api';
import { AccountGroupLookup } from './account-groups/account-group-lookup.js';
import { systemClock, type VenueClock } from './clock.js';
import { OrderGateway } from './orders/order-gateway.js';
import { OutboundLimiter } from './outbound/outbound-limiter.js';
import { PriceStreamRegistry } from './prices/price-stream-registry.js';
import { createVenueRestClient } from './rest/create-rest-client.js';
import { type OrderStateSource, RestVenueSources, type TokenSource } from './rest/venue-sources.js';
import { VenueSession, type VenueSessionDeps } from './session/venue-session.js';
import { type ResolvedVenueOptions, type VenueOptions, withDefaults } from './venue-options.js';
import { VenueMetrics } from './venue-metrics.js';

export interface VenueSideDeps extends VenueSessionDeps {
  clock?: VenueClock;
  /** Default: the venue REST client built from the options. */
  tokens?: TokenSource;
  orderStates?: OrderStateSource;
}

/** The venue side of the connector, wired: one session, its limiter, and the actors on top of it. */
export class VenueSide {
  readonly options: ResolvedVenueOptions;
  readonly metrics: VenueMetrics;
  readonly limiter: OutboundLimiter;
  readonly session: VenueSession;
  readonly prices: PriceStreamRegistry;
  readonly orders: OrderGateway;
  readonly accountGroups: AccountGroupLookup;
  private closed = false;

  constructor(options: VenueOptions, registry: MetricsRegistry, logger: JsonLogger, deps: VenueSideDeps = {}) {
    this.options = withDefaults(options);
    const clock = deps.clock ?? systemClock;
    this.metrics = new VenueMetrics(registry);
    let tokens = deps.tokens;
    let orderStates = deps.orderStates;
    if (tokens === undefined || orderStates === undefined) {
      const rest = new RestVenueSources(createVenueRestClient(this.options, this.metrics.rest));
      tokens ??= rest;
      orderStates ??= rest;
    }
    this.limiter = new OutboundLimiter(
      {
        messagesPerWindow: this.options.messagesPerSecond,
        // two thirds for subscribes and unsubscribes, spread; a third kept for orders (spec-gaps K1)
        othersPerWindow: Math.max(1, Math.floor((this.options.messagesPerSecond * 2) / 3)),
        windowMs: this.options.messageWindowMs,
        orderIntervalMs: this.options.orderIntervalMs,
        orderPaceMs: this.options.orderPaceMs,
        orderGap: {
          maxMs: this.options.orderIntervalMaxMs,
          stepMs: this.options.orderIntervalStepMs,
          narrowAfter: this.options.orderIntervalNarrowAfter,
        },
      },
      clock,
      this.metrics,
    );
    this.session = new VenueSession(this.options, tokens, this.metrics, logger, clock, deps);
    this.prices = new PriceStreamRegistry(this.session, this.limiter, this.metrics, logger, clock, {
      staleAfterMs: this.options.staleAfterMs,
      subscribeTimeoutMs: this.options.subscribeTimeoutMs,
      maxStreams: this.options.maxStreams,
      maxAheadMs: this.options.priceMaxAheadMs,
      ...(this.options.connectionPriceRate !== undefined
        ? { connectionPriceRate: this.options.connectionPriceRate }
        : {}),
    });
    this.orders = new OrderGateway(this.session, this.limiter, orderStates, this.metrics, logger, clock, {
      sessionId: this.options.sessionId,
      orderReplyTimeoutMs: this.options.orderReplyTimeoutMs,
      orderSendTimeoutMs: this.options.orderSendTimeoutMs,
      redeliveryGraceMs: this.options.redeliveryGraceMs,
      reconcileInitialMs: this.options.reconcileInitialMs,
      reconcileMaxMs: this.options.reconcileMaxMs,
      reconcileHorizonMs: this.options.reconcileHorizonMs,
    });
    this.accountGroups = new AccountGroupLookup(this.session, this.limiter, clock, this.options.accountGroupsTimeoutMs);
    // A frame of ours dropped for the account's message rate: the subscribes' share of the budget narrows (K1).
    this.session.addFrameListener((message) => {
      const refused =
        message.messageType === 'error' || (message.messageType === 'subscribe' && message.success === false);
      if (refused && message.code === SandboxCode.MessageRateLimited) this.limiter.venueDroppedFrame();
    });
    this.session.setTrafficExpectation(() => this.prices.expectsTraffic());
    this.session.addDrainHook(() => this.orders.drain());
  }

  /** Drains and closes the session, then stops every timer. Idempotent. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.session.stop();
    this.prices.close();
    this.orders.close();
    this.limiter.clear();
    this.session.dispose();
  }
}
