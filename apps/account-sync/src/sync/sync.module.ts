import { type DynamicModule, Inject, Injectable, Module } from '@nestjs/common';
import { BusConnection, BusConsumers, BusKv, BusPublisher, BusResponder, BusStreams } from '#bus';
import { Subjects } from '#contracts';
import { HealthRegistry, JsonLogger, MetricsRegistry } from '#observability';
import { VenueRestClient } from '#venue-api';
import { ACCOUNT_SYNC_CONFIG, type AccountSyncConfig } from '../config.js';
import { AppLifecycle } from '../lifecycle/app-lifecycle.js';
import { TRANSACTION_INTAKE, type TransactionIntake } from '../transactions/transaction-intake.js';
import { AccountSyncRuntime } from './account-sync-runtime.js';
import { KNOWN_ACCOUNT_GROUPS, SYNC_TRIGGERS } from './sync-triggers.js';

/** Registers the sync as an `intake` part of the app's lifecycle. */
@Injectable()
class SyncLifecyclePart {
  constructor(@Inject(AccountSyncRuntime) runtime: AccountSyncRuntime, @Inject(AppLifecycle) lifecycle: AppLifecycle) {
    lifecycle.register('intake', { name: 'rest-sync', start: () => runtime.start(), stop: () => runtime.stop() });
  }
}

/**
 * The REST sync (§4.4–§4.11): provides `SYNC_TRIGGERS` (for the ledger and withdrawals) and `KNOWN_ACCOUNT_GROUPS`
 * (withdrawals) and, when the transaction ledger's module provides `TRANSACTION_INTAKE`, feeds it every
 * transaction-list record.
 */
@Module({})
export class SyncModule {
  static forRoot(): DynamicModule {
    return {
      module: SyncModule,
      global: true,
      providers: [
        {
          provide: AccountSyncRuntime,
          useFactory: (
            config: AccountSyncConfig,
            subjects: Subjects,
            connection: BusConnection,
            publisher: BusPublisher,
            responder: BusResponder,
            streams: BusStreams,
            consumers: BusConsumers,
            kv: BusKv,
            client: VenueRestClient,
            intake: TransactionIntake | undefined,
            metrics: MetricsRegistry,
            health: HealthRegistry,
            logger: JsonLogger,
          ) =>
            new AccountSyncRuntime(
              config,
              subjects,
              { connection, publisher, responder, streams, consumers, kv },
              client,
              intake ?? undefined,
              {
                metrics,
                health,
                logger,
              },
            ),
          inject: [
            ACCOUNT_SYNC_CONFIG,
            Subjects,
            BusConnection,
            BusPublisher,
            BusResponder,
            BusStreams,
            BusConsumers,
            BusKv,
            VenueRestClient,
            { token: TRANSACTION_INTAKE, optional: true },
            MetricsRegistry,
            HealthRegistry,
            JsonLogger,
          ],
        },
        { provide: SYNC_TRIGGERS, useExisting: AccountSyncRuntime },
        { provide: KNOWN_ACCOUNT_GROUPS, useExisting: AccountSyncRuntime },
        SyncLifecyclePart,
      ],
      exports: [SYNC_TRIGGERS, KNOWN_ACCOUNT_GROUPS, AccountSyncRuntime],
    };
  }
}
