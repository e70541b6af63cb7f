import { type DynamicModule, Global, Module } from '@nestjs/common';
import { BusKv, serviceModules } from '#bus';
import { HealthRegistry, JsonLogger, lifecycleOf, MetricsRegistry, StartupProgress } from '#observability';
import { AccountSyncCoreModule } from './core/account-sync-core.module.js';
import type { AccountSyncConfig } from './config.js';
import { AppLifecycle } from './lifecycle/app-lifecycle.js';
import { openWriterLease } from './lease/writer-lease.js';
import { SyncModule } from './sync/sync.module.js';
import { TransactionsModule } from './transactions/transactions.module.js';
import { WebhooksModule } from './webhooks/webhooks.module.js';
import { WithdrawalsModule } from './withdrawals/withdrawals.module.js';

/** What the app does when it must stop writing at once (the lease lost): main.ts exits non-zero. */
export type FailStop = (reason: string) => void;

/** `AppLifecycle` for every module of the app (global), gated by the account's writer lease. */
@Global()
@Module({})
class AppLifecycleModule {
  static forRoot(config: AccountSyncConfig, failStop: FailStop): DynamicModule {
    return {
      module: AppLifecycleModule,
      providers: [
        {
          provide: AppLifecycle,
          useFactory: async (
            kv: BusKv,
            metrics: MetricsRegistry,
            health: HealthRegistry,
            logger: JsonLogger,
            startup: StartupProgress,
          ) => {
            const lease = await openWriterLease(config, {
              kv,
              metrics,
              health,
              logger: logger.child('Lease'),
              failStop,
            });
            return new AppLifecycle(logger.child('Lifecycle'), lease, failStop, config.SHUTDOWN_WAIT_MS, startup);
          },
          inject: [BusKv, MetricsRegistry, HealthRegistry, JsonLogger, StartupProgress],
        },
      ],
      exports: [AppLifecycle],
    };
  }
}

/**
 * The account-sync app: observability, NATS, the shared core (config, venue REST client with its budget,
 * subjects), then one module per part. A part's module registers its start/stop with `AppLifecycle`.
 * Parts: the REST sync (sync/), the transaction ledger (transactions/), the webhook receiver (webhooks/),
 * withdrawals (withdrawals/) — add a part's module to `partModules` below.
 */
@Module({})
export class AccountSyncAppModule {
  static forRoot(config: AccountSyncConfig, failStop: FailStop, startup?: StartupProgress): DynamicModule {
    return {
      module: AccountSyncAppModule,
      imports: [
        ...serviceModules('account-sync', config, undefined, startup),
        AccountSyncCoreModule.forRoot(config),
        AppLifecycleModule.forRoot(config, failStop),
        ...partModules(config),
      ],
      // Drives the registered parts (lifecycle/app-lifecycle.ts): starts them once every provider exists, and
      // stops them first at shutdown (this is the root module, so its destroy hook runs before the bus drains).
      providers: [lifecycleOf(AppLifecycle)],
    };
  }
}

/**
 * The app's parts, each a Nest module (one line per part). Within a phase their lifecycle parts start in Nest's
 * init order: the global modules (transactions, the REST sync) first, then the others in this order —
 * withdrawals before the webhooks, so a take-over answers withdrawal requests without waiting for the venue's
 * ips.json (the webhook sources' first fetch, a venue call; test/account-sync/withdrawals-takeover.e2e-spec.ts).
 */
function partModules(config: AccountSyncConfig): DynamicModule[] {
  return [
    TransactionsModule.forRoot(config),
    SyncModule.forRoot(),
    WithdrawalsModule.forRoot(),
    WebhooksModule.forRoot(),
  ];
}
