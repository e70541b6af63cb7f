import { type DynamicModule, Global, Module } from '@nestjs/common';
import { Registry } from 'prom-client';
import { MetricsRegistry } from '#observability';
import { SANDBOX_CONFIG, type SandboxConfig } from '../config.js';
import {
  ORDER_RECORDS,
  TRADE_BOOKING,
  USER_DIRECTORY,
  VENUE_CLOCK,
  type TradeBooking,
  type UserDirectory,
  type VenueClock,
} from '../ports.js';
import { MarketAdminController } from './admin/market-admin.controller.js';
import { WsFaultsAdminController } from './admin/ws-faults-admin.controller.js';
import { WsFaults } from './faults/ws-faults.js';
import { Market } from './market/market.js';
import { OrderDesk } from './orders/order-desk.js';
import { OrderJournal } from './orders/order-journal.js';
import { QuoteBook } from './quotes/quote-book.js';
import { AccountLimits } from './socket/account-limits.js';
import { ConnectionRegistry } from './socket/connection-registry.js';
import { TradingSocketServer } from './socket/trading-socket-server.js';
import { SubscriptionDesk } from './subscriptions/subscription-desk.js';
import { TRADING_CONFIG, tradingConfigFromEnv, type TradingConfig } from './trading-config.js';
import { TradingMetrics } from './trading-metrics.js';

/** Optional overrides of the trading configuration (tests, the bootstrap). */
export const TRADING_CONFIG_OVERRIDES = Symbol('TradingConfigOverrides');

/**
 * The trading half of the sandbox venue: market, quotes, the WebSocket (`TradingSocketServer.attach`),
 * orders, and their admin controls. Global so the back office can inject ORDER_RECORDS (§4.10).
 * Needs VENUE_CLOCK, TOKEN_REGISTRY, USER_DIRECTORY and TRADE_BOOKING from the back office's global module.
 */
@Global()
@Module({
  controllers: [MarketAdminController, WsFaultsAdminController],
  providers: [
    {
      provide: TRADING_CONFIG,
      inject: [
        { token: SANDBOX_CONFIG, optional: true },
        { token: TRADING_CONFIG_OVERRIDES, optional: true },
      ],
      useFactory: (sandbox?: SandboxConfig, overrides?: Partial<TradingConfig>): TradingConfig =>
        tradingConfigFromEnv(process.env, {
          ...(sandbox !== undefined && { dialect: sandbox.dialect }),
          ...sandbox?.trading,
          ...overrides,
        }),
    },
    {
      provide: TradingMetrics,
      inject: [{ token: MetricsRegistry, optional: true }],
      useFactory: (registry?: MetricsRegistry) => new TradingMetrics(registry ?? new Registry()),
    },
    { provide: WsFaults, useFactory: () => new WsFaults() },
    { provide: ConnectionRegistry, useFactory: () => new ConnectionRegistry() },
    {
      provide: Market,
      inject: [TRADING_CONFIG],
      useFactory: (config: TradingConfig) => new Market(config.marketSeed),
    },
    {
      provide: QuoteBook,
      inject: [TRADING_CONFIG, TradingMetrics],
      useFactory: (config: TradingConfig, metrics: TradingMetrics) => {
        const book = new QuoteBook(config.quoteTtlMs, config.quoteLimit, () => metrics.quoteForgottenEarly());
        metrics.watchQuotes(() => book.size());
        return book;
      },
    },
    {
      provide: AccountLimits,
      inject: [TRADING_CONFIG],
      useFactory: (config: TradingConfig) => new AccountLimits(config.messagesPerSecond, config.orderSpacingMs),
    },
    {
      provide: OrderJournal,
      inject: [VENUE_CLOCK, TRADING_CONFIG],
      useFactory: (clock: VenueClock, config: TradingConfig) => new OrderJournal(clock, config.orderRetentionMs),
    },
    { provide: ORDER_RECORDS, useExisting: OrderJournal },
    {
      provide: SubscriptionDesk,
      inject: [Market, QuoteBook, USER_DIRECTORY, VENUE_CLOCK, TRADING_CONFIG, WsFaults, TradingMetrics],
      useFactory: (
        market: Market,
        quotes: QuoteBook,
        directory: UserDirectory,
        clock: VenueClock,
        config: TradingConfig,
        faults: WsFaults,
        metrics: TradingMetrics,
      ) => new SubscriptionDesk(market, quotes, directory, clock, config, faults, metrics),
    },
    {
      provide: OrderDesk,
      inject: [
        OrderJournal,
        QuoteBook,
        TRADE_BOOKING,
        ConnectionRegistry,
        AccountLimits,
        VENUE_CLOCK,
        WsFaults,
        TradingMetrics,
        TRADING_CONFIG,
      ],
      useFactory: (
        journal: OrderJournal,
        quotes: QuoteBook,
        booking: TradeBooking,
        connections: ConnectionRegistry,
        limits: AccountLimits,
        clock: VenueClock,
        faults: WsFaults,
        metrics: TradingMetrics,
        config: TradingConfig,
      ) =>
        new OrderDesk(
          journal,
          quotes,
          booking,
          connections,
          limits,
          clock,
          faults,
          metrics,
          config.executionDelayMs,
          config.dialect.orderReply,
        ),
    },
    TradingSocketServer,
  ],
  exports: [TradingSocketServer, ORDER_RECORDS, Market, WsFaults, TRADING_CONFIG],
})
export class TradingModule {
  /** The module with some configuration fields fixed (tests; environment and SANDBOX_CONFIG otherwise). */
  static withConfig(overrides: Partial<TradingConfig>): DynamicModule {
    return {
      module: TradingModule,
      providers: [{ provide: TRADING_CONFIG_OVERRIDES, useValue: overrides }],
    };
  }
}
