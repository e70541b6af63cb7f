/**
 * The back office's state, shared app-wide: configuration, the venue clock, users and keys, tokens, the
 * ledger, trades, transactions, withdrawals and webhooks. Global so the trading half can inject the seams
 * of `ports.ts` (VENUE_CLOCK, TOKEN_REGISTRY, USER_DIRECTORY, TRADE_BOOKING) and SANDBOX_CONFIG.
 */
import { type DynamicModule, Global, Module } from '@nestjs/common';
import { SANDBOX_CONFIG, type SandboxConfig } from '../config.js';
import { TOKEN_REGISTRY, TRADE_BOOKING, USER_DIRECTORY, VENUE_CLOCK } from '../ports.js';
import { VenueMetrics } from '../venue-metrics.js';
import { WebhookDispatcher } from '../webhooks/webhook-dispatcher.js';
import { WebhookIpList } from '../webhooks/webhook-ips.js';
import { SkewableClock } from './clock.js';
import { VenueDirectory } from './directory.js';
import { Ledger } from './ledger.js';
import { WsTokenRegistry } from './tokens.js';
import { TradeBook } from './trades.js';
import { TransactionBook } from './transactions.js';
import { TransferBook } from './transfers.js';
import { WithdrawalBook } from './withdrawals.js';

const classes = [
  SkewableClock,
  VenueDirectory,
  WsTokenRegistry,
  Ledger,
  TransactionBook,
  TradeBook,
  WithdrawalBook,
  TransferBook,
  WebhookDispatcher,
  WebhookIpList,
  VenueMetrics,
];

@Global()
@Module({})
export class BackOfficeModule {
  static forRoot(config: SandboxConfig): DynamicModule {
    const tokens = [SANDBOX_CONFIG, VENUE_CLOCK, TOKEN_REGISTRY, USER_DIRECTORY, TRADE_BOOKING];
    return {
      module: BackOfficeModule,
      providers: [
        ...classes,
        { provide: SANDBOX_CONFIG, useValue: config },
        { provide: VENUE_CLOCK, useExisting: SkewableClock },
        { provide: TOKEN_REGISTRY, useExisting: WsTokenRegistry },
        { provide: USER_DIRECTORY, useExisting: VenueDirectory },
        { provide: TRADE_BOOKING, useExisting: TradeBook },
      ],
      exports: [...classes, ...tokens],
    };
  }
}
