/**
 * Wires the execution app and runs it in order. Start: the event stream and buckets exist → prices and
 * connector outcomes are followed → this instance's heartbeat → risk restored from the journal → every open
 * order of this instance (or of a dead one) resumed and reconciled → requests are answered (queue group
 * `execution`); new orders are refused while orders resumed at start-up are not yet checked against the
 * venue (fail-closed). Stop: stop answering → finish the place requests in hand → actors drained → heartbeat
 * removed (the other instances take over at once) → NATS flushed.
 */
import {
  ExecutionErrorCode,
  ExecutionStreamName,
  ExecutionSubjects,
  StreamName,
  Subjects,
  topicsOf,
  type ExecutionSubjects as ExecutionSubjectsType,
  type OrderOutcome,
  type OrderRejection,
} from '#contracts';
import {
  ensureExecutionTopology,
  ORDER_COMMANDS_DURABLE,
  type BusConnection,
  type BusConsumers,
  type BusCore,
  type BusKv,
  type BusPublisher,
  type BusResponder,
  type BusStreams,
  type BusSubscription,
} from '#bus';
import type { Cancel, Clock } from '#actors';
import type { HealthRegistry, JsonLogger, MetricsRegistry, StartupProgress } from '#observability';
import type { VenueRestClient } from '#venue-api';
import { OrderQueries } from './api/order-queries.js';
import { parseOrderListing, parseOrderLookup, parsePositionsQuery } from './api/order-query-requests.js';
import { ABANDONED_PLACING_MARGIN_MS, PlaceOrderService } from './api/place-order.service.js';
import { ExecutionMetrics } from './metrics/execution-metrics.js';
import { OrderDesk, type CrashPoint } from './orders/order-desk.js';
import { OrderJournal } from './orders/order-journal.js';
import type { OrderTimings } from './orders/order-machine.js';
import { riskRestoreOf } from './orders/risk-restore.js';
import { Positions } from './orders/positions.js';
import { InstanceRegistry } from './ownership/instance-registry.js';
import { OrderOwnership } from './ownership/order-ownership.js';
import { PriceStreams } from './quotes/price-streams.js';
import { QuoteBook } from './quotes/quote-book.js';
import { QuoteClaims } from './quotes/quote-claims.js';
import type { RiskGate } from './risk/risk-gate.js';
import { VenueRecords } from './venue/venue-evidence.js';
import { UndoneFills } from './orders/undone-fills.js';
import { ContradictedFailures } from './orders/contradicted-failures.js';
import { ConnectorWatch } from './venue/connector-watch.js';
import { OrderQueue } from './api/order-queue.js';
import { HaltRecall } from './orders/halt-recall.js';

/** How long an undone trade being handled may take before it is handed to another instance. */
const UNDONE_FILLS_ACK_WAIT_MS = 30_000;

export interface ExecutionSettings {
  subjectPrefix: string;
  account: string;
  instanceId: string;
  leaseMs: number;
  sweepMs: number;
  quoteLifeMs: number;
  /** PRICE_SILENT_STALE_MS: a live stream silent this long counts as stale (its quotes are not traded). */
  priceSilentStaleMs: number;
  /** ORDER_SEND_DEADLINE_MS: an order's command carries `sendBy` = acceptance + this (at most its quote's expiry). */
  sendDeadlineMs: number;
  quoteWaitMs: number;
  connectorRequestTimeoutMs: number;
  /** CONNECTOR_STALE_MS: /health degrades once no connector was heard with its session open for this long. */
  connectorStaleMs: number;
  orderRetentionMs: number;
  eventDuplicateWindowMs: number;
  replicas: number;
  timings: OrderTimings;
  shutdownWaitMs: number;
  maxLabelValues: number;
  /** The strategies of the risk limits file: they have their own metric labels from the start. */
  configuredStrategies: string[];
  crashAt?: CrashPoint;
  /** FAULT_START_PAUSE_MS (tests only): start-up pauses this long once the streams are declared (a slow step). */
  startPauseMs?: number;
}

export interface ExecutionBus {
  connection: BusConnection;
  core: BusCore;
  /** The read-only queries: their bad requests are answered and counted like every contract's. */
  responder: BusResponder;
  publisher: BusPublisher;
  streams: BusStreams;
  kv: BusKv;
  consumers: BusConsumers;
}

export interface ExecutionObservability {
  metrics: MetricsRegistry;
  health: HealthRegistry;
  logger: JsonLogger;
  /** Told the step the start-up is in (/health while starting). */
  startup?: StartupProgress;
}

export const EXECUTION_QUEUE = 'execution';

