/**
 * The withdrawals part: the requests' KV bucket and event stream are declared and the open requests loaded
 * at start (phase `store`, with the poll of the venue's lists); the NATS subjects are answered in phase
 * `intake` (first to stop: no new request is taken while the ones in hand finish).
 */
import { type DynamicModule, Inject, Injectable, Module, type OnModuleInit } from '@nestjs/common';
import { ModuleRef } from '@nestjs/core';
import { systemClock } from '#actors';
import {
  AccountLedgerName,
  BusConnection,
  BusKv,
  BusPublisher,
  BusResponder,
  BusStreams,
  type BusSubscription,
} from '#bus';
import { WithdrawalSubjects, type WithdrawalRequestState, type WithdrawalStateChanged } from '#contracts';
import { HealthRegistry, JsonLogger, MetricsRegistry } from '#observability';
import { VenueRestClient } from '#venue-api';
import { ACCOUNT_SYNC_CONFIG, type AccountSyncConfig } from '../config.js';
import { AppLifecycle } from '../lifecycle/app-lifecycle.js';
import {
  ensureLedgerStream,
  NOT_STARTED,
  optionalKnownAccountGroups,
  optionalSyncTriggers,
  storeHealth,
} from '../transactions/part-support.js';
import { TRANSACTION_INTAKE } from '../transactions/transaction-intake.js';
import type { TransactionLedger } from '../transactions/transaction-ledger.js';
import { WithdrawalDesk } from './withdrawal-desk.js';
import { WithdrawalMetrics } from './withdrawal-metrics.js';
import { answerWithdrawals } from './withdrawal-responders.js';

/** Kind (metric label) of its JetStream publishes. */
const WITHDRAWAL_CHANGED_KIND = 'acct.withdrawal.changed';

@Injectable()
class WithdrawalsPart implements OnModuleInit {
  private desk: WithdrawalDesk | undefined;
  private subscriptions: BusSubscription[] = [];

  constructor(
    @Inject(ACCOUNT_SYNC_CONFIG) private readonly config: AccountSyncConfig,
    @Inject(VenueRestClient) private readonly client: VenueRestClient,
    @Inject(BusKv) private readonly kv: BusKv,
    @Inject(BusConnection) private readonly connection: BusConnection,
    @Inject(BusStreams) private readonly streams: BusStreams,
    @Inject(BusPublisher) private readonly publisher: BusPublisher,
    @Inject(BusResponder) private readonly responder: BusResponder,
    @Inject(AppLifecycle) private readonly lifecycle: AppLifecycle,
    @Inject(HealthRegistry) private readonly health: HealthRegistry,
    @Inject(MetricsRegistry) private readonly registry: MetricsRegistry,
    @Inject(JsonLogger) private readonly logger: JsonLogger,
    @Inject(ModuleRef) private readonly modules: ModuleRef,
    @Inject(TRANSACTION_INTAKE) private readonly ledger: TransactionLedger,
  ) {}

  onModuleInit(): void {
    const { config } = this;
    const subjects = new WithdrawalSubjects(config.NATS_SUBJECT_PREFIX, config.ACCOUNT);
    const metrics = new WithdrawalMetrics(this.registry);
    this.health.register(
      'withdrawals',
      storeHealth(this.connection, 'the withdrawal requests', () => this.desk?.health() ?? NOT_STARTED),
    );
    this.lifecycle.register('store', {
      name: 'withdrawals',
      start: async () => {
        await ensureLedgerStream(this.streams, config, AccountLedgerName.withdrawalEvents(config.ACCOUNT));
        this.publisher.declareDurableKinds([WITHDRAWAL_CHANGED_KIND]);
        const bucket = await this.kv.bucket(AccountLedgerName.withdrawalRequests(config.ACCOUNT), {
          storage: 'file',
          replicas: config.NATS_REPLICAS,
        });
        const desk = new WithdrawalDesk(
          this.client,
          bucket,
          {
            publish: async (subject, event, msgId) => {
              await this.publisher.publishDurable(subject, event, { msgId, kind: WITHDRAWAL_CHANGED_KIND });
            },
            lastPublished: async (subject) => {
              const stream = AccountLedgerName.withdrawalEvents(config.ACCOUNT);
              const last = await this.streams
                .lastMessage<WithdrawalStateChanged>(stream, subject)
                .catch(() => undefined);
              return last?.value?.withdrawal?.state;
            },
            lastPublishedAll: async () => {
              const states = new Map<string, WithdrawalRequestState | undefined>();
              const stream = AccountLedgerName.withdrawalEvents(config.ACCOUNT);
              await this.streams.readLastPerSubject<WithdrawalStateChanged>(
                stream,
                subjects.allChanged,
                (subject, event) => states.set(subject, event?.withdrawal?.state),
              );
              return states;
            },
          },
          subjects,
          metrics,
          systemClock,
          this.logger.child('Withdrawals'),
          {
            pollMs: config.WITHDRAWAL_POLL_MS,
            unknownSettleMs: config.WITHDRAWAL_UNKNOWN_SETTLE_MS,
            notFoundWatchMs: config.WITHDRAWAL_NOT_FOUND_WATCH_MS,
            rejectedWatchMs: config.WITHDRAWAL_REJECTED_WATCH_MS,
            stuckAfterMs: config.WITHDRAWAL_STUCK_AFTER_MS,
            accountDetailsTtlMs: config.WITHDRAWAL_ACCOUNT_DETAILS_TTL_MS,
            listLimit: config.WITHDRAWAL_LIST_LIMIT,
            restoreGraceMs: config.WITHDRAWAL_RESTORE_GRACE_MS,
            ...(config.FAULT_CRASH_AT !== undefined ? { crashAt: config.FAULT_CRASH_AT } : {}),
          },
        );
        const triggers = optionalSyncTriggers(this.modules);
        if (triggers !== undefined) desk.useSyncTriggers(triggers);
        const groups = optionalKnownAccountGroups(this.modules);
        if (groups !== undefined) desk.useKnownAccountGroups(groups);
        // A withdrawal's transaction leg moved (approved, processed, failed): read the lists now, not at the next poll.
        this.ledger.onStored((event) => {
          if (event.leg.transactionType === 'WITHDRAWAL') void desk.poll();
        });
        await desk.start();
        await desk.republishUnpublished();
        this.desk = desk;
      },
      stop: async () => this.desk?.stop(),
    });
    this.lifecycle.register('intake', {
      name: 'withdrawal-requests',
      start: async () => {
        if (this.desk !== undefined) this.subscriptions = answerWithdrawals(this.responder, subjects, this.desk);
        await this.connection.flush(); // the server has the subscriptions before the app reads as started
      },
      stop: async () => {
        // A request the server routed here before it saw the stop is still read and answered: a submit, cancel
        // or list at once with ACCOUNT_SYNC_STOPPING (nothing stored or sent), a get as usual; none waits unanswered.
        this.desk?.refuseNewWork();
        await Promise.all(this.subscriptions.splice(0).map((subscription) => subscription.stop()));
      },
    });
  }
}

@Module({})
export class WithdrawalsModule {
  static forRoot(): DynamicModule {
    return { module: WithdrawalsModule, providers: [WithdrawalsPart] };
  }
}
