/**
 * The REST sync's shell: creates its stream and buckets, loads the mirrors, serves the queries, listens to
 * order outcomes and runs the scheduler. Registered with AppLifecycle as one `intake` part (after the
 * stores: the transaction ledger is up before the first list record reaches it).
 */
import {
  AccountStateName,
  accountStateStreams,
  HISTORY_RESOURCES,
  readStreamJson,
  type BusConnection,
  type BusConsumers,
  type BusKv,
  type BusPublisher,
  type BusResponder,
  type BusStreams,
  type BusSubscription,
} from '#bus';
import {
  AccountSyncSubjects,
  driftMsgId,
  type AccountStateChanged,
  type MirroredResource,
  type Subjects,
} from '#contracts';
import type { HealthRegistry, JsonLogger, MetricsRegistry } from '#observability';
import type { Trade, TransferRecord, VenueRestClient } from '#venue-api';
import type { AccountSyncConfig } from '../config.js';
import type { TransactionIntake } from '../transactions/transaction-intake.js';
import { OrderOutcomeListener } from './order-outcome-listener.js';
import { serveStateQueries } from './state-queries.js';
import { StateMirror, type DurablePublish, type MirrorOptions, type MirrorStore } from './state-mirror.js';
import { SyncEngine, type Mirrors } from './sync-engine.js';
import { SyncMetrics } from './sync-metrics.js';
import { SyncScheduler } from './sync-scheduler.js';
import { SYNC_RESOURCES, type KnownAccountGroups, type RefreshCause, type SyncTriggers } from './sync-triggers.js';
import { watchUndoneTrades } from './undone-trades.js';

export interface SyncBus {
  connection: BusConnection;
  publisher: BusPublisher;
  responder: BusResponder;
  streams: BusStreams;
  consumers: BusConsumers;
  kv: BusKv;
}

/** Kinds (metric labels) of its JetStream publishes: account state changes and balance drifts. */
const STATE_KIND = 'acct.state';
const DRIFT_KIND = 'acct.drift';

export class AccountSyncRuntime implements SyncTriggers, KnownAccountGroups {
  readonly scheduler: SyncScheduler;
  readonly engine: SyncEngine;
  private readonly syncSubjects: AccountSyncSubjects;
  private readonly outcomes: OrderOutcomeListener;
  private mirrors: Mirrors | undefined;
  private subscriptions: BusSubscription[] = [];
  private readonly pendingMirrors: Mirrors;

  constructor(
    private readonly config: AccountSyncConfig,
    subjects: Subjects,
    private readonly bus: SyncBus,
    client: VenueRestClient,
    intake: TransactionIntake | undefined,
    observability: { metrics: MetricsRegistry; health: HealthRegistry; logger: JsonLogger },
  ) {
    this.syncSubjects = new AccountSyncSubjects(subjects);
    const logger = observability.logger;
    // Mirrors are built lazily over buckets opened at start; until then they are empty and unused.
    const publish: DurablePublish = (subject, payload, msgId) =>
      this.bus.publisher.publishDurable(subject, payload, { kind: STATE_KIND, msgId });
    const mirror = <T>(resource: MirroredResource, options: Omit<MirrorOptions<T>, 'resource'> = {}) =>
      new StateMirror<T>(
        HISTORY_RESOURCES.includes(resource) ? this.historyStore(resource) : this.kvStore(resource),
        publish,
        this.syncSubjects,
        { resource, ...options },
      );
    const scheduler: { current?: SyncScheduler } = {};
    const metrics = new SyncMetrics(
      observability.metrics,
      (resource) => scheduler.current?.ageOf(resource),
      SYNC_RESOURCES,
    );
    this.pendingMirrors = {
      balance: mirror('balance'),
      trade: mirror<Trade>('trade', {
        stateOf: (trade) => trade.state,
        onRecorded: watchUndoneTrades(metrics.tradesUndone, logger),
      }),
      transfer: mirror<TransferRecord>('transfer', { stateOf: (transfer) => transfer.state }),
      accountDetails: mirror('account-details'),
      beneficiary: mirror('beneficiary'),
      sender: mirror('sender'),
      limit: mirror('limit'),
      pair: mirror('pair'),
    };
    this.engine = new SyncEngine({
      client,
      mirrors: this.pendingMirrors,
      intake,
      publishDrift: async (drift) => {
        await this.bus.publisher.publishDurable(this.syncSubjects.drift(drift.accountGroupUuid, drift.ccy), drift, {
          kind: DRIFT_KIND,
          msgId: driftMsgId(drift),
        });
      },
      metrics,
      logger,
      now: Date.now,
      overlapMs: config.SYNC_OVERLAP_MS,
      sweepPages: config.SYNC_SWEEP_PAGES,
    });
    this.scheduler = new SyncScheduler(
      this.engine,
      {
        fastIntervalMs: config.SYNC_FAST_INTERVAL_MS,
        slowIntervalMs: config.SYNC_SLOW_INTERVAL_MS,
        triggerDelayMs: config.SYNC_TRIGGER_DELAY_MS,
        triggerMinGapMs: config.SYNC_TRIGGER_MIN_GAP_MS,
        staleIntervals: config.SYNC_STALE_INTERVALS,
      },
      metrics,
      logger,
    );
    scheduler.current = this.scheduler;
    this.outcomes = new OrderOutcomeListener(bus.consumers, subjects, this, config.ORDER_OUTCOME_ACK_WAIT_MS, logger);
    if (intake === undefined)
      logger.child('Sync').warn('no transaction ledger in this process: list records are mirrored for queries only');
    observability.health.register('sync', () => {
      const stale = this.scheduler.staleResources();
      return stale.length === 0
        ? { up: true }
        : {
            up: false,
            detail: stale
              .map(({ resource, detail }) => `${resource}: ${detail}`)
              .join('; ')
              .slice(0, 500),
          };
    });
    observability.health.register('order-outcomes', () => this.outcomes.listening);
  }

