/**
 * The transaction ledger part: provides `TRANSACTION_INTAKE` (the webhook receiver and the REST sync feed
 * it), declares the transaction stream at start (phase `store`: first up, last down, drained at stop), and
 * answers transaction queries (phase `intake`).
 */
import { type DynamicModule, Inject, Injectable, Module, type OnModuleInit } from '@nestjs/common';
import { ModuleRef } from '@nestjs/core';
import {
  AccountLedgerName,
  accountLedgerStreams,
  BusConnection,
  BusResponder,
  BusStreams,
  SubjectLedger,
  type BusSubscription,
} from '#bus';
import { TransactionSubjects } from '#contracts';
import { HealthRegistry, JsonLogger, MetricsRegistry } from '#observability';
import { ACCOUNT_SYNC_CONFIG, type AccountSyncConfig } from '../config.js';
import { AppLifecycle } from '../lifecycle/app-lifecycle.js';
import { SYNC_TRIGGERS, type SyncTriggers } from '../sync/sync-triggers.js';
import { TRANSACTION_INTAKE } from './transaction-intake.js';
import { TransactionLedger } from './transaction-ledger.js';
import { TransactionMetrics } from './transaction-metrics.js';
import { answerTransactionQueries } from './transaction-queries.js';

export function ledgerSettingsOf(config: AccountSyncConfig) {
  return {
    duplicateWindowMs: config.ACCOUNT_EVENT_DUPLICATE_WINDOW_MS,
    retentionMs: config.TRANSACTION_RETENTION_MS,
    replicas: config.NATS_REPLICAS,
  };
}

@Injectable()
class TransactionsPart implements OnModuleInit {
  private queries: BusSubscription | undefined;

  constructor(
    @Inject(ACCOUNT_SYNC_CONFIG) private readonly config: AccountSyncConfig,
    @Inject(TRANSACTION_INTAKE) private readonly ledger: TransactionLedger,
    @Inject(BusStreams) private readonly streams: BusStreams,
    @Inject(BusResponder) private readonly responder: BusResponder,
    @Inject(AppLifecycle) private readonly lifecycle: AppLifecycle,
    @Inject(HealthRegistry) private readonly health: HealthRegistry,
    @Inject(ModuleRef) private readonly modules: ModuleRef,
  ) {}

  onModuleInit(): void {
    const { config } = this;
    const subjects = new TransactionSubjects(config.NATS_SUBJECT_PREFIX, config.ACCOUNT);
    this.health.register('transaction-ledger', () => this.ledger.health());
    this.lifecycle.register('store', {
      name: 'transaction-ledger',
      start: async () => {
        const stream = AccountLedgerName.transactions(config.ACCOUNT);
        for (const definition of accountLedgerStreams(
          config.NATS_SUBJECT_PREFIX,
          config.ACCOUNT,
          ledgerSettingsOf(config),
        )) {
          if (definition.name === stream) await this.streams.ensureStream(definition);
        }
        const triggers = this.optionalTriggers();
        if (triggers !== undefined) this.ledger.useSyncTriggers(triggers);
      },
      stop: () => this.ledger.drained(),
    });
    this.lifecycle.register('intake', {
      name: 'transaction-queries',
      start: async () => {
        this.queries = answerTransactionQueries(this.responder, subjects, this.ledger);
      },
      stop: async () => this.queries?.unsubscribe(),
    });
  }

  private optionalTriggers(): SyncTriggers | undefined {
    try {
      return this.modules.get<SyncTriggers>(SYNC_TRIGGERS, { strict: false });
    } catch {
      return undefined;
    }
  }
}

@Module({})
export class TransactionsModule {
  static forRoot(config: AccountSyncConfig): DynamicModule {
    return {
      module: TransactionsModule,
      global: true,
      providers: [
        {
          provide: TransactionMetrics,
          useFactory: (registry: MetricsRegistry) => new TransactionMetrics(registry),
          inject: [MetricsRegistry],
        },
        {
          provide: TRANSACTION_INTAKE,
          useFactory: (connection: BusConnection, metrics: TransactionMetrics, logger: JsonLogger) =>
            new TransactionLedger(
              new SubjectLedger(connection, AccountLedgerName.transactions(config.ACCOUNT)),
              new TransactionSubjects(config.NATS_SUBJECT_PREFIX, config.ACCOUNT),
              metrics,
              logger.child('TransactionLedger'),
            ),
          inject: [BusConnection, TransactionMetrics, JsonLogger],
        },
        TransactionsPart,
      ],
      exports: [TRANSACTION_INTAKE],
    };
  }
}
