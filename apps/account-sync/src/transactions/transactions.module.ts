/**
 * The transaction ledger part: provides `TRANSACTION_INTAKE` (the webhook receiver and the REST sync feed
 * it), declares the transaction stream at start (phase `store`: first up, last down, drained at stop), and
 * answers transaction queries (phase `intake`).
 */
import { type DynamicModule, Inject, Injectable, Module, type OnModuleInit } from '@nestjs/common';
import { ModuleRef } from '@nestjs/core';
import { AccountLedgerName, BusConnection, BusResponder, BusStreams, SubjectLedger, type BusSubscription } from '#bus';
import { TransactionSubjects, type TransactionStateChanged } from '#contracts';
import { HealthRegistry, JsonLogger, MetricsRegistry } from '#observability';
import { ACCOUNT_SYNC_CONFIG, type AccountSyncConfig } from '../config.js';
import { AppLifecycle } from '../lifecycle/app-lifecycle.js';
import { ensureLedgerStream, NOT_STARTED, optionalSyncTriggers, storeHealth } from './part-support.js';
import { TRANSACTION_INTAKE } from './transaction-intake.js';
import { TransactionLedger } from './transaction-ledger.js';
import { TransactionMetrics } from './transaction-metrics.js';
import { answerTransactionQueries } from './transaction-queries.js';

@Injectable()
class TransactionsPart implements OnModuleInit {
  private queries: BusSubscription | undefined;

  constructor(
    @Inject(ACCOUNT_SYNC_CONFIG) private readonly config: AccountSyncConfig,
    @Inject(TRANSACTION_INTAKE) private readonly ledger: TransactionLedger,
    @Inject(BusStreams) private readonly streams: BusStreams,
    @Inject(BusConnection) private readonly connection: BusConnection,
    @Inject(BusResponder) private readonly responder: BusResponder,
    @Inject(AppLifecycle) private readonly lifecycle: AppLifecycle,
    @Inject(HealthRegistry) private readonly health: HealthRegistry,
    @Inject(ModuleRef) private readonly modules: ModuleRef,
    @Inject(JsonLogger) private readonly logger: JsonLogger,
  ) {}

  onModuleInit(): void {
    const { config } = this;
    const subjects = new TransactionSubjects(config.NATS_SUBJECT_PREFIX, config.ACCOUNT);
    let started = false; // a standby starts no part: its ledger is not read, whatever its store says
    this.health.register(
      'transaction-ledger',
      storeHealth(this.connection, 'the transactions', () => (started ? this.ledger.health() : NOT_STARTED)),
    );
    this.lifecycle.register('store', {
      name: 'transaction-ledger',
      start: async () => {
        const stream = AccountLedgerName.transactions(config.ACCOUNT);
        await ensureLedgerStream(this.streams, config, stream);
        // webhook-only legs of the last day that no list has shown yet are awaited again (WH13), before any read
        const restored = await this.ledger.restoreAwaitingList((since, each) =>
          this.streams.readAll<TransactionStateChanged>(
            stream,
            subjects.allChanged,
            (_subject, event) => each(event),
            since,
          ),
        );
        if (restored > 0)
          this.logger.info('webhook-only transactions still awaiting the venue list', { legs: restored });
        const triggers = optionalSyncTriggers(this.modules);
        if (triggers !== undefined) this.ledger.useSyncTriggers(triggers);
        started = true;
      },
      stop: () => this.ledger.drained(),
    });
    this.lifecycle.register('intake', {
      name: 'transaction-queries',
      start: async () => {
        this.queries = answerTransactionQueries(this.responder, subjects, this.ledger);
        await this.connection.flush(); // the server has the subscription before the app reads as started
      },
      stop: async () => this.queries?.stop(), // a query already routed here is still answered
    });
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
              {
                correctionAfterMs: config.TRANSACTION_CORRECTION_AFTER_MS,
                unconfirmedAfterMs: config.TRANSACTION_UNCONFIRMED_AFTER_MS,
              },
            ),
          inject: [BusConnection, TransactionMetrics, JsonLogger],
        },
        TransactionsPart,
      ],
      exports: [TRANSACTION_INTAKE],
    };
  }
}
