import { type DynamicModule, Module } from '@nestjs/common';
import {
  BusConnection,
  BusConsumers,
  BusCore,
  BusKv,
  BusPublisher,
  BusResponder,
  BusStreams,
  serviceModules,
} from '#bus';
import { systemClock } from '#actors';
import { HealthRegistry, JsonLogger, lifecycleOf, MetricsRegistry, StartupProgress } from '#observability';
import { TonceSource, VenueRestClient, VenueRestMetrics } from '#venue-api';
import { EXECUTION_CONFIG, type ExecutionConfig } from './config.js';
import { ExecutionRuntime } from './execution-runtime.js';
import { loadLimitsFile } from './risk/limits-file.js';
import { RISK_GATE, type RiskGate } from './risk/risk-gate.js';
import { RiskModule } from './risk/risk.module.js';

/** The venue REST calls of the execution app: reconciliation reads (trade list by clientRef, order state). */
const EXECUTION_REST_OPERATIONS = ['listTrades', 'getOrderState'] as const;

@Module({})
export class ExecutionAppModule {
  /** `instanceId`: kept by every start-up attempt of one process (INSTANCE_ID, else made once by the caller). */
  static forRoot(
    config: ExecutionConfig,
    startup?: StartupProgress,
    instanceId: string = config.INSTANCE_ID ?? generatedInstanceId(),
  ): DynamicModule {
    return {
      module: ExecutionAppModule,
      imports: [
        ...serviceModules('execution', config, `execution-${config.ACCOUNT}-${instanceId}`, startup),
        RiskModule.forRoot({
          subjectPrefix: config.NATS_SUBJECT_PREFIX,
          account: config.ACCOUNT,
          limitsFile: config.RISK_LIMITS_FILE,
          killSwitch: config.TRADING_KILL_SWITCH,
          replicas: config.NATS_REPLICAS,
          instance: instanceId,
        }),
      ],
      providers: [
        { provide: EXECUTION_CONFIG, useValue: config },
        {
          provide: ExecutionRuntime,
          useFactory: (
            connection: BusConnection,
            responder: BusResponder,
            publisher: BusPublisher,
            streams: BusStreams,
            kv: BusKv,
            consumers: BusConsumers,
            risk: RiskGate,
            metrics: MetricsRegistry,
            health: HealthRegistry,
            logger: JsonLogger,
            progress: StartupProgress,
          ) =>
            new ExecutionRuntime(
              {
                subjectPrefix: config.NATS_SUBJECT_PREFIX,
                account: config.ACCOUNT,
                instanceId,
                leaseMs: config.INSTANCE_LEASE_MS,
                sweepMs: config.OWNERSHIP_SWEEP_MS,
                quoteLifeMs: config.QUOTE_LIFE_MS,
                priceSilentStaleMs: config.PRICE_SILENT_STALE_MS,
                sendDeadlineMs: config.ORDER_SEND_DEADLINE_MS,
                quoteWaitMs: config.QUOTE_WAIT_MS,
                connectorRequestTimeoutMs: config.CONNECTOR_REQUEST_TIMEOUT_MS,
                connectorStaleMs: config.CONNECTOR_STALE_MS,
                orderRetentionMs: config.ORDER_RETENTION_MS,
                eventDuplicateWindowMs: config.ORDER_EVENT_DUPLICATE_WINDOW_MS,
                replicas: config.NATS_REPLICAS,
                timings: {
                  venueCheckAfterMs: config.VENUE_CHECK_AFTER_MS,
                  reconcileInitialMs: config.RECONCILE_INITIAL_MS,
                  reconcileMaxMs: config.RECONCILE_MAX_MS,
                  notExecutedGraceMs: config.NOT_EXECUTED_GRACE_MS,
                  fillLookups: config.FILL_LOOKUPS,
                  sendDeadlineMs: config.ORDER_SEND_DEADLINE_MS,
                },
                shutdownWaitMs: config.SHUTDOWN_WAIT_MS,
                maxLabelValues: config.METRIC_LABEL_VALUES_MAX,
                configuredStrategies: Object.keys(loadLimitsFile(config.RISK_LIMITS_FILE).file.strategies ?? {}),
                ...(config.FAULT_CRASH_AT !== undefined ? { crashAt: config.FAULT_CRASH_AT } : {}),
                ...(config.FAULT_START_PAUSE_MS !== undefined ? { startPauseMs: config.FAULT_START_PAUSE_MS } : {}),
              },
              {
                connection,
                core: new BusCore(connection, logger.child('bus')),
                responder,
                publisher,
                streams,
                kv,
                consumers,
              },
              risk,
              new VenueRestClient({
                baseUrl: config.VENUE_REST_URL,
                apiKey: config.VENUE_API_KEY,
                apiSecret: config.VENUE_API_SECRET,
                signatureEncoding: config.VENUE_SIGNATURE_ENCODING,
                antiReplay: new TonceSource(),
                requestsPerSecond: config.VENUE_REST_REQUESTS_PER_SECOND,
                timeoutMs: config.VENUE_REST_TIMEOUT_MS,
                throttleRetries: 1,
                events: new VenueRestMetrics(metrics, {
                  operations: EXECUTION_REST_OPERATIONS,
                  logger: logger.child('venue-rest'),
                }),
              }),
              systemClock,
              { metrics, health, logger, startup: progress },
            ),
          inject: [
            BusConnection,
            BusResponder,
            BusPublisher,
            BusStreams,
            BusKv,
            BusConsumers,
            RISK_GATE,
            MetricsRegistry,
            HealthRegistry,
            JsonLogger,
            StartupProgress,
          ],
        },
        // Starts the order side once every provider exists (risk included), and stops it first at shutdown (this
        // module is the root, so its destroy hook runs before the bus closes): stop answering → finish requests
        // in hand → drain the order actors → release ownership → flush NATS.
        lifecycleOf(ExecutionRuntime),
      ],
    };
  }
}

/** An instance name when INSTANCE_ID is unset: `exec-` and 8 random characters. */
export function generatedInstanceId(): string {
  return `exec-${Math.random().toString(36).slice(2, 10)}`;
}
