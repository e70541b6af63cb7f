import { type DynamicModule, Global, Module } from '@nestjs/common';
import { Subjects } from '#contracts';
import { HealthRegistry, JsonLogger, MetricsRegistry } from '#observability';
import { VenueRestClient, VenueRestMetrics } from '#venue-api';
import { ACCOUNT_SYNC_CONFIG, type AccountSyncConfig } from '../config.js';
import { createVenueRestClient } from './venue-rest.js';

/** The venue REST operations account-sync calls: their throttle series exist from the start at 0 (docs/operations.md). */
const ACCOUNT_SYNC_REST_OPERATIONS = [
  'getBalances',
  'listTrades',
  'getAccountDetails',
  'listBeneficiaries',
  'listSenders',
  'listTransactions',
  'listTransfers',
  'getCreditLimits',
  'listPairs',
  'getWebhookSourceAddresses',
  'submitFiatWithdrawal',
  'submitCryptoWithdrawal',
  'cancelFiatWithdrawal',
  'cancelCryptoWithdrawal',
  'listFiatWithdrawals',
  'listCryptoWithdrawals',
] as const;

/**
 * What every part of the app shares (global): the validated config (`ACCOUNT_SYNC_CONFIG`), the one venue
 * REST client with its budget and metrics (`VenueRestClient`), and the account's NATS `Subjects`.
 */
@Global()
@Module({})
export class AccountSyncCoreModule {
  static forRoot(config: AccountSyncConfig): DynamicModule {
    return {
      module: AccountSyncCoreModule,
      providers: [
        { provide: ACCOUNT_SYNC_CONFIG, useValue: config },
        { provide: Subjects, useValue: new Subjects(config.NATS_SUBJECT_PREFIX, config.ACCOUNT) },
        {
          provide: VenueRestMetrics,
          useFactory: (registry: MetricsRegistry, health: HealthRegistry, logger: JsonLogger) => {
            const metrics = new VenueRestMetrics(registry, {
              logger: logger.child('venue-rest'),
              operations: ACCOUNT_SYNC_REST_OPERATIONS,
            });
            health.register('venue-rest', () => metrics.health());
            return metrics;
          },
          inject: [MetricsRegistry, HealthRegistry, JsonLogger],
        },
        {
          provide: VenueRestClient,
          useFactory: (metrics: VenueRestMetrics) => createVenueRestClient(config, metrics),
          inject: [VenueRestMetrics],
        },
      ],
      exports: [ACCOUNT_SYNC_CONFIG, Subjects, VenueRestMetrics, VenueRestClient],
    };
  }
}