interface Running {
  desk: OrderDesk;
  place: PlaceOrderService;
  ownership: OrderOwnership;
  registry: InstanceRegistry;
  book: QuoteBook;
  priceStreams: PriceStreams;
  venue: VenueRecords;
  undoneFills: UndoneFills;
  contradictedFailures: ContradictedFailures;
  connector: ConnectorWatch;
  subscriptions: BusSubscription[];
  timers: Cancel[];
}

export class ExecutionRuntime {
  readonly subjects: Subjects;
  readonly execSubjects: ExecutionSubjectsType;
  private readonly logger: JsonLogger;
  private running: Running | undefined;
  /** What a start-up in progress (or cut off) started so far: stopped by `stop()` like a running one. */
  private starting: Running | undefined;
  private stopping: Promise<void> | undefined;
  private startedAt = 0;

  constructor(
    private readonly settings: ExecutionSettings,
    private readonly bus: ExecutionBus,
    private readonly risk: RiskGate,
    private readonly rest: VenueRestClient,
    private readonly clock: Clock,
    private readonly observability: ExecutionObservability,
  ) {
    this.subjects = new Subjects(settings.subjectPrefix, settings.account);
    this.execSubjects = new ExecutionSubjects(this.subjects);
    this.logger = observability.logger.child('execution');
  }

  get instanceId(): string {
    return this.settings.instanceId;
  }

