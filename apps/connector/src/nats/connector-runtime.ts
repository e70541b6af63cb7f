import { Subjects, type PriceMessage } from '#contracts';
import {
  BucketName,
  BusCore,
  ensureConnectorStreams,
  type BusConnection,
  type BusConsumers,
  type BusKv,
  type BusPublisher,
  type BusResponder,
  type BusStreams,
} from '#bus';
import { systemClock } from '#actors';
import type { HealthRegistry, JsonLogger, MetricsRegistry, StartupProgress } from '#observability';
import { ConnectorStatusPublication } from '../status/connector-status.publication.js';
import { SessionHealth } from '../status/session-health.js';
import { AccountGroupsResponder } from './account-groups.js';
import { ConnectorNatsMetrics } from './connector-metrics.js';
import { OrderCommands } from './order-commands.js';
import { OrderMarks } from './order-marks.js';
import { VenueSubscriptionLedger } from './venue-subscription-ledger.js';
import { OrderContradictions } from './order-contradictions.js';
import { OrderOutcomes } from './order-outcomes.js';
import { OrderRecalls } from './order-recalls.js';
import { ExecutionSettlements } from './execution-settlements.js';
import { PricePublication } from './price-publication.js';
import { PublishedPriceSubjects } from './published-price-subjects.js';
import { StreamRequests } from './stream-requests.js';
import type { AccountGroupSource, OrderVenue, PriceStreams, SessionView } from './venue-ports.js';

export interface ConnectorRuntimeSettings {
  subjectPrefix: string;
  account: string;
  statusIntervalMs: number;
  orderCommandAckWaitMs: number;
  outcomeDuplicateWindowMs: number;
  orderRetentionMs: number;
  /** Last-value price entries age out after this (no longer than a quote's life), so a dead quote never lingers. */
  priceMaxAgeMs: number;
  /** Replicas of the durable streams and the order-mark bucket (3 on a three-node cluster). */
  replicas: number;
  /** How long /health tolerates a reconnecting session. */
  sessionHealthGraceMs: number;
  /** Bound on waiting for outcomes in hand at shutdown. */
  shutdownOutcomeWaitMs: number;
}

export interface ConnectorBus {
  connection: BusConnection;
  publisher: BusPublisher;
  responder: BusResponder;
  streams: BusStreams;
  consumers: BusConsumers;
  kv: BusKv;
}

export interface ConnectorVenue {
  session: SessionView;
  registry: PriceStreams;
  gateway: OrderVenue;
  accountGroups: AccountGroupSource;
}

export interface ConnectorObservability {
  metrics: MetricsRegistry;
  health: HealthRegistry;
  logger: JsonLogger;
  /** Told the step the start-up is in (/health while starting). */
  startup?: StartupProgress;
}

/**
 * Wires the venue side to NATS and runs it in order. Start: streams and the marks bucket exist → the prices an
 * earlier life left live without stopping (killed) read `stopped` → outcomes and prices are being published →
 * requests are answered → the session starts → orders marked but not
 * resolved by an earlier life are reconciled → commands are taken. Stop (the reverse, so no money-bearing
 * message is dropped): stop taking commands and requests → stop the session → store the outcomes in hand
 * → last status → flush NATS. The bus module closes the connection after.
 */
export class ConnectorRuntime {
  readonly subjects: Subjects;
  private readonly natsMetrics: ConnectorNatsMetrics;
  private readonly logger: JsonLogger;
  private parts: RunningParts | undefined;
  private stopping: Promise<void> | undefined;
  private subscriptions: VenueSubscriptionLedger | undefined;

  constructor(
    private readonly settings: ConnectorRuntimeSettings,
    private readonly bus: ConnectorBus,
    private readonly venue: ConnectorVenue,
    private readonly observability: ConnectorObservability,
  ) {
    this.subjects = new Subjects(settings.subjectPrefix, settings.account);
    this.natsMetrics = new ConnectorNatsMetrics(observability.metrics);
    this.logger = observability.logger.child('connector-nats');
  }

