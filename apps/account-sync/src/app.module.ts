import {
  type DynamicModule,
  Global,
  Inject,
  Injectable,
  Module,
  type OnApplicationBootstrap,
  type OnModuleDestroy,
} from '@nestjs/common';
import { BusModule } from '#bus';
import { JsonLogger, ObservabilityModule } from '#observability';
import { AccountSyncCoreModule } from './core/account-sync-core.module.js';
import type { AccountSyncConfig } from './config.js';
import { AppLifecycle } from './lifecycle/app-lifecycle.js';
import { SyncModule } from './sync/sync.module.js';
import { TransactionsModule } from './transactions/transactions.module.js';
import { WebhooksModule } from './webhooks/webhooks.module.js';
import { WithdrawalsModule } from './withdrawals/withdrawals.module.js';

/**
 * Drives the registered parts (lifecycle/app-lifecycle.ts): starts them once every provider exists, and stops
 * them first at shutdown (this is the root module, so its destroy hook runs before the bus drains).
 */
@Injectable()
class AccountSyncLifecycle implements OnApplicationBootstrap, OnModuleDestroy {
  constructor(@Inject(AppLifecycle) private readonly lifecycle: AppLifecycle) {}
  async onApplicationBootstrap(): Promise<void> {
    await this.lifecycle.start();
  }
  async onModuleDestroy(): Promise<void> {
    await this.lifecycle.stop();
  }
}

/** `AppLifecycle` for every module of the app (global). */
@Global()
@Module({
  providers: [
    {
      provide: AppLifecycle,
      useFactory: (logger: JsonLogger) => new AppLifecycle(logger.child('Lifecycle')),
      inject: [JsonLogger],
    },
  ],
  exports: [AppLifecycle],
})
class AppLifecycleModule {}

/**
 * The account-sync app: observability, NATS, the shared core (config, venue REST client with its budget,
 * subjects), then one module per part. A part's module registers its start/stop with `AppLifecycle`.
 * Parts: the REST sync (sync/), the transaction ledger (transactions/), the webhook receiver (webhooks/),
 * withdrawals (withdrawals/) — add a part's module to `partModules` below.
 */
@Module({})
export class AccountSyncAppModule {
  static forRoot(config: AccountSyncConfig): DynamicModule {
    return {
      module: AccountSyncAppModule,
      imports: [
        ObservabilityModule.forRoot({ app: 'account-sync', defaultMetrics: config.DEFAULT_METRICS }),
        BusModule.forRootAsync({
          useFactory: () => ({ servers: config.NATS_URL.split(','), name: `account-sync-${config.ACCOUNT}` }),
        }),
        AccountSyncCoreModule.forRoot(config),
        AppLifecycleModule,
        ...partModules(config),
      ],
      providers: [AccountSyncLifecycle],
    };
  }
}

/** The app's parts, each a Nest module (one line per part). */
function partModules(config: AccountSyncConfig): DynamicModule[] {
  return [
    TransactionsModule.forRoot(config),
    SyncModule.forRoot(),
    WebhooksModule.forRoot(),
    WithdrawalsModule.forRoot(),
  ];
}