  async start(): Promise<void> {
    if (this.running !== undefined) return;
    const { settings, bus, subjects, execSubjects, clock, logger } = this;
    this.startedAt = clock.now();
    const step = (name: string): void => this.observability.startup?.enter(name);
    step('declaring streams and buckets');
    const buckets = await ensureExecutionTopology(bus.streams, bus.kv, execSubjects, {
      orderRetentionMs: settings.orderRetentionMs,
      eventDuplicateWindowMs: settings.eventDuplicateWindowMs,
      replicas: settings.replicas,
    });
    const journal = new OrderJournal(buckets.journal);
    const claims = new QuoteClaims(buckets.journal);
    const positions = new Positions(buckets.positions, () => clock.now());
    const registry = new InstanceRegistry(buckets.instances, settings.instanceId, settings.leaseMs, clock);
    let priceStream = StreamName.prices(settings.account);
    const findPriceStream = async (): Promise<void> => {
      priceStream = (await bus.streams.streamFor(subjects.allPrices)) ?? priceStream;
    };
    step('following prices and the connector');
    if (settings.startPauseMs !== undefined) {
      logger.warn('start-up paused (FAULT_START_PAUSE_MS, tests only)', { ms: settings.startPauseMs });
      await new Promise((resolve) => setTimeout(resolve, settings.startPauseMs));
    }
    await findPriceStream();
    const connector = new ConnectorWatch({
      core: bus.core,
      streams: bus.streams,
      subjects,
      clock,
      staleMs: settings.connectorStaleMs,
    });
    const book = new QuoteBook(
      bus.core,
      subjects.allPrices,
      settings.quoteLifeMs,
      clock,
      settings.priceSilentStaleMs,
      () => connector.lastHeardAt(),
      () => connector.lifeHeardSince(),
    );
    const priceStreams = new PriceStreams(subjects, bus.core, bus.streams, book, clock, {
      requester: `execution-${settings.account}`,
      requestTimeoutMs: settings.connectorRequestTimeoutMs,
      quoteWaitMs: settings.quoteWaitMs,
      priceStream: () => priceStream,
    });
    // the desk needs the metrics and the metrics read the desk: bound once both exist
    const deskOf: { current?: OrderDesk } = {};
    const metrics = new ExecutionMetrics(
      this.observability.metrics,
      {
        ordersByState: () => deskOf.current?.ordersByState() ?? {},
        unresolved: () => deskOf.current?.unresolved() ?? { count: 0, oldestAgeMs: 0 },
        startupReconciling: () => (deskOf.current?.startupUnchecked ?? 0) > 0,
        connectorUsable: () => connector.health().up,
      },
      settings.maxLabelValues,
      settings.configuredStrategies,
    );
    const venue = new VenueRecords(this.rest, {
      attempt: (source, result, reason) => {
        metrics.reconciliationAttempts.inc({ source, result });
        if (reason !== undefined) logger.debug('venue record read failed', { source, reason });
      },
    });
    const desk = new OrderDesk({
      instanceId: settings.instanceId,
      subjects,
      execSubjects,
      topics: topicsOf(subjects),
      outcomeStream: StreamName.orderOutcomes(settings.account),
      eventStream: ExecutionStreamName.orderEvents(settings.account),
      journal,
      claims,
      publisher: bus.publisher,
      streams: bus.streams,
      venue,
      risk: this.risk,
      positions,
      metrics,
      clock,
      logger,
      timings: settings.timings,
      sendDeadlineMs: settings.sendDeadlineMs,
      ...(settings.crashAt !== undefined ? { crashAt: settings.crashAt } : {}),
    });
    deskOf.current = desk;
    // the desk's commands and the order events (also undone fills'): their failure series exist from the start
    const orderEventKind = execSubjects.orderEventTopic('*', '*').kind;
    bus.publisher.declareDurableKinds([topicsOf(subjects).orderCommand.kind, orderEventKind]);
    const ownership = new OrderOwnership(journal, registry, desk, logger, {
      now: () => clock.now(),
      afterMs: settings.sendDeadlineMs + ABANDONED_PLACING_MARGIN_MS,
    });
    const place = new PlaceOrderService({
      instanceId: settings.instanceId,
      journal,
      desk,
      book,
      streams: priceStreams,
      claims,
      risk: this.risk,
      gate: { refusal: () => this.refusal() },
      queue: new OrderQueue(
        {
          paceMs: () => connector.orderQueuePaceMs(),
          commandsQueued: () =>
            bus.streams.consumerBacklog(StreamName.orderCommands(settings.account), ORDER_COMMANDS_DURABLE),
          commandsUnpublished: () => desk.commandsUnpublished,
          commandsPublished: () => desk.commandsPublished,
        },
        clock,
      ),
      metrics,
      clock,
      logger,
      quoteLifeMs: settings.quoteLifeMs,
      sendDeadlineMs: settings.sendDeadlineMs,
      ...(settings.crashAt !== undefined ? { crashAt: settings.crashAt } : {}),
    });
    const queries = new OrderQueries(journal, positions);
    const undoneFills = new UndoneFills({
      consumers: bus.consumers,
      publisher: bus.publisher,
      streams: bus.streams,
      eventStream: ExecutionStreamName.orderEvents(settings.account),
      journal,
      positions,
      risk: this.risk,
      subjects,
      execSubjects,
      clock,
      results: metrics.undoneFills,
      logger,
      ackWaitMs: UNDONE_FILLS_ACK_WAIT_MS,
    });
    const contradictedFailures = new ContradictedFailures({
      consumers: bus.consumers,
      publisher: bus.publisher,
      streams: bus.streams,
      eventStream: ExecutionStreamName.orderEvents(settings.account),
      journal,
      positions,
      risk: this.risk,
      venue,
      subjects,
      execSubjects,
      clock,
      contradictions: metrics.outcomeContradictions,
      results: metrics.contradictedOutcomes,
      logger,
      ackWaitMs: UNDONE_FILLS_ACK_WAIT_MS,
      reconcileInitialMs: settings.timings.reconcileInitialMs,
      reconcileMaxMs: settings.timings.reconcileMaxMs,
    });
    const running: Running = {
      desk,
      place,
      ownership,
      registry,
      book,
      priceStreams,
      venue,
      undoneFills,
      contradictedFailures,
      connector,
      subscriptions: [],
      timers: [],
    };
    // from here on, a start-up cut off (NATS gone) is stopped like a running instance before another attempt
    this.starting = running;
    book.start();
    priceStreams.start();
    await connector.start();
    running.subscriptions.push(
      bus.core.subscribe(subjects.allOrderOutcomes, (message) => {
        const outcome = message.json<OrderOutcome>();
        if (outcome !== undefined && outcome !== null && typeof outcome.clientRequestId === 'string') {
          desk.onOutcome(outcome);
        }
      }),
    );
    const haltRecall = new HaltRecall({
      open: () => desk.records(),
      publisher: bus.publisher,
      subjects,
      recalled: metrics.ordersRecalled,
      logger,
    });
    this.risk.onTradingState((entry) => haltRecall.onTradingState(entry));
    step('registering this instance (heartbeat)');
    await registry.start();
    step('forgetting the marks of closed orders');
    await journal.forgetClosedMarks();
    step('restoring risk from the open orders');
    this.risk.restore((await ownership.openRecords()).map(riskRestoreOf));
    step('taking over open orders');
    await ownership.sweep(true);
    step('answering requests');
    undoneFills.start();
    contradictedFailures.start();
    const startupPhaseEnds = this.startedAt + settings.leaseMs + settings.sweepMs;
    // one sweep at a time (during a NATS outage each waits for its timeout), and one log line per episode
    const sweeps = { running: false, failed: 0 };
    running.timers.push(
      clock.setInterval(() => {
        if (this.stopping !== undefined || sweeps.running) return;
        sweeps.running = true;
        ownership
          .sweep(clock.now() < startupPhaseEnds)
          .then(
            () => {
              if (sweeps.failed > 0) logger.info('ownership sweeps work again', { failedSweeps: sweeps.failed });
              sweeps.failed = 0;
            },
            (error: unknown) => {
              sweeps.failed += 1;
              if (sweeps.failed > 1) return;
              logger.warn('ownership sweep failed; sweeping on, said again once it works', {
                error: error instanceof Error ? error.message : String(error),
              });
            },
          )
          .finally(() => (sweeps.running = false));
      }, settings.sweepMs),
    );
    bus.connection.onReconnect(() => void findPriceStream().catch(() => undefined));
    this.running = running;
    const reply = (answer: Promise<unknown>, respond: (body: unknown) => void): void => {
      answer.then(respond, (error: unknown) => {
        logger.error('request failed', { error: error instanceof Error ? error.message : String(error) });
        respond({ ok: false, error: { code: ExecutionErrorCode.Internal, message: 'internal error' } });
      });
    };
    const queue = { queue: EXECUTION_QUEUE };
    running.subscriptions.push(
      bus.core.subscribe(
        execSubjects.place,
        (m) => (m.isRequest ? reply(place.place(m.data), m.respond) : bus.responder.requestWithoutReply('order.place')),
        queue,
      ),
      bus.responder.respondParsed({
        subject: execSubjects.get,
        kind: 'order.get',
        queue: EXECUTION_QUEUE,
        parse: parseOrderLookup,
        handle: (lookup) => queries.get(lookup),
      }),
      bus.responder.respondParsed({
        subject: execSubjects.list,
        kind: 'order.list',
        queue: EXECUTION_QUEUE,
        acceptEmptyBody: true,
        parse: parseOrderListing,
        handle: (listing) => queries.list(listing),
      }),
      bus.responder.respondParsed({
        subject: execSubjects.positions,
        kind: 'position.get',
        queue: EXECUTION_QUEUE,
        parse: parsePositionsQuery,
        handle: (query) => queries.positionsOf(query),
      }),
    );
    this.observability.health.register('connector', () => connector.health());
    this.observability.health.register('startup-reconciliation', () => {
      const unchecked = desk.startupUnchecked;
      if (unchecked === 0) return { up: true };
      return {
        up: false,
        detail: `${unchecked} order(s) resumed at start-up not yet checked against the venue${venue.lastReachable === false ? ' (venue unreachable)' : ''}; new orders refused`,
      };
    });
    logger.info('execution started', {
      instance: settings.instanceId,
      resumed: desk.records().length,
      startupUnchecked: desk.startupUnchecked,
    });
  }