  async start(): Promise<void> {
    if (this.parts !== undefined) return;
    const { subjects, bus, venue, settings, natsMetrics: metrics, logger } = this;
    const streamSettings = {
      outcomeDuplicateWindowMs: settings.outcomeDuplicateWindowMs,
      orderRetentionMs: settings.orderRetentionMs,
      priceMaxAgeMs: settings.priceMaxAgeMs,
      statusMaxAgeMs: Math.max(3 * settings.statusIntervalMs, 1_000),
      replicas: settings.replicas,
    };
    const step = (name: string): void => this.observability.startup?.enter(name);
    step('declaring streams and buckets');
    // Declared again by the bus after a reconnect or a "no stream" answer (a restarted server may have lost them).
    const { priceStream } = await ensureConnectorStreams(bus.streams, subjects, streamSettings);
    const bucket = await bus.kv.bucket(BucketName.orderMarks(subjects.account), {
      storage: 'file',
      maxAgeMs: settings.orderRetentionMs,
      replicas: settings.replicas,
    });
    const marks = new OrderMarks(bucket);
    const publishedPrices = new PublishedPriceSubjects(
      // replicated like the order marks: a memory bucket of one copy, stranded on a dead node of a cluster, is
      // never served again; an entry outlives its price by nothing (both age out after PRICE_MAX_AGE_MS)
      await bus.kv.bucket(BucketName.priceSubjects(subjects.account), {
        storage: 'file',
        maxAgeMs: settings.priceMaxAgeMs,
        replicas: settings.replicas,
      }),
      logger,
    );
    // before this life publishes, answers or says it is up: nobody reads a dead life's quote as live from here on
    step('retiring the prices an earlier life left live');
    await this.retireEarlierLife(publishedPrices, priceStream);
    const contradictions = new OrderContradictions(subjects, bus.publisher, logger);
    const outcomes = new OrderOutcomes(subjects, marks, bus.publisher, metrics, logger, contradictions);
    bus.publisher.declareDurableKinds(['order.outcome']);
    const parts: RunningParts = {
      prices: new PricePublication(subjects, bus.publisher, metrics, logger, publishedPrices),
      outcomes,
      contradictions,
      status: new ConnectorStatusPublication(
        subjects,
        venue.session,
        venue.registry,
        venue.gateway,
        bus.publisher,
        settings.statusIntervalMs,
      ),
      sessionHealth: new SessionHealth(venue.session, settings.sessionHealthGraceMs),
      streamRequests: new StreamRequests(subjects, venue.registry, bus.responder, metrics),
      accountGroups: new AccountGroupsResponder(subjects, venue.accountGroups, bus.responder),
      commands: new OrderCommands(
        subjects,
        bus.consumers,
        marks,
        venue.gateway,
        outcomes,
        metrics,
        logger,
        settings.orderCommandAckWaitMs,
      ),
      recalls: new OrderRecalls(subjects, new BusCore(bus.connection, logger), venue.gateway, metrics, logger),
      settlements: new ExecutionSettlements(
        subjects,
        new BusCore(bus.connection, logger),
        venue.gateway,
        marks,
        logger,
      ),
      marks,
    };
    this.parts = parts;
    step('publishing prices and status, answering requests');
    outcomes.start(venue.gateway.outcomes$);
    parts.contradictions.start(venue.gateway.contradictions$);
    parts.prices.start(venue.registry.prices$);
    parts.sessionHealth.register(this.observability.health);
    parts.status.start();
    parts.streamRequests.start();
    parts.accountGroups.start();
    await parts.recalls.start(bus.streams);
    parts.settlements.start();
    // before the session opens: a leftover of an earlier life streaming at once is known for what it is
    step('loading the venue subscriptions of an earlier life');
    const subscriptions = new VenueSubscriptionLedger(
      await bus.kv.bucket(BucketName.venueSubscriptions(subjects.account), {
        storage: 'file',
        replicas: settings.replicas,
      }),
      logger,
      systemClock,
    );
    venue.registry.useSubscriptionLedger(subscriptions, await subscriptions.load());
    subscriptions.start();
    this.subscriptions = subscriptions;
    venue.session.start();
    step('reading the orders an earlier life left unresolved');
    await this.reconcileUnresolved(marks);
    step('taking order commands');
    await parts.commands.start();
    logger.info('connector publishing on NATS', {
      account: subjects.account,
      prefix: subjects.prefix,
      priceStream,
    });
  }

  stop(): Promise<void> {
    this.stopping ??= this.shutdown();
    return this.stopping;
  }