  refreshAfter(cause: RefreshCause): void {
    this.scheduler.refreshAfter(cause);
  }

  knownAccountGroups(): ReadonlySet<string> | undefined {
    return this.engine.knownGroups;
  }

  private readonly buckets = new Map<MirroredResource, ReturnType<BusKv['bucket']>>();

  /** Current records in a KV bucket per resource. */
  private kvStore(resource: MirroredResource): MirrorStore {
    return {
      values: <V>() => this.bucketOf(resource).then((bucket) => bucket.values<V>()),
      put: (key: string, value: unknown) => this.bucketOf(resource).then((bucket) => bucket.put(key, value)),
    };
  }

  /** Trades and transfers: the history stream is the store; its events fold back into the records at start. */
  private historyStore(resource: MirroredResource): MirrorStore {
    return {
      values: async <V>() => {
        const folded = new Map<string, { version: number; seenAt: number; value?: unknown; removed?: true }>();
        const stream = AccountStateName.historyEvents(this.config.ACCOUNT);
        await readStreamJson<AccountStateChanged>(
          this.bus.connection,
          stream,
          this.syncSubjects.allStateChanges(resource),
          (_subject, event) => {
            if (event === undefined || (folded.get(event.key)?.version ?? 0) > event.version) return;
            folded.set(
              event.key,
              event.change === 'removed'
                ? { version: event.version, seenAt: event.seenAt, removed: true }
                : { version: event.version, seenAt: event.seenAt, value: event.value },
            );
          },
        );
        return folded as Map<string, V>;
      },
      put: () => Promise.resolve(), // the published event is the stored state
    };
  }

  private bucketOf(resource: MirroredResource): ReturnType<BusKv['bucket']> {
    let bucket = this.buckets.get(resource);
    if (bucket === undefined) {
      bucket = this.bus.kv.bucket(AccountStateName.bucket(this.config.ACCOUNT, resource), {
        storage: 'file',
        replicas: this.config.NATS_REPLICAS,
      });
      this.buckets.set(resource, bucket);
    }
    return bucket;
  }

  async start(): Promise<void> {
    this.bus.publisher.declareDurableKinds([STATE_KIND, DRIFT_KIND]);
    for (const definition of accountStateStreams(this.syncSubjects, this.config.ACCOUNT, {
      duplicateWindowMs: this.config.ACCOUNT_EVENT_DUPLICATE_WINDOW_MS,
      retentionMs: this.config.ACCOUNT_EVENT_RETENTION_MS,
      replicas: this.config.NATS_REPLICAS,
    })) {
      await this.bus.streams.ensureStream(definition);
    }
    await Promise.all(Object.values(this.pendingMirrors).map((mirror: StateMirror<unknown>) => mirror.load()));
    this.mirrors = this.pendingMirrors;
    this.subscriptions = serveStateQueries(
      this.bus.responder,
      this.syncSubjects,
      this.mirrors,
      this.engine,
      (resource) => this.scheduler.freshness(resource),
    );
    this.scheduler.start();
    this.outcomes.start();
  }

  /** Stop taking work: outcomes (unhandled ones go back), queries, schedule (runs in progress finish). */
  async stop(): Promise<void> {
    await this.outcomes.stop();
    // a query the server routed here before it saw the stop is still answered, not dropped
    await Promise.all(this.subscriptions.splice(0).map((subscription) => subscription.stop()));
    await this.scheduler.stop();
    await this.bus.connection.flush().catch(() => undefined);
  }
}