  /** Why a place request is refused now (fail-closed), if it is. */
  refusal(): OrderRejection | undefined {
    if (this.stopping !== undefined) {
      return { ok: false, error: { code: ExecutionErrorCode.Stopping, message: 'this instance is stopping' } };
    }
    const running = this.running;
    if (running === undefined) {
      return { ok: false, error: { code: ExecutionErrorCode.NotReady, message: 'execution is starting' } };
    }
    const unchecked = running.desk.startupUnchecked;
    if (unchecked > 0) {
      const reachable = running.venue.lastReachable;
      return {
        ok: false,
        error: {
          code: ExecutionErrorCode.Reconciling,
          message:
            'orders resumed at start-up are not yet reconciled with the venue; new orders are refused until they are',
          values: { unresolvedOrders: String(unchecked), venue: reachable === false ? 'unreachable' : 'checking' },
        },
      };
    }
    return undefined;
  }

  stop(): Promise<void> {
    this.stopping ??= this.shutdown();
    return this.stopping;
  }

  private async shutdown(): Promise<void> {
    // a start-up cut off stops what it started: every part's stop is a no-op for what did not start
    const running = this.running ?? this.starting;
    if (running === undefined) return;
    for (const cancel of running.timers) cancel();
    // An order the server routed here before it saw the stop is still read and answered (EXECUTION_STOPPING), not
    // dropped: its caller would wait its whole timeout for an order that was never taken.
    await Promise.all(running.subscriptions.map((subscription) => subscription.stop()));
    await bounded(running.place.idle(), this.settings.shutdownWaitMs);
    await bounded(running.undoneFills.stop(), this.settings.shutdownWaitMs);
    await bounded(running.contradictedFailures.stop(), this.settings.shutdownWaitMs);
    await bounded(running.desk.stop(), this.settings.shutdownWaitMs);
    await running.registry.stop(true);
    running.priceStreams.stop();
    running.book.stop();
    running.connector.stop();
    await this.bus.connection.flush().catch(() => undefined);
    this.logger.info('execution stopped; its open orders are taken over by the other instances or its next start');
  }
}

function bounded(work: Promise<void>, ms: number): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(resolve, ms);
    timer.unref();
    work.then(
      () => {
        clearTimeout(timer);
        resolve();
      },
      () => {
        clearTimeout(timer);
        resolve();
      },
    );
  });
}