  private async shutdown(): Promise<void> {
    const parts = this.parts;
    if (parts === undefined) return;
    this.venue.gateway.stopSending(); // nothing leaves after the signal; unsent commands go back (nak)
    await parts.commands.stop();
    parts.recalls.stop();
    parts.settlements.stop();
    parts.streamRequests.stop();
    parts.accountGroups.stop();
    await this.venue.session.stop();
    await parts.outcomes.stop(this.settings.shutdownOutcomeWaitMs);
    parts.contradictions.stop();
    parts.prices.stopAll(); // late joiners read `stopped`, never this connector's last quote as live
    parts.prices.stop();
    parts.status.publish();
    parts.status.stop();
    parts.sessionHealth.stop();
    this.subscriptions?.stop();
    await this.bus.connection.flush().catch(() => undefined);
    this.logger.info('connector NATS side stopped');
  }

  /**
   * The streams an earlier life was publishing when it died (it never said `stopped`): each whose last value is
   * still `live` or `stale` gets the `stopped` a clean stop would have published, so a late joiner (the SDK, a
   * plain NATS reader of the last value, the execution app) never takes the dead life's quote for a live one. One
   * consumer reads every last value whatever the number of streams; a failure is logged and the start goes on (the
   * entries then age out after PRICE_MAX_AGE_MS, and readers hold back a last value older than their bound).
   */
  private async retireEarlierLife(published: PublishedPriceSubjects, priceStream: string): Promise<void> {
    const { bus, subjects, logger } = this;
    try {
      const earlier = new Set(await published.earlier());
      if (earlier.size === 0) return;
      let retired = 0;
      const found = new Map<string, PriceMessage>();
      await bus.streams.readAll<PriceMessage>(priceStream, subjects.allPrices, (subject, price) => {
        if (earlier.has(subject) && price !== undefined) found.set(subject, price);
      });
      for (const [subject, price] of found) {
        if (price.status === 'stopped') continue;
        retired += 1;
        const stopped: PriceMessage = {
          v: 1,
          status: 'stopped',
          accountGroup: price.accountGroup,
          instrument: price.instrument,
          tenor: price.tenor,
          currency: price.currency,
          quantity: price.quantity,
          code: 'CONNECTOR_STOPPED',
          message: 'the connector publishing this stream stopped without saying so (restarted); ask for it again',
        };
        if (bus.publisher.publishJson(subject, JSON.stringify(stopped), 'price')) {
          this.natsMetrics.pricesPublished.inc({ status: 'stopped' });
        }
      }
      await bus.connection.flush();
      await Promise.all([...earlier].map((subject) => published.forgetEarlier(subject)));
      if (retired > 0) {
        logger.warn('price streams an earlier life left live (it did not stop cleanly) now read stopped', {
          streams: retired,
        });
      }
    } catch (error) {
      logger.warn('the last prices of an earlier life could not be checked; they age out after PRICE_MAX_AGE_MS', {
        error: error instanceof Error ? error.message : String(error),
      });
    }
  }

  /** Orders an earlier life marked as sent without a final outcome: resolve them (never re-send). */
  private async reconcileUnresolved(marks: OrderMarks): Promise<void> {
    const open = await marks.unresolved();
    if (open.length === 0) return;
    this.logger.warn('reconciling orders without a final outcome from before this start', { count: open.length });
    for (const mark of open) {
      const hints = {
        markedAt: mark.markedAt,
        ...(mark.quoteId !== undefined && { quoteId: mark.quoteId }),
        ...(mark.side !== undefined && { side: mark.side }),
      };
      this.venue.gateway.reconcile(mark.clientRequestId, hints).catch((error: unknown) =>
        this.logger.error('start-up reconciliation failed', {
          clientRequestId: mark.clientRequestId,
          error: error instanceof Error ? error.message : String(error),
        }),
      );
    }
  }
}

interface RunningParts {
  prices: PricePublication;
  outcomes: OrderOutcomes;
  contradictions: OrderContradictions;
  status: ConnectorStatusPublication;
  sessionHealth: SessionHealth;
  streamRequests: StreamRequests;
  accountGroups: AccountGroupsResponder;
  commands: OrderCommands;
  recalls: OrderRecalls;
  settlements: ExecutionSettlements;
  marks: OrderMarks;
}
